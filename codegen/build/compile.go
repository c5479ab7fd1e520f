package build

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Toolchain names the compilers and headers of a library build.
type Toolchain struct {
	// CXX is the host C++ compiler command ("c++" when empty); words after the first are arguments that come
	// first on every command line, as in `CXX="ccache c++"` or the manylinux wheel's
	// "zig c++ -target x86_64-linux-gnu.2.28".
	CXX string
	// NVCC is the CUDA compiler; needed only for the CUDA library.
	NVCC string
	// FFIInclude holds xla/ffi/api/ffi.h.
	FFIInclude string
	// Arch, when set (e.g. "sm_90"), is the only GPU target; otherwise sm_80, sm_90 and compute_90 PTX.
	Arch string
	// Jobs caps the compilers a library build runs at once (default: the CPUs); 1 builds the CPU library
	// from one translation unit.
	Jobs int
	// Root is the repository root (kernels/ and xla_ffi/); "" means the working directory.
	Root string
	// CUDAEntries, when set, are the only entry points (algorithm names, e.g. "aba") compiled into the CUDA
	// library; the others' handlers return an error. A large robot's derivative kernels take the compiler
	// many minutes, which a build for one job need not spend.
	CUDAEntries []string
	// CUDARuntime, for CompileCUDARTC, is the CUDA runtime's include folder (CUDARuntimeHeaders) and its shared
	// library (libcudart.so.13), from a toolkit or the nvidia-cuda-runtime and nvidia-cuda-crt wheels.
	CUDARuntime struct{ Include, Library string }
}

// CUDARuntimeHeaders are the headers, relative to the CUDA runtime's include folder, that a host compilation
// against the runtime needs: the API and the compiler-support headers it includes (since CUDA 13 in the
// nvidia-cuda-crt wheel, so a folder may have the first without the second).
var CUDARuntimeHeaders = []string{"cuda_runtime_api.h", "crt/host_defines.h"}

// HasCUDARuntimeHeaders reports whether include holds every file of CUDARuntimeHeaders.
func HasCUDARuntimeHeaders(include string) bool {
	for _, h := range CUDARuntimeHeaders {
		if !fileExists(filepath.Join(include, h)) {
			return false
		}
	}
	return true
}

// cudaGencode lists the GPU targets of the CUDA library: machine code for Ampere (sm_80) and Hopper (sm_90),
// and compute_90 PTX that newer GPUs compile at load time.
var cudaGencode = []string{
	"-gencode", "arch=compute_80,code=sm_80",
	"-gencode", "arch=compute_90,code=sm_90",
	"-gencode", "arch=compute_90,code=compute_90",
}

func (tc Toolchain) path(rel string) string { return filepath.Join(tc.Root, rel) }

// command is a compiler and the arguments that start each of its command lines.
type command []string

func (c command) cmd(args ...string) *exec.Cmd {
	return exec.Command(c[0], append(append([]string{}, c[1:]...), args...)...)
}

func (c command) String() string { return strings.Join(c, " ") }

// cxx is tc.CXX as a command.
func (tc Toolchain) cxx() command {
	if words := strings.Fields(tc.CXX); len(words) > 0 {
		return words
	}
	return command{"c++"}
}

// define names the robot in the libraries' error messages.
func define(robot string) string { return fmt.Sprintf("-DGRID_FFI_ROBOT=%q", robot) }

// includes are the header folders of a robot built in dir; XLA's headers are third-party, so -isystem keeps
// their -Wextra warnings out of the build's.
func (tc Toolchain) includes(dir string) []string {
	return []string{"-I", tc.path("kernels"), "-I", dir, "-isystem", tc.FFIInclude}
}

// handlerOpt is the optimisation of the CPU handler unit (xla_ffi/ffi_cpu.cc). Its XLA FFI binding templates
// take the compiler as long as a small robot's kernels (iiwa: 7.9 s at -O2, 5.8 s at -O1, 3.7 s at -O0),
// while a handler only checks the buffers and hands chunks of the batch to the host wrappers, compiled at
// -O2 in their own units. Measured on iiwa's jitted forward_dynamics at batches 1 and 16: -O1 as fast as
// -O2 (15-17 µs and 34-36 µs a call), -O0 1-2 µs slower at batch 1.
const handlerOpt = "-O1"

// maxHandlerParts bounds handlerParts: iiwa's CPU handler unit takes 6.7 s whole and 2.7 s with a quarter of
// its handlers (GRID_FFI_IN_PART, xla_ffi/handlers.h), the headers' parsing being the part that stays.
const maxHandlerParts = 4

// handlerParts is the number of parts a handler unit compiles in with jobs compilers: half of them, as for
// spreadGroup, so that the other units compile beside the parts.
func handlerParts(jobs int) int {
	return max(1, min(jobs/2, maxHandlerParts))
}

// handlerUnits are the units of the handler source src compiled with args in handlerParts(jobs) parts, part p
// into obj(p) (a unit in one part defines every handler).
func handlerUnits(src string, args []string, jobs int, obj func(p int) string) []unit {
	parts := handlerParts(jobs)
	units := make([]unit, parts)
	for p := range parts {
		a := slices.Clone(args)
		if parts > 1 {
			a = append(a, fmt.Sprintf("-DGRID_FFI_PARTS=%d", parts), fmt.Sprintf("-DGRID_FFI_PART=%d", p))
		}
		units[p] = unit{src: src, obj: obj(p), args: a}
	}
	return units
}

// CompileCPU compiles the host handler library of the robot built in dir (handlers grid_<algo>_cpu), every
// entry point and an unrolled robot's fused rollout handlers in CPULibrary, as `go tool mage build` does.
// With more than one job (tc.Jobs, default the CPUs) it compiles its translation units side by side and
// links them: the entry points grouped by the code they share (cpuLibraries), the rollout handlers
// (xla_ffi/trajectory_cpu.cc) and the handlers (GRID_SEPARATE_ENTRIES; see emitSeparateHostInstantiation).
// Split, the compiler does about a fifth more work in total (iiwa 28.4 CPU seconds against 23.3, g1_29dof
// 171.6 against 138.2: inline code two units use is compiled in each), so with one job, or where the caller
// already runs builds side by side, one unit is faster. With four jobs or more, the first call's entry points
// and the first-order derivatives are spread over up to half the jobs' units each (spreadGroup), and each
// library's handler unit over up to four (handlerParts), so that a large robot's longest unit shrinks. The
// objects are removed after the link.
func (tc Toolchain) CompileCPU(dir, robot string) error {
	libs, entries, _, err := cpuPlan(dir, false)
	if err != nil {
		return err
	}
	return tc.compileLibraries(dir, robot, libs, entries)
}

// CompileCPUCore compiles the CPULibrary of a run-time build, which defers its expensive entry points: the
// handlers and the entry points a first call needs (dynamics, the mass matrix and its inverse, frame poses
// and Jacobians, the integrator), the other handlers returning an error. It lists the robot's CPU libraries
// in LibrariesFile; CompileCPUDeferred compiles the deferred ones: the first-order derivatives
// (DerivativesLibrary), the second-order ones (SecondOrderLibrary, two minutes of g1_29dof's compiler) and
// the fused rollouts (RolloutsLibrary).
func (tc Toolchain) CompileCPUCore(dir, robot string) error {
	libs, entries, facts, err := cpuPlan(dir, true)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(libs, func(l cpuLibrary) bool { return l.file == CPULibrary })
	if i < 0 {
		return fmt.Errorf("%s: no entry point of the core CPU library in %s", dir, HeaderFile)
	}
	if err := tc.compileLibraries(dir, robot, libs[i:i+1], entries); err != nil {
		return err
	}
	return writeLibraries(dir, libraryInfos(libs, facts.Trajectories))
}

// cpuPlan reads the entry points and metadata of the robot built in dir and groups them into libraries
// (cpuLibraries).
func cpuPlan(dir string, deferred bool) ([]cpuLibrary, []string, buildFacts, error) {
	facts, err := readBuildFacts(dir)
	if err != nil {
		return nil, nil, facts, err
	}
	entries, err := headerEntries(dir)
	if err != nil {
		return nil, nil, facts, err
	}
	return cpuLibraries(entries, len(facts.Trajectories) > 0, deferred), entries, facts, nil
}

// compileLibraries compiles libs of the robot built in dir, whose header has the entry points all. With one
// job each library is one compiler command: the handlers (xla_ffi/ffi_cpu.cc, those of the entry points
// the library leaves out defined GRID_ENTRY_SKIPPED_<ENTRY>) and the rollout handlers, as their libraries
// have them. With more, the units of every library compile side by side, tc.jobs() at a time and longest
// first, and each library is linked from its own.
func (tc Toolchain) compileLibraries(dir, robot string, libs []cpuLibrary, all []string) error {
	start := time.Now()
	cxx := tc.cxx()
	handlers := tc.path(filepath.Join("xla_ffi", "ffi_cpu.cc"))
	rollouts := tc.path(filepath.Join("xla_ffi", "trajectory_cpu.cc"))
	base := append([]string{"-std=c++17", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-Wall",
		"-Wextra", define(robot)}, tc.includes(dir)...)
	skips := func(l cpuLibrary) []string {
		var defs []string
		for _, e := range l.skipped(all) {
			defs = append(defs, "-DGRID_ENTRY_SKIPPED_"+e)
		}
		return defs
	}
	if tc.jobs() == 1 {
		for _, l := range libs {
			args := append(append([]string{"-O2", "-shared"}, base...), skips(l)...)
			if len(l.groups) > 0 {
				args = append(args, handlers)
			}
			if l.rollouts {
				args = append(args, rollouts)
			}
			if err := compileLibrary(cxx, args, filepath.Join(dir, l.file)); err != nil {
				return err
			}
		}
		return nil
	}
	objDir := filepath.Join(dir, "cpu_objects")
	if err := freshDir(objDir); err != nil {
		return err
	}
	defer os.RemoveAll(objDir)
	common := append(slices.Clone(base), "-DGRID_SEPARATE_ENTRIES", "-c")
	optimised := append([]string{"-O2"}, common...)
	// The units library by library, each library's entry groups first (the longest), then its rollouts and
	// handlers; a library links as soon as its own units are compiled, so that the first of a deferred build
	// is ready before the others.
	var units []unit
	for _, l := range libs {
		stem := strings.TrimSuffix(strings.TrimPrefix(l.file, "libgrid_rbd_"), ".so")
		var mine []unit
		obj := func(name string) string { return filepath.Join(objDir, stem+"."+name+".o") }
		var groups []entryGroup
		for _, g := range l.groups {
			// half the compiler slots spread a unit: the other units and libraries compile beside them
			groups = append(groups, spreadGroup(g, tc.jobs()/2)...)
		}
		for _, g := range groups {
			var text strings.Builder
			for _, e := range g.entries {
				text.WriteString("#define GRID_ENTRY_" + e + "\n")
			}
			text.WriteString("#include \"grid.cuh\"\n")
			src := filepath.Join(objDir, stem+"."+g.name+".cc")
			if err := os.WriteFile(src, []byte(text.String()), 0o644); err != nil {
				return err
			}
			mine = append(mine, unit{src: src, obj: obj(g.name), args: optimised})
		}
		if l.rollouts {
			mine = append(mine, unit{src: rollouts, obj: obj("rollouts"), args: optimised})
		}
		if len(l.groups) > 0 {
			args := append(append([]string{handlerOpt}, common...), skips(l)...)
			mine = append(mine, handlerUnits(handlers, args, tc.jobs(), func(p int) string {
				return obj(fmt.Sprintf("handlers_%d", p+1))
			})...)
		}
		link := []string{"-shared"}
		for _, u := range mine {
			link = append(link, u.obj)
		}
		remaining := int32(len(mine))
		for i := range mine {
			mine[i].then = func() error {
				if atomic.AddInt32(&remaining, -1) > 0 {
					return nil
				}
				return compileLibrary(cxx, link, filepath.Join(dir, l.file))
			}
		}
		units = append(units, mine...)
	}
	names := make([]string, len(libs))
	for i, l := range libs {
		names[i] = l.file
	}
	if err := tc.compileUnits(cxx, strings.Join(names, ", "), units); err != nil {
		return err
	}
	fmt.Printf("%s: compiled and linked %s in %v\n", dir, strings.Join(names, ", "), time.Since(start).Round(time.Millisecond))
	return nil
}

// headerEntries lists the entry points of the grid.cuh in dir by their separate-build guards.
func headerEntries(dir string) ([]string, error) {
	header, err := os.ReadFile(filepath.Join(dir, HeaderFile))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range entryGuard.FindAllStringSubmatch(string(header), -1) {
		seen[m[1]] = true
	}
	entries := make([]string, 0, len(seen))
	for e := range seen {
		entries = append(entries, e)
	}
	sort.Strings(entries)
	return entries, nil
}

// jobs is how many compilers a build runs at once: tc.Jobs, else the CPUs.
func (tc Toolchain) jobs() int {
	if tc.Jobs > 0 {
		return tc.Jobs
	}
	return runtime.NumCPU()
}

// unit is one translation unit: its source, its object and the compiler's options for it.
type unit struct {
	src, obj string
	args     []string
	// then, when set, runs once the unit has compiled (a library's link once its last unit has), holding
	// the unit's compiler slot.
	then func() error
}

// compileUnits compiles units with compiler, tc.Jobs (default: the CPUs) at a time, starting them in order,
// and reports every failure with the compiler's output.
func (tc Toolchain) compileUnits(compiler command, lib string, units []unit) error {
	jobs := tc.jobs()
	fmt.Printf("== %s: %d translation units, %d at a time\n", filepath.Base(lib), len(units), jobs)
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for _, u := range units {
		wg.Add(1)
		sem <- struct{}{} // units start in order
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t := time.Now()
			args := append(append([]string{}, u.args...), u.src, "-o", u.obj)
			out, err := compiler.cmd(args...).CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out))
				return
			}
			if len(out) > 0 {
				os.Stdout.Write(out)
			}
			fmt.Printf("  %s in %v\n", filepath.Base(u.obj), time.Since(t).Round(100*time.Millisecond))
			if u.then != nil {
				mu.Unlock()
				err := u.then()
				mu.Lock()
				if err != nil {
					failed = append(failed, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("compiling %s with %s:\n%s", lib, compiler, strings.Join(failed, "\n"))
	}
	return nil
}

// IKLibrary is the host inverse-kinematics library of a robot (xla_ffi/ik_cpu.cc, a C ABI that
// grid_rbd.ik calls through ctypes).
const IKLibrary = "libgrid_rbd_ik_cpu.so"

// HasIK reports whether the robot built in dir gets the inverse-kinematics library: the solver
// (kernels/grid/algorithms/ik.cuh) needs an unrolled description (its chains are compile-time), so rolled
// robots have none. A floating base is held at the solve's rest pose.
func HasIK(dir string) (bool, error) {
	m, err := readBuildFacts(dir)
	if err != nil {
		return false, err
	}
	return !m.Rolled, nil
}

// CompileIK compiles the inverse-kinematics library of the robot built in dir (IKLibrary). It needs no XLA
// headers. `go tool mage build` and `ikbench` compile it; run-time builds (grid-rbd-build) leave it out, so a
// first dynamics call does not wait for it.
func (tc Toolchain) CompileIK(dir string) error {
	args := []string{"-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
		"-Wall", "-Wextra", "-I", tc.path("kernels"), "-I", dir, tc.path(filepath.Join("xla_ffi", "ik_cpu.cc"))}
	return compileLibrary(tc.cxx(), args, filepath.Join(dir, IKLibrary))
}

// IKCUDALibrary is the GPU inverse-kinematics library of a robot (xla_ffi/ik_cuda.cu: IKLibrary's C ABI with
// the candidates on the GPU).
const IKCUDALibrary = "libgrid_rbd_ik_cuda.so"

// CompileIKCUDA compiles IKCUDALibrary of the robot built in dir with tc.NVCC (as CUDAArgs say, without the
// XLA headers). `go tool mage build -cuda` compiles it beside the CUDA handler library, and `ikbench` where
// there is a GPU.
func (tc Toolchain) CompileIKCUDA(dir, robot string) error {
	args := tc.CUDAArgs(robot, []string{"-I", tc.path("kernels"), "-I", dir})
	args = append(append(args, tc.cudartLink()...), tc.path(filepath.Join("xla_ffi", "ik_cuda.cu")))
	return compileLibrary(command{tc.NVCC}, args, filepath.Join(dir, IKCUDALibrary))
}

// CUDARTCLibrary is the CUDA handler library of kernels compiled at run time (xla_ffi/ffi_cuda_rtc.cc): the
// launch code and handlers of CUDALibrary, built by the host C++ compiler; NVRTC compiles the kernels that
// metadata.json lists when an entry point is first called (python/grid_rbd/_rtc.py).
const CUDARTCLibrary = "libgrid_rbd_cuda_rtc.so"

// CompileCUDARTC compiles CUDARTCLibrary of the robot built in dir with the host C++ compiler against
// tc.CUDARuntime, linked to its libcudart (found at run time through the library's run path), or, where
// tc.CUDARuntime.Library is the static runtime (libcudart_static.a), with the runtime linked in, so that the
// library needs nothing of CUDA but the driver (a wheel's bundled robots): no nvcc and no kernels, so it takes
// seconds where CUDALibrary takes minutes. With four jobs or more its handlers compile in parts side by side
// (handlerParts) and are linked.
func (tc Toolchain) CompileCUDARTC(dir, robot string) error {
	rt := tc.CUDARuntime
	if !HasCUDARuntimeHeaders(rt.Include) || !fileExists(rt.Library) {
		return fmt.Errorf("%s needs the CUDA runtime's headers (%s) and library; got include %q and library %q "+
			"(pip install nvidia-cuda-runtime==13.* nvidia-cuda-crt==13.*, or a CUDA 13 toolkit)", CUDARTCLibrary,
			strings.Join(CUDARuntimeHeaders, ", "), rt.Include, rt.Library)
	}
	compile := []string{"-std=c++17", "-O1", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
		"-Wall", "-Wextra", define(robot), "-isystem", rt.Include, "-I", tc.path("xla_ffi")}
	compile = append(compile, tc.includes(dir)...)
	src := tc.path(filepath.Join("xla_ffi", "ffi_cuda_rtc.cc"))
	var link []string // the runtime, after the objects
	if strings.HasSuffix(rt.Library, ".a") {
		// the static runtime's own needs, all in glibc; its debug sections are most of its size (iiwa's
		// library: 10.4 MB with them, 1.5 MB without)
		link = []string{rt.Library, "-lpthread", "-ldl", "-lrt", "-Wl,--strip-debug"}
	} else {
		libDir, err := filepath.Abs(filepath.Dir(rt.Library)) // the run path must hold wherever the library loads
		if err != nil {
			return err
		}
		link = []string{"-L", libDir, "-l:" + filepath.Base(rt.Library), "-Wl,-rpath," + libDir}
	}
	link = append(link, "-Wl,--no-undefined")
	// the handlers in parts side by side (GRID_FFI_IN_PART; one part with fewer than four jobs), then the link
	objDir := filepath.Join(dir, "cuda_rtc_objects")
	if err := freshDir(objDir); err != nil {
		return err
	}
	defer os.RemoveAll(objDir)
	units := handlerUnits(src, append(compile, "-c"), tc.jobs(), func(p int) string {
		return filepath.Join(objDir, fmt.Sprintf("handlers_%d.o", p+1))
	})
	if err := tc.compileUnits(tc.cxx(), CUDARTCLibrary, units); err != nil {
		return err
	}
	args := []string{"-shared"}
	for _, u := range units {
		args = append(args, u.obj)
	}
	return compileLibrary(tc.cxx(), append(args, link...), filepath.Join(dir, CUDARTCLibrary))
}

// HasTrajectories reports whether the metadata of the robot built in dir lists the fused rollout kernels
// (xla_ffi/trajectory.h), which its libraries then export.
func HasTrajectories(dir string) (bool, error) {
	m, err := readBuildFacts(dir)
	if err != nil {
		return false, err
	}
	return len(m.Trajectories) > 0, nil
}

// buildFacts are what the library builds read from a robot's metadata.json.
type buildFacts struct {
	Robot        string   `json:"robot"`
	Rolled       bool     `json:"rolled"`
	Floating     bool     `json:"floating_base"`
	Trajectories []string `json:"trajectories"`
}

func readBuildFacts(dir string) (buildFacts, error) {
	var m buildFacts
	path := filepath.Join(dir, MetadataFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// freshDir empties the folder path of an earlier build's objects and creates it.
func freshDir(path string) error {
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	return os.MkdirAll(path, 0o755)
}

// CUDAArgs are nvcc's options for a robot's CUDA library (all but the sources and the output), with the
// given include folders.
func (tc Toolchain) CUDAArgs(robot string, includes []string) []string {
	args := []string{"-O2", "-std=c++17", "-shared", "-Xcompiler",
		"-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden,-Wall,-Wextra", "--threads", "0"}
	if tc.Arch != "" {
		args = append(args, "-arch="+tc.Arch)
	} else {
		args = append(args, cudaGencode...)
	}
	args = append(args, "-cudart", "static", define(robot))
	return append(args, includes...)
}

// cudartLink is the linker option that finds the static CUDA runtime: the nvidia-cuda-nvcc wheel keeps it in
// ../lib, where nvcc does not look by itself.
func (tc Toolchain) cudartLink() []string {
	if libDir := filepath.Join(filepath.Dir(tc.NVCC), "..", "lib"); fileExists(filepath.Join(libDir, "libcudart_static.a")) {
		return []string{"-L", libDir}
	}
	return nil
}

// entryGuard finds the entry points of a generated grid.cuh by their separate-build guards.
var entryGuard = regexp.MustCompile(`defined\(GRID_SEPARATE_ENTRIES\) && defined\(GRID_ENTRY_([A-Z0-9_]+)\)`)

// entryNeeds finds the header's "needs" lines: an entry point whose launch calls other entry points' launches.
var entryNeeds = regexp.MustCompile(`(?m)^// GRID_ENTRY_([A-Z0-9_]+) needs ((?:GRID_ENTRY_[A-Z0-9_]+ ?)+)`)

// headerNeeds maps each entry point of the grid.cuh in dir to the entry points it needs compiled beside it
// (one "needs" line per such entry point).
func headerNeeds(dir string) (map[string][]string, error) {
	header, err := os.ReadFile(filepath.Join(dir, HeaderFile))
	if err != nil {
		return nil, err
	}
	needs := map[string][]string{}
	for _, m := range entryNeeds.FindAllStringSubmatch(string(header), -1) {
		for _, n := range strings.Fields(m[2]) {
			needs[m[1]] = append(needs[m[1]], strings.TrimPrefix(n, "GRID_ENTRY_"))
		}
	}
	return needs, nil
}

// precisions are the unit suffixes and defines of one entry point's two translation units.
var precisions = []struct{ suffix, define string }{{"float", "GRID_ENTRY_ONLY_FLOAT"}, {"double", "GRID_ENTRY_ONLY_DOUBLE"}}

// CompileCUDA builds the CUDA handler library of the robot built in dir (handlers grid_<algo>_cuda) from
// two translation units per entry point (float and double) plus the handlers (xla_ffi/ffi_cuda.cu),
// compiled in parallel and linked: the kernels of one entry point take a large robot's compiler minutes,
// and one unit would compile them one after another. The objects stay in DIR/cuda_objects for inspection.
func (tc Toolchain) CompileCUDA(dir, robot string) error {
	start := time.Now()
	lib := filepath.Join(dir, CUDALibrary)
	args := tc.CUDAArgs(robot, tc.includes(dir))
	entries, err := headerEntries(dir)
	if err != nil {
		return err
	}
	needs, err := headerNeeds(dir)
	if err != nil {
		return err
	}
	entries, skipped, added, err := selectEntries(entries, tc.CUDAEntries, needs)
	if err != nil {
		return err
	}
	if len(added) > 0 {
		fmt.Printf("CUDA entry points added because the ones asked for call them: %s\n", strings.Join(added, ", "))
	}
	objDir := filepath.Join(dir, "cuda_objects")
	if err := freshDir(objDir); err != nil {
		return err
	}
	units := []unit{{src: tc.path(filepath.Join("xla_ffi", "ffi_cuda.cu")), obj: filepath.Join(objDir, "handlers.o")}}
	trajectories, err := HasTrajectories(dir)
	if err != nil {
		return err
	}
	if trajectories {
		units = append(units, unit{src: tc.path(filepath.Join("xla_ffi", "trajectory_cuda.cu")), obj: filepath.Join(objDir, "trajectory.o")})
	}
	for _, e := range entries {
		for _, p := range precisions {
			src := filepath.Join(objDir, strings.ToLower(e)+"."+p.suffix+".cu")
			text := "#define GRID_ENTRY_" + e + "\n#define " + p.define + "\n#include \"grid.cuh\"\n"
			if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
				return err
			}
			units = append(units, unit{src: src, obj: strings.TrimSuffix(src, ".cu") + ".o"})
		}
	}
	compile := make([]string, 0, len(args)+1)
	for _, a := range args {
		if a != "-shared" { // objects first, the library at the link
			compile = append(compile, a)
		}
	}
	compile = append(compile, "-DGRID_SEPARATE_ENTRIES", "-c")
	for i := range units {
		units[i].args = compile
	}
	if len(skipped) > 0 {
		handlers := slices.Clone(compile)
		for _, e := range skipped {
			handlers = append(handlers, "-DGRID_ENTRY_SKIPPED_"+e)
		}
		units[0].args = handlers
		fmt.Printf("CUDA entry points left out (their handlers return an error): %s\n", strings.Join(skipped, ", "))
	}
	fmt.Printf("%s %s <unit> -o <unit>.o\n", tc.NVCC, strings.Join(compile, " "))
	if err := tc.compileUnits(command{tc.NVCC}, lib, units); err != nil {
		return err
	}
	linkArgs := []string{"-shared", "-cudart", "static"}
	for i := 0; i < len(args); i++ { // the targets, so that nvcc links the device code of each
		if args[i] == "-gencode" && i+1 < len(args) {
			linkArgs = append(linkArgs, args[i], args[i+1])
			i++
		} else if strings.HasPrefix(args[i], "-arch=") {
			linkArgs = append(linkArgs, args[i])
		}
	}
	linkArgs = append(linkArgs, tc.cudartLink()...)
	for _, u := range units {
		linkArgs = append(linkArgs, u.obj)
	}
	if err := compileLibrary(command{tc.NVCC}, linkArgs, lib); err != nil {
		return err
	}
	// A shared library links with symbols undefined; loading it would then fail and leave only the CPU kernels.
	if missing, err := undefinedGridSymbols(lib); err != nil {
		return err
	} else if len(missing) > 0 {
		os.Remove(lib)
		return fmt.Errorf("%s leaves %d functions of namespace grid undefined (an entry point compiled calls one "+
			"left out of GRID_CUDA_ENTRIES without a \"needs\" line in grid.cuh), e.g. %s", lib, len(missing), missing[0])
	}
	fmt.Printf("%s: compiled and linked in %v\n", lib, time.Since(start).Round(time.Second))
	return nil
}

// selectEntries splits a header's entry points (upper case) into those to compile and those left out, given
// the wanted algorithm names (any case; none means all) and what each entry point needs compiled beside it
// (headerNeeds): the needed ones are kept too, and returned as added where they were not asked for.
func selectEntries(all, wanted []string, needs map[string][]string) (keep, skip, added []string, err error) {
	if len(wanted) == 0 {
		return all, nil, nil, nil
	}
	want := map[string]bool{}
	for _, w := range wanted {
		name := strings.ToUpper(strings.TrimSpace(w))
		if !slices.Contains(all, name) {
			return nil, nil, nil, fmt.Errorf("no entry point %q in this robot's grid.cuh (it has %s)", w,
				strings.ToLower(strings.Join(all, ", ")))
		}
		want[name] = true
	}
	asked := maps.Clone(want)
	for grew := true; grew; {
		grew = false
		for e := range want {
			for _, n := range needs[e] {
				if !want[n] {
					want[n], grew = true, true
				}
			}
		}
	}
	for _, e := range all {
		switch {
		case want[e] && !asked[e]:
			keep, added = append(keep, e), append(added, e)
		case want[e]:
			keep = append(keep, e)
		default:
			skip = append(skip, e)
		}
	}
	return keep, skip, added, nil
}

// undefinedGridSymbols lists the dynamic symbols of namespace grid that the shared library at path uses but
// does not define.
func undefinedGridSymbols(path string) ([]string, error) {
	lib, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	syms, err := lib.DynamicSymbols()
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF && strings.HasPrefix(s.Name, "_ZN4grid") {
			missing = append(missing, s.Name)
		}
	}
	return missing, nil
}

// compileLibrary runs one compiler command that writes lib. It writes to a temporary name first and renames
// on success, so a failed build leaves no truncated library and a process that has the old one loaded keeps
// a valid file.
func compileLibrary(compiler command, args []string, lib string) error {
	tmp := lib + ".tmp"
	args = append(args, "-o", tmp)
	fmt.Printf("== %s\n%s %s\n", filepath.Base(lib), compiler, strings.Join(args, " "))
	start := time.Now()
	cmd := compiler.cmd(args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compiling %s with %s: %w", lib, compiler, err)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return err
	}
	fmt.Printf("%s in %v\n", lib, time.Since(start).Round(time.Millisecond))
	return nil
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
