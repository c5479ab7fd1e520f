package emit

import (
	"fmt"
	"math"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// snapTolerance is how close a placement entry must be to 0 or ±1 to be written as exactly that: URDF
// angles such as π/2 leave entries like 6e-17 that would otherwise cost a multiplication each.
const snapTolerance = 1e-12

// snap returns x as exactly 0, 1 or -1 when it is within snapTolerance of one of them.
func snap(x float64) float64 {
	for _, v := range []float64{0, 1, -1} {
		if math.Abs(x-v) < snapTolerance {
			return v
		}
	}
	return x
}

func snapAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = snap(x)
	}
	return out
}

// axisClass is the kernel library's AxisClass of a unit joint axis: a signed coordinate axis or general.
func axisClass(a spatial.Vec3) int {
	for k := 0; k < 3; k++ {
		var e spatial.Vec3
		e[k] = 1
		if snap(a[0]) == e[0] && snap(a[1]) == e[1] && snap(a[2]) == e[2] {
			return k
		}
		if snap(a[0]) == -e[0] && snap(a[1]) == -e[1] && snap(a[2]) == -e[2] {
			return 3 + k
		}
	}
	return 6
}

func doubles(v []float64) string { return "{" + realList(v, false) + "}" }

// emitRobotModel writes `struct Robot`, the compile-time description of the robot that the algorithm
// templates of kernels/grid/algorithms are instantiated on (see kernels/grid/model.cuh).
func emitRobotModel(w *writer, r *model.Robot) {
	nb, nf := len(r.Joints), len(r.Frames)
	order, lstart := levelOrder(r)
	w.comment("The robot as data for the algorithm templates (grid/model.cuh): sizes, joints in depth-first order",
		"(kind, parent, first q and v index, axis class, axis, placement E column-major and r, inertia",
		"[m, h, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] about the body origin), frames (body, placement) and BFS levels.")
	w.block("struct Robot", func() {
		w.line("static constexpr int NQ = %d, NV = %d, NB = %d, NF = %d, NLEVELS = %d;", r.NQ, r.NV, nb, nf, len(r.Levels))
		w.line("static constexpr JointData joint[NB] = {")
		for i, j := range r.Joints {
			p := j.Inertia.Params()
			axis := j.Axis[:]
			if j.Type == model.FreeFlyer {
				axis = []float64{0, 0, 0}
			}
			w.line("    {%d, %d, %d, %d, %d, %s, %s, %s, %s},  // %d %s", jointKind(j.Type), j.Parent, j.Q, j.V,
				axisClass(j.Axis), doubles(snapAll(axis)), doubles(snapAll(colMajor(j.Placement.E))),
				doubles(snapAll(j.Placement.R[:])), doubles(p[:]), i, j.Name)
		}
		w.line("};")
		w.line("static constexpr FrameData frame[NF] = {")
		for i, f := range r.Frames {
			w.line("    {%d, %s, %s},  // %d %s", f.Joint, doubles(snapAll(colMajor(f.Placement.E))),
				doubles(snapAll(f.Placement.R[:])), i, f.Name)
		}
		w.line("};")
		w.line("static constexpr int level_start[NLEVELS + 1] = {%s};", intList(lstart))
		w.line("static constexpr int level_order[NB] = {%s};", intList(order))
	}, ";")
	w.blank()
}

// templateCall formats a call of an algorithm template on the robot: name<Robot, T>(args...).
func templateCall(name string, args ...string) string {
	return fmt.Sprintf("algorithms::%s<Robot>(%s);", name, strings.Join(args, ", "))
}
