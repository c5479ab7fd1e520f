package emit

import (
	"fmt"
	"regexp"
	"strings"
)

// buffer is one per-sample input or output of an entry point.
type buffer struct {
	name string
	size int
	// shape is the row-major shape users see (e.g. [NV, NV]); empty means a vector of size.
	shape []int
	doc   string
}

// entry describes one algorithm's entry-point ladder: `<name>_device`, `<name>_kernel`, `<name>_launch`
// and the host wrapper `<name>`, all around an already emitted block-cooperative inner.
type entry struct {
	name    string
	doc     string
	outputs []buffer
	inputs  []buffer
	// gravity adds a grid::Vec3<T> gravity argument; frame an int frame index; method an int integrator
	// (grid::algorithms::IntegratorMethod).
	gravity, frame, method bool
	// temp is the inner's scratch size in elements.
	temp int
	// placement names the inner's template parameter (default TEMP_IN_SMEM) as the seed system names it; the
	// tier's choice is <InnerPrefix>_<parameter><T, TIER>(). Without a split, it moves the whole scratch.
	placement placement
	// globalOutputs has the inner write the outputs straight to the caller's memory (global memory on the
	// GPU) instead of shared memory: for outputs too large for it, such as NV³ second-derivative tensors.
	globalOutputs bool
	// algorithm names the template in grid::algorithms (kernels/grid/algorithms/) that computes the entry,
	// with shared its cross-body state type; empty for inners emitted as code. A template entry also gets
	// `<name>_thread` (one sample by one thread, state in registers) and `<name>_thread_kernel`.
	algorithm, shared string
	// directOutputs has `<name>_thread` pass its output pointers straight to the template (which writes each
	// output element exactly once and never reads one back) instead of staging them in local arrays:
	// outputs too large to stay in registers.
	directOutputs bool
	// finalRows has the one-sample-per-thread kernel store its outputs, row-major arrays of equal row counts,
	// as the template reports rows final (a callback of the rows [first, end) now final, in the order named),
	// so that the warp's stores free registers during the sample rather than holding every element to the
	// end: a large robot's NV² outputs, or its frames' poses, do not fit in registers.
	finalRows rowOrder
	// phasedThreadLaunch, when set, writes the body of `<name>_launch` for threads_per_sample == 1 (it must
	// return): the algorithm's phases as separate launches of other entry points instead of the fused
	// `<name>_thread_kernel`.
	phasedThreadLaunch func(w *writer)
	// needs names the entry points whose launch functions phasedThreadLaunch calls: a build of some entry
	// points (GRID_CUDA_ENTRIES) compiles those too, reading them from the header's "needs" line.
	needs []string
	// heapState has the host build keep the template's state on the heap and pass the caller's arrays
	// straight to it: a rolled robot's state and arrays can exceed a thread's stack.
	heapState bool
	// limbs gives an unrolled robot's entry `<name>_limbs_kernel`, a block per sample and a warp per limb of the
	// tree (LimbScope of grid/schedule.cuh), launched at LIMBS_LAUNCH_SHAPE: one sample's latency is then its
	// longest path of limbs. Its outputs must be vectors over the velocity coordinates, which each limb stores
	// for its own joints, or directOutputs, which the limbs write in global memory as they go.
	limbs bool
	// limbTeams, when above 1, has the limb kernel run that many teams of limb warps side by side (a block of
	// limbTeams·limb_count warps, LimbScope's teams), the template giving each team its part; limbShared then
	// names the limb kernel's state type in place of shared.
	limbTeams  int
	limbShared string
	// number is the entry's place in the header, its GRID_ALGO_<NAME>.
	number int
}

// placement is how an inner names and splits its scratch.
type placement struct {
	param string
	// split, when set, is the part of the scratch the parameter moves (the rest stays in s_temp): the
	// template takes the rest as bodies (a base of its state type) and the region as a pointer to region
	// elements of regionSize scalars each.
	split *scratchSplit
}

type scratchSplit struct {
	bodies, region string
	regionSize     int // scalars of the moved region
}

// innerPrefixes are the seed system's prefixes of the inners' sizing and placement constants where they are
// not the entry point's name in upper case.
var innerPrefixes = map[string]string{"forward_dynamics": "FD", "end_effector_pose_gradient": "EE_GRAD"}

// InnerPrefix is the prefix of an entry point's inner sizing and placement constants
// (<prefix>_INNER_TEMP, <prefix>_INNER_SMEM_BYTES, ...).
func InnerPrefix(entry string) string {
	if p, ok := innerPrefixes[entry]; ok {
		return p
	}
	return strings.ToUpper(entry)
}

// sizing is the prefix of the inner's sizing and placement constants.
func (e *entry) sizing() string { return InnerPrefix(e.name) }

// placementParam is the inner's placement template parameter.
func (e *entry) placementParam() string {
	if e.placement.param != "" {
		return e.placement.param
	}
	return "TEMP_IN_SMEM"
}

// placementConst is the constexpr that says which placement a tier resolves to.
func (e *entry) placementConst() string { return e.sizing() + "_" + e.placementParam() }

// spilled is the scratch, in elements, the placement parameter moves to d_workspace.
func (e *entry) spilled() int {
	if e.placement.split != nil {
		return e.placement.split.regionSize
	}
	return e.temp
}

// stateType is the C++ type of the algorithms' state template name for precision typ.
func stateType(name, typ string) string { return fmt.Sprintf("algorithms::%s<Robot, %s>", name, typ) }

// sharedType is the algorithm template's cross-body state for precision typ.
func (e *entry) sharedType(typ string) string { return stateType(e.shared, typ) }

// limbStateType is the limb kernel's shared state for precision typ.
func (e *entry) limbStateType(typ string) string {
	if e.limbShared != "" {
		return stateType(e.limbShared, typ)
	}
	return e.sharedType(typ)
}

// limbWarps is the C++ expression of the limb kernel's warps per block: a warp per limb for each team.
func (e *entry) limbWarps() string {
	if e.limbTeams > 1 {
		return fmt.Sprintf("%d * limb_count<Robot>()", e.limbTeams)
	}
	return "limb_count<Robot>()"
}

// emitTemplateInner writes the group-cooperative inner of a template entry, the template in GroupScope, and
// the sizes and placements of its cross-body state (the scratch, whose size the generator knows and the
// compiler checks): the inner's placement parameter keeps its scratch (or the split-off region of it) in
// s_temp (shared memory) or in d_workspace (global memory), the resource tiers (grid/launch.cuh) pick one per
// precision.
func emitTemplateInner(w *writer, e *entry) {
	up, pre, param := e.upper(), e.sizing(), e.placementParam()
	moved := e.spilled()
	w.line("constexpr int %s_INNER_TEMP = %d;", pre, e.temp)
	w.line("static_assert(sizeof(%s) == %s_INNER_TEMP * sizeof(float), \"%s scratch size\");", e.sharedType("float"), pre, e.name)
	if sp := e.placement.split; sp != nil {
		w.line("static_assert(sizeof(algorithms::%s<Robot, float>) == (%s_INNER_TEMP - %d) * sizeof(float), \"%s scratch split\");",
			sp.bodies, pre, moved, e.name)
	}
	what := "its scratch"
	if e.placement.split != nil {
		what = fmt.Sprintf("its scratch (%d of its %d elements move with %s)", moved, e.temp, param)
	}
	w.line("/// Bytes of shared memory (s_temp) and of global memory (d_workspace) %s_inner<T, %s> needs per", e.name, param)
	w.line("/// sample group for %s.", what)
	w.line("template <typename T, bool %s = true>", param)
	w.line("GLASS_HD constexpr size_t %s_INNER_SMEM_BYTES() { return size_t(%s ? %s_INNER_TEMP : %d) * sizeof(T); }", pre, param, pre, e.temp-moved)
	w.line("template <typename T, bool %s = true>", param)
	w.line("GLASS_HD constexpr size_t %s_INNER_WORKSPACE_BYTES() { return %s ? 0 : size_t(%d) * sizeof(T); }", pre, param, moved)
	w.line("/// The spill level resource tier TIER resolves to for this robot (grid/launch.cuh): 0 keeps %s_device's", e.name)
	moves := "the scratch"
	if e.placement.split != nil {
		moves = "the inner's " + param + " region"
	}
	w.line("/// buffers and the scratch in shared memory, 1 moves %s to d_workspace, 2 also writes the outputs", moves)
	w.line("/// straight to global memory. TIER_SHARED is level 0, TIER_MINIMAL level 2, TIER_LITE the first that fits")
	w.line("/// TIER_LITE_SMEM_BYTES.")
	w.line("template <typename T, int TIER>")
	w.line("GLASS_HD constexpr int %s_SPILL_LEVEL() {", up)
	w.line("    static_assert(valid_tier(TIER), \"TIER is TIER_SHARED, TIER_LITE or TIER_MINIMAL\");")
	w.line("    return spill_level(TIER, size_t(%d) * sizeof(T), size_t(%d) * sizeof(T));", e.smem(), e.smem()-moved)
	w.line("}")
	w.line("/// The inner's %s at TIER: true at spill level 0.", param)
	w.line("template <typename T, int TIER>")
	w.line("GLASS_HD constexpr bool %s() { return %s_SPILL_LEVEL<T, TIER>() == 0; }", e.placementConst(), up)
	if e.globalOutputs {
		w.line("/// Whether %s_device stages the outputs in shared memory at TIER: never, they are too large for it.", e.name)
		w.line("template <typename T, int TIER>")
		w.line("GLASS_HD constexpr bool %s_OUTPUTS_IN_SMEM() { return false; }", up)
	} else {
		w.line("/// Whether %s_device stages the outputs in shared memory at TIER (spill level below 2).", e.name)
		w.line("template <typename T, int TIER>")
		w.line("GLASS_HD constexpr bool %s_OUTPUTS_IN_SMEM() { return %s_SPILL_LEVEL<T, TIER>() < 2; }", up, up)
	}
	sdecl, scall := e.bufferParams("s_")
	pdecl, pcall := e.params()
	w.line("template <typename T, bool %s = true>", param)
	w.block(fmt.Sprintf("GLASS_DEVICE void %s_inner(%s)", e.name, strings.Join(append(append(sdecl, "T* s_temp", "T* d_workspace"), pdecl...), ", ")), func() {
		args := append([]string{"GroupScope{}"}, scall...)
		if sp := e.placement.split; sp != nil {
			w.line("T* region = %s ? s_temp + %d : d_workspace;", param, e.temp-moved)
			args = append(args, fmt.Sprintf("*reinterpret_cast<algorithms::%s<Robot, T>*>(s_temp)", sp.bodies),
				fmt.Sprintf("reinterpret_cast<%s*>(region)", sp.region))
		} else {
			w.line("T* temp = %s ? s_temp : d_workspace;", param)
			args = append(args, fmt.Sprintf("*reinterpret_cast<%s*>(temp)", e.sharedType("T")))
		}
		w.line("algorithms::%s<Robot>(%s);", e.algorithm, strings.Join(append(args, pcall...), ", "))
	})
	w.blank()
}

// emitThread writes `<name>_thread`: one sample by the calling thread alone, inputs copied into local
// arrays and every cross-body value in registers.
func emitThread(w *writer, e *entry) {
	bdecl, _ := e.bufferParams("")
	pdecl, pcall := e.params()
	w.line("/// %s", e.doc)
	w.line("/// One sample by the calling thread alone (thread scope): no shared memory and no barriers; the state")
	w.line("/// stays in registers. Pointers may be global, local or shared memory; outputs must not alias inputs.")
	e.bufferDocs(w, "", "")
	w.line("template <typename T>")
	w.block(fmt.Sprintf("GLASS_HD void %s_thread(%s)", e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
		var args []string
		for _, b := range e.outputs {
			if e.directOutputs {
				args = append(args, b.name)
				continue
			}
			w.line("T l_%s[%d];", b.name, b.size)
			args = append(args, "l_"+b.name)
		}
		for _, b := range e.inputs {
			w.line("T l_%s[%d];", b.name, b.size)
			w.line("for (int k = 0; k < %d; ++k) l_%s[k] = %s[k];", b.size, b.name, b.name)
			args = append(args, "l_"+b.name)
		}
		w.line("%s state;", e.sharedType("T"))
		args = append([]string{"ThreadScope{}"}, append(args, "state")...)
		w.line("algorithms::%s<Robot>(%s);", e.algorithm, strings.Join(append(args, pcall...), ", "))
		for _, b := range e.outputs {
			if !e.directOutputs {
				w.line("for (int k = 0; k < %d; ++k) %s[k] = l_%s[k];", b.size, b.name, b.name)
			}
		}
	})
	w.blank()
}

// emitSampleLocals writes local arrays for sample k's inputs, copied from global memory, and for its outputs
// but those placed elsewhere (placed, when not nil, returns such an output's argument, "" for a local array),
// and returns them as the template's buffer arguments.
func (e *entry) emitSampleLocals(w *writer, placed func(buffer) string) []string {
	var args []string
	for _, b := range e.outputs {
		if placed != nil {
			if arg := placed(b); arg != "" {
				args = append(args, arg)
				continue
			}
		}
		w.line("T l_%s[%d];", b.name, b.size)
		args = append(args, "l_"+b.name)
	}
	for _, b := range e.inputs {
		w.line("T l_%s[%d];", b.name, b.size)
		w.line("for (int j = 0; j < %d; ++j) l_%s[j] = d_%s[size_t(k) * %d + j];", b.size, b.name, b.name, b.size)
		args = append(args, "l_"+b.name)
	}
	return args
}

// limbStaged reports whether the limb kernel stages output b in shared memory (after the state) and the block
// copies it out at the end: a matrix whose elements the limbs write wherever their rows and columns fall, not
// a vector over the velocity coordinates whose entries each limb stores for its own joints.
func (e *entry) limbStaged(b buffer) bool { return !e.directOutputs && len(b.shape) > 1 }

// limbStagedElements is the limb kernel's staged outputs' size, in elements.
func (e *entry) limbStagedElements() int {
	n := 0
	for _, b := range e.outputs {
		if e.limbStaged(b) {
			n += b.size
		}
	}
	return n
}

// limbStageBase is the C++ expression of the staged outputs' byte offset: the shared state's size (the C++
// expression stateSize) rounded up to 16 bytes.
func limbStageBase(stateSize string) string { return fmt.Sprintf("(%s + 15) / 16 * 16", stateSize) }

// limbSmem is the C++ expression of the limb kernel's dynamic shared memory in bytes: the shared state, then
// the staged outputs (limbStageBase).
func (e *entry) limbSmem() string {
	state := fmt.Sprintf("sizeof(%s)", e.limbStateType("T"))
	if n := e.limbStagedElements(); n > 0 {
		return fmt.Sprintf("%s + %d * sizeof(T)", limbStageBase(state), n)
	}
	return state
}

// emitLimbsKernel writes `<name>_limbs_kernel` (entry.limbs): warp L runs limb L of block k's sample on its own
// copies of the inputs, the template in LimbScope<L> with the cross-limb state in shared memory, and stores its
// joints' entries of vector outputs (directOutputs: the template stores each element in global memory itself;
// matrices: staged in shared memory, limbStaged, and copied out by the block).
func emitLimbsKernel(w *writer, e *entry) {
	bdecl, _ := e.bufferParams("d_")
	pdecl, pcall := e.params()
	w.line("/// %s", e.doc)
	w.line("/// Batched kernel for batches where one sample's latency counts (LIMBS_LAUNCH_SHAPE): block k runs sample k,")
	if e.limbTeams > 1 {
		w.line("/// warp t·NL + L of its %s warps (NL = limb_count<Robot>()) runs limb L of the tree for", e.limbWarps())
		w.line("/// team t (grid/schedule.cuh, LimbScope), with")
	} else {
		w.line("/// warp L of its limb_count<Robot>() warps limb L of the tree (grid/schedule.cuh, LimbScope), with")
	}
	if n := e.limbStagedElements(); n > 0 {
		w.line("/// the state the limbs share (sizeof(%s)) and the outputs (%d elements, from", e.limbStateType("T"), n)
		w.line("/// a 16-byte boundary) in dynamic shared memory.")
	} else {
		w.line("/// sizeof(%s) bytes of dynamic shared memory for the state the limbs share.", e.limbStateType("T"))
	}
	w.line("template <typename T>")
	w.block(fmt.Sprintf("__global__ void __launch_bounds__(32 * %s) %s_limbs_kernel(%s, int num_samples)", e.limbWarps(), e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
		w.line("extern __shared__ __align__(16) unsigned char grid_smem[];")
		w.line("auto& st = *reinterpret_cast<%s*>(grid_smem);", e.limbStateType("T"))
		offset := 0
		for _, b := range e.outputs {
			if e.limbStaged(b) {
				w.line("T* const s_%s = reinterpret_cast<T*>(grid_smem + %s) + %d;", b.name, limbStageBase("sizeof(st)"), offset)
				offset += b.size
			}
		}
		w.line("const int k = int(blockIdx.x);")
		w.line("if (k >= num_samples) return;")
		placed := func(b buffer) string {
			switch {
			case e.directOutputs:
				return fmt.Sprintf("d_%s + size_t(k) * %d", b.name, b.size)
			case e.limbStaged(b):
				return "s_" + b.name
			}
			return ""
		}
		run := "run_limbs<Robot>"
		if e.limbTeams > 1 {
			run = fmt.Sprintf("run_limbs<Robot, %d>", e.limbTeams)
		}
		w.block(run+"([&](auto scope)", func() {
			w.comment("the limb's code reads its own joints' entries of the inputs; the compiler drops the others")
			args := append([]string{"scope"}, e.emitSampleLocals(w, placed)...)
			w.line("algorithms::%s<Robot>(%s);", e.algorithm, strings.Join(append(append(args, "st"), pcall...), ", "))
			var vectors []buffer
			for _, b := range e.outputs {
				if placed(b) == "" {
					vectors = append(vectors, b)
				}
			}
			if len(vectors) == 0 {
				return
			}
			w.block("if (scope.runs())", func() {
				for _, b := range vectors {
					w.line("copy_limb_velocities<Robot, decltype(scope)::limb>(d_%s + size_t(k) * %d, l_%s);", b.name, b.size, b.name)
				}
			})
		}, ");")
		if e.limbStagedElements() > 0 {
			w.comment("every warp has passed the limbs' barriers alike: one more and the staged outputs are complete")
			w.line("__syncthreads();")
			for _, b := range e.outputs {
				if e.limbStaged(b) {
					w.line("for (int j = int(threadIdx.x); j < %d; j += int(blockDim.x)) d_%s[size_t(k) * %d + j] = s_%s[j];", b.size, b.name, b.size, b.name)
				}
			}
		}
	})
	w.blank()
}

// emitLimbsLaunch writes the part of `<name>_launch` that launches the limb kernel at LIMBS_LAUNCH_SHAPE.
func (e *entry) emitLimbsLaunch(w *writer, pcall []string) {
	_, dcall := e.bufferParams("d_")
	w.block("if (is_limbs_shape(shape))", func() {
		w.line("const size_t smem = %s;", e.limbSmem())
		w.line("constexpr unsigned limb_threads = 32u * unsigned(%s);  // a compile-time count", e.limbWarps())
		kernelLaunch{
			rtcName: e.limbsKernel(), kernel: e.name + "_limbs_kernel<T>",
			grid: "static_cast<unsigned>(num_samples)", block: "limb_threads", smem: "smem",
			args: strings.Join(append(append(dcall, pcall...), "num_samples"), ", "),
		}.emit(w)
	})
}

// kernelLaunch is a launch of one of a launch function's kernels that needs no workspace (the one-thread and
// limb kernels): its dynamic shared-memory limit raised, then launched through NVRTC (GRID_RTC_HOST) or nvcc.
type kernelLaunch struct {
	rtcName string // the name expression NVRTC compiled (metadata's kernels)
	kernel  string // the kernel as nvcc names it, <T> included
	grid    string // expressions of the grid, block and dynamic shared memory
	block   string
	smem    string
	args    string
}

func (k kernelLaunch) emit(w *writer) {
	w.line("#if defined(GRID_RTC_HOST)")
	w.line("static rtc::Kernel kernel(rtc::instance<T>(\"%s\"));", k.rtcName)
	w.line("const cudaError_t err = rtc::set_smem_limit(kernel, %s);", k.smem)
	w.line("if (err != cudaSuccess) return err;")
	w.line("return rtc::launch(kernel, dim3(%s), dim3(%s), %s, stream, %s);", k.grid, k.block, k.smem, k.args)
	w.line("#else")
	w.line("const cudaError_t err = set_smem_limit<%s>(%s);", k.kernel, k.smem)
	w.line("if (err != cudaSuccess) return err;")
	w.line("%s<<<%s, %s, %s, stream>>>(%s);", k.kernel, k.grid, k.block, k.smem, k.args)
	w.line("return cudaGetLastError();")
	w.line("#endif")
}

func (e *entry) upper() string { return strings.ToUpper(e.name) }

// rowOrder is the order in which a template reports its outputs' rows final (entry.finalRows).
type rowOrder int

const (
	rowsAtEnd     rowOrder = iota // not reported: the kernel stores the outputs once the sample is done
	rowsLastFirst                 // the last rows first (the mass matrix, ∇ID: WarpStores::store_final_rows)
	rowsInOrder                   // the first rows first (frame poses: WarpStores::store_final_leading_rows)
)

// store names the WarpStores method that stores the rows reported final in this order.
func (o rowOrder) store() string {
	if o == rowsInOrder {
		return "store_final_leading_rows"
	}
	return "store_final_rows"
}

// emitFinalRowsLoop writes the sample loop of a finalRows entry's one-sample-per-thread kernel: the template
// runs in the kernel itself, and its rows_final callback stores the runs of each output that became final.
func (e *entry) emitFinalRowsLoop(w *writer, pcall []string) {
	w.block("for (int base = stores.warp_base(); base < num_samples; base += step)", func() {
		w.line("// every lane runs a sample (past the batch's end the last one again): the whole warp takes part in each store")
		w.line("const int k = min(base + stores.lane, num_samples - 1);")
		args := append([]string{"ThreadScope{}"}, e.emitSampleLocals(w, nil)...)
		w.line("%s state;", e.sharedType("T"))
		args = append(append(args, "state"), pcall...)
		w.block(fmt.Sprintf("algorithms::%s<Robot>(%s, [&](auto first, auto end)", e.algorithm, strings.Join(args, ", ")), func() {
			for _, out := range e.outputs {
				rows := out.shape[0]
				w.line("stores.template %s<%d, %d, index_of<decltype(first)>, index_of<decltype(end)>, !rolled_v<Robot>>(d_%s + size_t(base) * %d, l_%s, num_samples - base);",
					e.finalRows.store(), rows, out.size/rows, out.name, out.size, out.name)
			}
		}, ");")
	})
}

// warpStores reports whether the entry's one-sample-per-thread kernel stages its outputs for coalesced
// stores (WarpStores): every template entry but those whose NV³ outputs go straight to global memory.
func (e *entry) warpStores() bool { return e.algorithm != "" && !e.globalOutputs }

// smem is the per-sample shared memory of _device and _kernel at spill level 0, in elements.
func (e *entry) smem() int { return e.inputSize() + e.stagedOutputSize() + e.temp }

// bufferSize is the elements of some buffers.
func bufferSize(bs []buffer) int {
	n := 0
	for _, b := range bs {
		n += b.size
	}
	return n
}

// inputSize is the elements of the inputs, which _device stages in shared memory at every spill level.
func (e *entry) inputSize() int { return bufferSize(e.inputs) }

// stagedOutputSize is the elements of the outputs _device stages in shared memory below spill level 2 (none
// where the inner writes them to global memory).
func (e *entry) stagedOutputSize() int {
	if e.globalOutputs {
		return 0
	}
	return bufferSize(e.outputs)
}

// params lists the by-value parameters after the buffers (gravity, frame), with and without types.
func (e *entry) params() (decl, call []string) {
	if e.frame {
		decl, call = append(decl, "int frame"), append(call, "frame")
	}
	if e.method {
		decl, call = append(decl, "int method"), append(call, "method")
	}
	if e.gravity {
		decl, call = append(decl, "Vec3<T> gravity"), append(call, "gravity")
	}
	return decl, call
}

// bufferParams lists the buffers as parameters with the given prefix (d_, h_ or s_).
func (e *entry) bufferParams(prefix string) (decl, call []string) {
	for _, b := range e.outputs {
		decl = append(decl, fmt.Sprintf("T* %s%s", prefix, b.name))
		call = append(call, prefix+b.name)
	}
	for _, b := range e.inputs {
		decl = append(decl, fmt.Sprintf("const T* %s%s", prefix, b.name))
		call = append(call, prefix+b.name)
	}
	return decl, call
}

func (e *entry) bufferDocs(w *writer, prefix, per string) {
	for _, b := range e.outputs {
		w.line("///   %s%s  out: %s [%s%s]", prefix, b.name, b.doc, per, shapeString(b))
	}
	for _, b := range e.inputs {
		w.line("///   %s%s  in:  %s [%s%s]", prefix, b.name, b.doc, per, shapeString(b))
	}
	if e.frame {
		w.line("///   frame  in:  frame index, 0 <= frame < NF (see the metadata's frame names)")
	}
	if e.method {
		w.line("///   method in:  0 semi-implicit Euler, 1 classical RK4")
	}
	if e.gravity {
		w.line("///   gravity in: linear gravitational acceleration in world coordinates")
	}
}

func shapeString(b buffer) string {
	if len(b.shape) == 0 {
		return fmt.Sprint(b.size)
	}
	s := make([]string, len(b.shape))
	for i, d := range b.shape {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, ", ")
}

// emitLadder writes the sizing constants, the launch configuration and the entry points above the inner.
func emitLadder(w *writer, e *entry, opt Options) {
	up := e.upper()
	bdecl, _ := e.bufferParams("d_")
	pdecl, pcall := e.params()
	_, scall := e.bufferParams("s_")

	w.line("/// Shared and global memory, in bytes, that %s_device<T, TIER> needs per sample group (s_mem, d_workspace);", e.name)
	w.line("/// %s_kernel runs at TIER_SHARED.", e.name)
	w.line("template <typename T, int TIER = TIER_SHARED> GLASS_HD constexpr size_t %s_DEVICE_SMEM_BYTES() {", up)
	w.line("    return (size_t(%d) + (%s_OUTPUTS_IN_SMEM<T, TIER>() ? size_t(%d) : 0)) * sizeof(T) +", e.inputSize(), up, e.stagedOutputSize())
	w.line("           %s_INNER_SMEM_BYTES<T, %s<T, TIER>()>();", e.sizing(), e.placementConst())
	w.line("}")
	w.line("template <typename T, int TIER = TIER_SHARED> GLASS_HD constexpr size_t %s_DEVICE_WORKSPACE_BYTES() {", up)
	w.line("    return %s_INNER_WORKSPACE_BYTES<T, %s<T, TIER>()>();", e.sizing(), e.placementConst())
	w.line("}")
	w.line("/// Dynamic shared memory, in bytes, of a %s_kernel<T, TIER> block of the given shape.", e.name)
	w.line("template <typename T, int TIER = TIER_SHARED> constexpr size_t %s_LAUNCH_SMEM_BYTES(LaunchShape shape) {", up)
	w.line("    return size_t(shape.samples_per_block) * sample_stride(%s_DEVICE_SMEM_BYTES<T, TIER>() / sizeof(T)) * sizeof(T);", up)
	w.line("}")
	w.blank()
	emitLaunchConfig(w, e, opt)

	if e.algorithm != "" {
		emitThread(w, e)
	}

	// _device: one sample, global memory in and out, caller-provided shared memory.
	w.line("/// %s", e.doc)
	if e.globalOutputs {
		w.line("/// One sample, group-cooperative: copies the inputs from global memory into s_mem and runs the inner,")
		w.line("/// which writes the outputs straight to global memory. s_mem holds %s_DEVICE_SMEM_BYTES<T>() bytes", up)
		w.line("/// of shared memory.")
	} else {
		w.line("/// One sample, group-cooperative: copies the inputs from global memory into s_mem, runs the inner and")
		w.line("/// copies the outputs back. s_mem holds %s_DEVICE_SMEM_BYTES<T>() bytes of shared memory.", up)
	}
	e.bufferDocs(w, "d_", "")
	w.line("/// At resource tier TIER the inner's scratch is in s_mem or in d_workspace (%s_DEVICE_WORKSPACE_BYTES<T, TIER>()", up)
	if e.globalOutputs {
		w.line("/// bytes of global memory for this sample group alone; unused, and may be null, where that is 0).")
	} else {
		w.line("/// bytes of global memory for this sample group alone; unused, and may be null, where that is 0), and at spill")
		w.line("/// level 2 the inner writes the outputs straight to global memory.")
	}
	w.line("template <typename T, int TIER = TIER_SHARED>")
	w.block(fmt.Sprintf("GLASS_DEVICE void %s_device(%s, T* s_mem, T* d_workspace = nullptr)", e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
		w.line("static_assert(TIER != TIER_LITE || %s_DEVICE_SMEM_BYTES<T, TIER>() <= TIER_LITE_SMEM_BYTES,", up)
		w.line("              \"no spill level of %s fits TIER_LITE_SMEM_BYTES for this robot\");", e.name)
		off := 0
		for _, b := range e.inputs {
			w.line("T* s_%s = s_mem + %d;", b.name, off)
			off += b.size
		}
		if e.globalOutputs {
			for _, b := range e.outputs {
				w.line("T* s_%s = d_%s;", b.name, b.name)
			}
			w.line("T* s_temp = s_mem + %d;", off)
		} else {
			w.line("constexpr bool outputs_in_smem = %s_OUTPUTS_IN_SMEM<T, TIER>();", up)
			for _, b := range e.outputs {
				w.line("T* s_%s = outputs_in_smem ? s_mem + %d : d_%s;", b.name, off, b.name)
				off += b.size
			}
			w.line("T* s_temp = s_mem + (outputs_in_smem ? %d : %d);", off, e.inputSize())
		}
		for _, b := range e.inputs {
			w.line("block_copy(s_%s, d_%s, %d);", b.name, b.name, b.size)
		}
		w.sync()
		w.line("%s_inner<T, %s<T, TIER>()>(%s);", e.name, e.placementConst(), strings.Join(append(append(scall, "s_temp", "d_workspace"), pcall...), ", "))
		w.sync()
		if !e.globalOutputs {
			w.block("if constexpr (outputs_in_smem)", func() {
				for _, b := range e.outputs {
					w.line("block_copy(d_%s, s_%s, %d);", b.name, b.name, b.size)
				}
			})
		}
		w.comment("s_mem is reused by the caller's next sample")
		w.sync()
	})
	w.blank()

	// per-sample strides for the batched forms
	offsets := func(prefix string, index string) []string {
		var out []string
		for _, b := range e.outputs {
			out = append(out, fmt.Sprintf("%s%s + size_t(%s) * %d", prefix, b.name, index, b.size))
		}
		for _, b := range e.inputs {
			out = append(out, fmt.Sprintf("%s%s + size_t(%s) * %d", prefix, b.name, index, b.size))
		}
		return out
	}

	w.line("#if defined(__CUDACC__) || defined(GRID_RTC_HOST)")
	w.line("/// Global workspace, in bytes, of a %s_kernel<T, TIER> launch over num_samples samples at the given shape", e.name)
	w.line("/// (launch_blocks blocks): one slice per sample group of the grid, none where the tier keeps the scratch in")
	w.line("/// shared memory.")
	w.line("template <typename T, int TIER = TIER_SHARED>")
	w.line("inline size_t %s_LAUNCH_WORKSPACE_BYTES(int num_samples, LaunchShape shape) {", up)
	w.line("    return size_t(launch_blocks(num_samples, shape.samples_per_block)) * size_t(shape.samples_per_block) *")
	w.line("           %s_DEVICE_WORKSPACE_BYTES<T, TIER>();", up)
	w.line("}")
	w.line("/// Global workspace, in bytes, of a launch over num_samples samples at the baked tier and shape")
	w.line("/// (launch_cfg<GRID_ALGO_%s, T>): none where that shape is one thread per sample.", up)
	w.line("template <typename T>")
	w.block(fmt.Sprintf("inline size_t %s_BAKED_WORKSPACE_BYTES(int num_samples)", up), func() {
		w.line("const LaunchShape shape = %s_LAUNCH_SHAPE<T>(num_samples);", up)
		w.line("if (num_samples <= 0 || shape.threads_per_sample == 1) return 0;")
		w.line("return %s_LAUNCH_WORKSPACE_BYTES<T, launch_cfg<GRID_ALGO_%s, T>::TIER>(num_samples, shape);", up, up)
	})
	w.blank()
	w.line("#if defined(__CUDACC__)  // the kernels; a GRID_RTC_HOST build launches NVRTC's by name")
	w.line("/// %s", e.doc)
	w.line("/// Batched kernel over num_samples samples stored contiguously: the blockDim.x threads of each sample group")
	w.line("/// (threadIdx.y) run one sample at a time, groups stride over the batch. Needs blockDim.y slices of")
	w.line("/// %s_LAUNCH_SMEM_BYTES<T, TIER>(shape) bytes of dynamic shared memory and at most", up)
	w.line("/// tier_max_threads(TIER, %s_MAX_THREADS<T>()) threads; at a tier whose scratch is not in shared memory,", up)
	w.line("/// d_workspace holds %s_LAUNCH_WORKSPACE_BYTES<T, TIER>(num_samples, shape) bytes (one slice per group).", up)
	w.line("template <typename T, int TIER = TIER_SHARED>")
	w.block(fmt.Sprintf("__global__ void __launch_bounds__(tier_max_threads(TIER, %s_MAX_THREADS<T>())) %s_kernel(%s, int num_samples, T* d_workspace = nullptr)", up, e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
		w.line("extern __shared__ __align__(16) unsigned char grid_smem[];")
		w.line("const int group = int(blockIdx.x * blockDim.y + threadIdx.y);")
		w.line("T* s_mem = reinterpret_cast<T*>(grid_smem) + threadIdx.y * sample_stride(%s_DEVICE_SMEM_BYTES<T, TIER>() / sizeof(T));", up)
		w.line("T* ws = d_workspace ? d_workspace + size_t(group) * (%s_DEVICE_WORKSPACE_BYTES<T, TIER>() / sizeof(T)) : nullptr;", up)
		w.line("const int step = int(gridDim.x * blockDim.y);")
		w.block("for (int k = group; k < num_samples; k += step)", func() {
			w.line("%s_device<T, TIER>(%s, s_mem, ws);", e.name, strings.Join(append(offsets("d_", "k"), pcall...), ", "))
		})
	})
	w.blank()
	if e.algorithm != "" {
		w.line("/// %s", e.doc)
		w.line("/// Batched kernel, one sample per thread (%s_thread): a 1-D block of any size.", e.name)
		if e.warpStores() {
			w.line("/// Each warp stores its samples' outputs coalesced through thread_store_smem_bytes<T>(blockDim.x) bytes")
			w.line("/// of dynamic shared memory (grid/launch.cuh, WarpStores).")
		}
		w.line("template <typename T>")
		w.block(fmt.Sprintf("__global__ void __launch_bounds__(%s_MAX_THREADS<T>()) %s_thread_kernel(%s, int num_samples)", up, e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
			direct := func() {
				w.line("const int step = int(gridDim.x * blockDim.x);")
				w.block("for (int k = int(blockIdx.x * blockDim.x + threadIdx.x); k < num_samples; k += step)", func() {
					w.line("%s_thread<T>(%s);", e.name, strings.Join(append(offsets("d_", "k"), pcall...), ", "))
				})
			}
			if !e.warpStores() {
				direct()
				return
			}
			w.line("#if defined(GRID_DIRECT_THREAD_STORES)")
			direct()
			w.line("#else")
			w.line("extern __shared__ __align__(16) unsigned char grid_smem[];")
			w.line("const WarpStores<T> stores(grid_smem);")
			w.line("const int step = int(gridDim.x * blockDim.x);")
			atEnd := func() {
				w.block("for (int base = stores.warp_base(); base < num_samples; base += step)", func() {
					w.line("const int k = base + stores.lane;")
					var args []string
					for _, b := range e.outputs {
						w.line("T l_%s[%d];", b.name, b.size)
						args = append(args, "l_"+b.name)
					}
					for _, b := range e.inputs {
						args = append(args, fmt.Sprintf("d_%s + size_t(k) * %d", b.name, b.size))
					}
					w.line("if (k < num_samples) %s_thread<T>(%s);", e.name, strings.Join(append(args, pcall...), ", "))
					for _, b := range e.outputs {
						w.line("stores.template store<%d, !rolled_v<Robot>>(d_%s + size_t(base) * %d, l_%s, num_samples - base);", b.size, b.name, b.size, b.name)
					}
				})
			}
			if e.finalRows != rowsAtEnd {
				// GRID_THREAD_STORES_AT_END keeps the generic kernel, for comparison
				w.line("#if defined(GRID_THREAD_STORES_AT_END)")
				atEnd()
				w.line("#else")
				e.emitFinalRowsLoop(w, pcall)
				w.line("#endif")
			} else {
				atEnd()
			}
			w.line("#endif")
		})
		w.blank()
	}
	if e.limbs {
		emitLimbsKernel(w, e)
	}
	w.line("#endif  // __CUDACC__")
	w.line("#if defined(GRID_CUDA_HOST)")
	w.line("/// Launches %s_kernel<T, TIER> on stream for num_samples samples in device memory; never synchronises.", e.name)
	w.line("/// shape defaults to %s_LAUNCH_SHAPE<T>(num_samples); cudaErrorInvalidValue if it is not a valid shape", up)
	w.line("/// within tier_max_threads(TIER, %s_MAX_THREADS<T>()) threads (see valid_launch_shape). A sample group", up)
	w.line("/// at a tier above spill level 0 needs d_workspace of %s_LAUNCH_WORKSPACE_BYTES<T, TIER>(num_samples,", up)
	w.line("/// shape) bytes (cudaErrorInvalidValue without it); one thread per sample needs none at any tier.")
	if e.limbs {
		w.line("/// LIMBS_LAUNCH_SHAPE launches %s_limbs_kernel: a block per sample, a warp per limb of the tree.", e.name)
	}
	w.line("template <typename T, int TIER = TIER_SHARED>")
	w.block(fmt.Sprintf("cudaError_t %s_launch(%s, int num_samples, cudaStream_t stream, LaunchShape shape = BAKED_LAUNCH_SHAPE, T* d_workspace = nullptr)",
		e.name, strings.Join(append(bdecl, pdecl...), ", ")), func() {
		w.line("if (num_samples <= 0) return cudaSuccess;")
		w.line("if (shape.threads_per_sample == 0) shape = %s_LAUNCH_SHAPE<T>(num_samples);", up)
		if e.limbs {
			e.emitLimbsLaunch(w, pcall)
		}
		w.line("if (!valid_launch_shape(shape, tier_max_threads(TIER, %s_MAX_THREADS<T>()))) return cudaErrorInvalidValue;", up)
		w.line("if (shape.samples_per_block > num_samples) shape.samples_per_block = num_samples;")
		_, dcall0 := e.bufferParams("d_")
		if e.algorithm != "" {
			w.block("if (shape.threads_per_sample == 1)", func() {
				if e.phasedThreadLaunch != nil {
					e.phasedThreadLaunch(w)
					return
				}
				if e.warpStores() {
					w.line("const size_t thread_smem = thread_store_smem_bytes<T>(shape.samples_per_block);")
				} else {
					w.line("const size_t thread_smem = 0;")
				}
				kernelLaunch{
					rtcName: e.threadKernel(), kernel: e.name + "_thread_kernel<T>",
					grid: "launch_blocks(num_samples, shape.samples_per_block)", block: "unsigned(shape.samples_per_block)",
					smem: "thread_smem", args: strings.Join(append(append(dcall0, pcall...), "num_samples"), ", "),
				}.emit(w)
			})
		}
		w.line("if (%s_DEVICE_WORKSPACE_BYTES<T, TIER>() > 0 && d_workspace == nullptr) return cudaErrorInvalidValue;", up)
		w.line("const size_t smem = %s_LAUNCH_SMEM_BYTES<T, TIER>(shape);", up)
		w.line("#if defined(GRID_RTC_HOST)")
		w.line("static rtc::Kernel kernel(rtc::instance<T, TIER>(\"%s\"));", e.groupKernel())
		w.line("cudaError_t err = rtc::set_smem_limit(kernel, smem);")
		w.line("#else")
		w.line("cudaError_t err = set_smem_limit<%s_kernel<T, TIER>>(smem);", e.name)
		w.line("#endif")
		w.line("if (err == cudaSuccess && %s_DEVICE_WORKSPACE_BYTES<T, TIER>() > 0)", up)
		w.line("    err = persist_workspace(stream, d_workspace, %s_LAUNCH_WORKSPACE_BYTES<T, TIER>(num_samples, shape));", up)
		w.line("if (err != cudaSuccess) return err;")
		w.line("const dim3 block(unsigned(shape.threads_per_sample), unsigned(shape.samples_per_block));")
		_, dcall := e.bufferParams("d_")
		args := strings.Join(append(append(dcall, pcall...), "num_samples", "d_workspace"), ", ")
		w.line("#if defined(GRID_RTC_HOST)")
		w.line("return rtc::launch(kernel, dim3(launch_blocks(num_samples, shape.samples_per_block)), block, smem, stream, %s);", args)
		w.line("#else")
		w.line("%s_kernel<T, TIER><<<launch_blocks(num_samples, shape.samples_per_block), block, smem, stream>>>(%s);", e.name, args)
		w.line("return cudaGetLastError();")
		w.line("#endif")
	})
	w.blank()
	w.line("/// Raises %s_kernel's dynamic shared-memory limit for its default launch shape on the current device", e.name)
	w.line("/// (once per device); %s_launch does the same for the shape it is given.", e.name)
	w.line("template <typename T>")
	w.block(fmt.Sprintf("cudaError_t %s_configure()", e.name), func() {
		w.line("#if defined(GRID_RTC_HOST)")
		w.line("static rtc::Kernel kernel(rtc::instance<T, TIER_SHARED>(\"%s\"));", e.groupKernel())
		w.line("return rtc::set_smem_limit(kernel, %s_DEVICE_SMEM_BYTES<T>());", up)
		w.line("#else")
		w.line("return set_smem_limit<%s_kernel<T>>(%s_DEVICE_SMEM_BYTES<T>());", e.name, up)
		w.line("#endif")
	})
	e.emitSeparateInstantiation(w, append(bdecl, pdecl...), opt)
	w.line("#endif  // GRID_CUDA_HOST")
	w.line("#endif")
	w.blank()

	// host wrapper: same signature in both builds; NVRTC compiles none.
	w.line("#if !defined(__CUDACC_RTC__)")
	hdecl, _ := e.bufferParams("h_")
	w.line("/// %s", e.doc)
	w.line("/// Host wrapper for num_samples samples in host memory. The CUDA build copies to the device, launches")
	w.line("/// and copies back (synchronous); the host build runs the same inner serially.")
	e.bufferDocs(w, "h_", "num_samples, ")
	w.line("template <typename T>")
	w.block(fmt.Sprintf("Status %s(%s, int num_samples)", e.name, strings.Join(append(hdecl, pdecl...), ", ")), func() {
		w.line("#if defined(__CUDACC__)")
		w.line("DeviceBuffers<T> buf;")
		var dptrs []string
		for _, b := range e.outputs {
			w.line("T* d_%s = buf.alloc(size_t(num_samples) * %d);", b.name, b.size)
			dptrs = append(dptrs, "d_"+b.name)
		}
		for _, b := range e.inputs {
			w.line("T* d_%s = buf.upload(h_%s, size_t(num_samples) * %d);", b.name, b.name, b.size)
			dptrs = append(dptrs, "d_"+b.name)
		}
		w.line("if (buf.failed()) return buf.status();")
		w.line("cudaError_t err = %s_launch<T>(%s, num_samples, 0);", e.name, strings.Join(append(dptrs, pcall...), ", "))
		w.line("if (err == cudaSuccess) err = cudaDeviceSynchronize();")
		for _, b := range e.outputs {
			w.line("if (err == cudaSuccess) err = cudaMemcpy(h_%s, d_%s, size_t(num_samples) * %d * sizeof(T), cudaMemcpyDeviceToHost);", b.name, b.name, b.size)
		}
		w.line("return Status::from(err);")
		w.line("#else")
		if e.algorithm != "" && e.heapState {
			w.line("std::unique_ptr<%s> state(new %s);", e.sharedType("T"), e.sharedType("T"))
			w.block("for (int k = 0; k < num_samples; ++k)", func() {
				args := append([]string{"ThreadScope{}"}, offsets("h_", "k")...)
				args = append(append(args, "*state"), pcall...)
				w.line("algorithms::%s<Robot>(%s);", e.algorithm, strings.Join(args, ", "))
			})
		} else if e.algorithm != "" {
			w.block("for (int k = 0; k < num_samples; ++k)", func() {
				w.line("%s_thread<T>(%s);", e.name, strings.Join(append(offsets("h_", "k"), pcall...), ", "))
			})
		} else {
			w.line("std::vector<T> s_mem(%d);", max(e.smem(), 1))
			w.block("for (int k = 0; k < num_samples; ++k)", func() {
				w.line("%s_device<T>(%s, s_mem.data());", e.name, strings.Join(append(offsets("h_", "k"), pcall...), ", "))
			})
		}
		w.line("return Status::ok();")
		w.line("#endif")
	})
	e.emitSeparateHostInstantiation(w, append(hdecl, pdecl...))
	w.line("#endif")
	w.blank()
}

// emitSeparateHostInstantiation is emitSeparateInstantiation for the host build's wrapper: with
// GRID_SEPARATE_ENTRIES defined, the unit that defines GRID_ENTRY_<NAME> (narrowed by GRID_ENTRY_ONLY_FLOAT
// or GRID_ENTRY_ONLY_DOUBLE) instantiates the host wrapper and every other unit, the FFI handlers' included,
// only declares it, so that the CPU library's entry points compile side by side as the CUDA kernels do.
func (e *entry) emitSeparateHostInstantiation(w *writer, params []string) {
	guard := "GRID_ENTRY_" + e.upper()
	for _, p := range []struct{ t, other string }{{"float", "DOUBLE"}, {"double", "FLOAT"}} {
		decl := fmt.Sprintf("template Status %s<%s>(%s, int num_samples);", e.name, p.t,
			typeParam.ReplaceAllString(strings.Join(params, ", "), p.t))
		w.line("#if !defined(__CUDACC__) && defined(GRID_SEPARATE_ENTRIES) && defined(%s) && !defined(GRID_ENTRY_ONLY_%s)", guard, p.other)
		w.line("%s", decl)
		w.line("#elif !defined(__CUDACC__) && defined(GRID_SEPARATE_ENTRIES)")
		w.line("extern %s", decl)
		w.line("#endif")
	}
}

// emitSeparateInstantiation lets a CUDA build compile each entry point in its own translation units, in
// parallel (the kernels of a large robot take minutes each): with GRID_SEPARATE_ENTRIES defined, the unit
// that also defines GRID_ENTRY_<NAME> instantiates the entry's launch functions, and every other unit only
// declares them. GRID_ENTRY_ONLY_FLOAT or GRID_ENTRY_ONLY_DOUBLE in that unit narrows it to one precision,
// so that a float and a double unit compile side by side. The launch functions are instantiated at
// TIER_SHARED and at the baked tier, and with GRID_ALL_TIERS defined at every tier (the equivalence checks
// and the sweeps of every tier; each tier compiles its group kernels anew).
func (e *entry) emitSeparateInstantiation(w *writer, params []string, opt Options) {
	typed := func(t string) string {
		return typeParam.ReplaceAllString(strings.Join(params, ", "), t)
	}
	guard := "GRID_ENTRY_" + e.upper()
	if len(e.needs) > 0 {
		needed := make([]string, len(e.needs))
		for i, n := range e.needs {
			needed[i] = "GRID_ENTRY_" + strings.ToUpper(n)
		}
		w.line("// %s needs %s (its launch calls theirs)", guard, strings.Join(needed, " "))
	}
	for _, p := range []struct{ t, other string }{{"float", "DOUBLE"}, {"double", "FLOAT"}} {
		launch := func(prefix, tier string) {
			w.line("%stemplate cudaError_t %s_launch<%s, %s>(%s, int num_samples, cudaStream_t stream, LaunchShape shape, %s* d_workspace);",
				prefix, e.name, p.t, tier, typed(p.t), p.t)
		}
		baked := tierConstant(opt.launchConfig(e, p.t).Tier)
		emit := func(prefix string) {
			launch(prefix, "TIER_SHARED")
			w.line("%stemplate cudaError_t %s_configure<%s>();", prefix, e.name, p.t)
			others := []string{}
			for _, tier := range []string{"TIER_LITE", "TIER_MINIMAL"} {
				if tier == baked {
					launch(prefix, tier)
				} else {
					others = append(others, tier)
				}
			}
			w.line("#if defined(GRID_ALL_TIERS)")
			for _, tier := range others {
				launch(prefix, tier)
			}
			w.line("#endif")
		}
		w.line("#if defined(GRID_SEPARATE_ENTRIES) && defined(%s) && !defined(GRID_ENTRY_ONLY_%s)", guard, p.other)
		emit("")
		w.line("#elif defined(GRID_SEPARATE_ENTRIES)")
		emit("extern ")
		w.line("#endif")
	}
}

// typeParam matches the template parameter T in a C++ parameter list.
var typeParam = regexp.MustCompile(`\bT\b`)
