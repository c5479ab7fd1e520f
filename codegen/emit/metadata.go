package emit

import (
	"encoding/json"
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// Metadata describes a generated robot for the build, the Python layer and the tests (metadata.json).
type Metadata struct {
	Robot        string          `json:"robot"`
	NQ           int             `json:"nq"`
	NV           int             `json:"nv"`
	FloatingBase bool            `json:"floating_base"`
	Gravity      []float64       `json:"gravity"`
	Joints       []JointInfo     `json:"joints"`
	Frames       []FrameInfo     `json:"frames"`
	Algorithms   []AlgorithmInfo `json:"algorithms"`
	// Rolled: the kernels iterate the bodies at run time (a large tree; see docs/architecture.md).
	Rolled bool `json:"rolled,omitempty"`
	// Unavailable names the algorithms this robot's build leaves out, with the reason.
	Unavailable map[string]string `json:"unavailable,omitempty"`
	// Trajectories names the kernels over whole rollouts (xla_ffi/trajectory.h), whose buffers have a number
	// of steps besides the batch and so no per-sample shapes here.
	Trajectories []string `json:"trajectories,omitempty"`
	// Collision is present in builds with -collision (emit.Options.Collision).
	Collision   *CollisionInfo `json:"collision,omitempty"`
	Conventions string         `json:"conventions"`
}

// JointInfo is one movable joint; limits are present for bounded joints.
type JointInfo struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Parent   int      `json:"parent"`
	QIndex   int      `json:"q_index"`
	VIndex   int      `json:"v_index"`
	NQ       int      `json:"nq"`
	NV       int      `json:"nv"`
	Lower    *float64 `json:"lower,omitempty"`
	Upper    *float64 `json:"upper,omitempty"`
	Effort   *float64 `json:"effort,omitempty"`
	Velocity *float64 `json:"velocity,omitempty"`
	Mimic    string   `json:"mimic,omitempty"`
	// InertialParameters is the body's inertia (links welded by fixed joints merged in) as Pinocchio's
	// dynamic parameters [m, m·c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the joint frame's origin: the layout
	// of joint_torque_regressor's columns.
	InertialParameters [10]float64 `json:"inertial_parameters"`
}

// FrameInfo is one frame (URDF link) and the joint whose body carries it (-1: the world).
type FrameInfo struct {
	Name  string `json:"name"`
	Joint int    `json:"joint"`
}

// AlgorithmInfo is one entry point: per-sample inputs and outputs with their row-major shapes, whether it
// takes gravity, a frame index and an integrator method, and the shared memory its kernel needs per block.
type AlgorithmInfo struct {
	Name            string       `json:"name"`
	Doc             string       `json:"doc"`
	Inputs          []BufferInfo `json:"inputs"`
	Outputs         []BufferInfo `json:"outputs"`
	Gravity         bool         `json:"gravity"`
	Frame           bool         `json:"frame"`
	Method          bool         `json:"method,omitempty"`
	SmemBytesFloat  int          `json:"smem_bytes_float"`
	SmemBytesDouble int          `json:"smem_bytes_double"`
	// TierFloat and TierDouble are the resource tiers the XLA FFI handlers launch at (launch_cfg's TIER).
	TierFloat  string `json:"tier_float"`
	TierDouble string `json:"tier_double"`
	// Kernels are the name expressions of the kernels its CUDA handler may launch (at the baked tiers and
	// TIER_SHARED, and those of the entry points its launch calls), as NVRTC compiles them at run time for a
	// library built with GRID_RTC_HOST (xla_ffi/ffi_cuda_rtc.cc).
	Kernels []string `json:"kernels"`
	// Limbs reports a limb kernel (`<name>_limbs_kernel`, launched at LIMBS_LAUNCH_SHAPE).
	Limbs bool `json:"limbs,omitempty"`
}

// BufferInfo is one per-sample array.
type BufferInfo struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
	Doc   string `json:"doc"`
}

// Size is the number of elements of the buffer.
func (b BufferInfo) Size() int {
	n := 1
	for _, d := range b.Shape {
		n *= d
	}
	return n
}

// ParseMetadata reads metadata.json.
func ParseMetadata(data []byte) (*Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// metadata describes the robot and the generated entry points.
// TrajectoryKernels are the handlers of xla_ffi/trajectory.h that an unrolled robot's libraries export.
var TrajectoryKernels = []string{"rollout", "rollout_tangent", "rollout_adjoint", "rollout_adjoint_jacobians"}

func metadata(r *model.Robot, entries []*entry, rolled bool, omitted map[string]string, opt Options) ([]byte, error) {
	m := Metadata{Robot: r.Name, NQ: r.NQ, NV: r.NV, FloatingBase: r.FloatingBase(), Gravity: r.Gravity[:],
		Rolled: rolled,
		Conventions: "row-major outputs; spatial vectors [angular; linear]; free-flyer q = [x y z qx qy qz qw], " +
			"v = [v_lin; omega] in the base frame; continuous joints take one angle"}
	for _, j := range r.Joints {
		ji := JointInfo{Name: j.Name, Type: j.Type.String(), Parent: j.Parent, QIndex: j.Q, VIndex: j.V,
			NQ: j.Type.NQ(), NV: j.Type.NV(), InertialParameters: j.Inertia.DynamicParameters()}
		l := j.Limits
		if l.Bounded {
			ji.Lower, ji.Upper = &l.Lower, &l.Upper
		}
		if l.Rated {
			ji.Effort, ji.Velocity = &l.Effort, &l.Velocity
		}
		if j.Mimic != nil {
			ji.Mimic = j.Mimic.Joint
		}
		m.Joints = append(m.Joints, ji)
	}
	for _, f := range r.Frames {
		m.Frames = append(m.Frames, FrameInfo{Name: f.Name, Joint: f.Joint})
	}
	if rolled {
		// their tangent runs the articulated-body algorithm on dual numbers, which needs the unrolled joints
		for _, t := range TrajectoryKernels {
			omitted[t] = "a rolled robot has no fused rollout kernels (their dual-number run needs the unrolled description); rollouts run as a scan of single steps"
		}
	} else {
		m.Trajectories = TrajectoryKernels
	}
	if len(omitted) > 0 {
		m.Unavailable = omitted
	}
	if opt.Collision != nil {
		m.Collision = collisionInfo(opt.Collision, r)
	}
	for _, e := range entries {
		a := AlgorithmInfo{Name: e.name, Doc: e.doc, Gravity: e.gravity, Frame: e.frame, Method: e.method, Limbs: e.limbs,
			SmemBytesFloat: 4 * e.smem(), SmemBytesDouble: 8 * e.smem(),
			TierFloat: tierName(opt.launchConfig(e, "float").Tier), TierDouble: tierName(opt.launchConfig(e, "double").Tier)}
		conv := func(bs []buffer) []BufferInfo {
			var out []BufferInfo
			for _, b := range bs {
				shape := b.shape
				if len(shape) == 0 {
					shape = []int{b.size}
				}
				out = append(out, BufferInfo{Name: b.name, Shape: shape, Doc: b.doc})
			}
			return out
		}
		a.Inputs, a.Outputs = conv(e.inputs), conv(e.outputs)
		a.Kernels = rtcKernels(e, entries, opt)
		m.Algorithms = append(m.Algorithms, a)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// The qualified kernel names that a GRID_RTC_HOST build's launch code looks up (grid::rtc::instance adds the
// template arguments) and metadata.json lists: one spelling for both.
func (e *entry) groupKernel() string  { return "grid::" + e.name + "_kernel" }
func (e *entry) threadKernel() string { return "grid::" + e.name + "_thread_kernel" }
func (e *entry) limbsKernel() string  { return "grid::" + e.name + "_limbs_kernel" }

// solveKernel is the last-phase kernel of a phased thread launch of algorithm (algorithms/<name>.cuh).
func solveKernel(algorithm string) string { return "grid::algorithms::" + algorithm + "_solve_kernel" }

// rtcKernels are the name expressions of the kernels e's launch code runs (ladder.go's launch functions, and
// those of the entry points it calls), float and double, in a stable order without repeats.
func rtcKernels(e *entry, entries []*entry, opt Options) []string {
	byName := map[string]*entry{}
	for _, x := range entries {
		byName[x.name] = x
	}
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	var visit func(x *entry)
	visit = func(x *entry) {
		for _, t := range []string{"float", "double"} {
			if x.algorithm != "" {
				if x.phasedThreadLaunch != nil {
					add(fmt.Sprintf("%s<grid::Robot, %s>", solveKernel(x.algorithm), t))
				} else {
					add(fmt.Sprintf("%s<%s>", x.threadKernel(), t))
				}
			}
			cfg := opt.launchConfig(x, t)
			if x.limbs && cfg.usesLimbs() {
				add(fmt.Sprintf("%s<%s>", x.limbsKernel(), t))
			}
			add(fmt.Sprintf("%s<%s, 0>", x.groupKernel(), t)) // TIER_SHARED: the handler's fallback
			add(fmt.Sprintf("%s<%s, %d>", x.groupKernel(), t, tierNumber(cfg.Tier)))
		}
		for _, n := range x.needs {
			if dep, ok := byName[n]; ok {
				visit(dep)
			}
		}
	}
	visit(e)
	return out
}
