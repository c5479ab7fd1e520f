package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// jointKind is the kernel library's JointKind number of a model joint.
func jointKind(t model.JointType) int {
	switch t {
	case model.Prismatic:
		return 1
	case model.FreeFlyer:
		return 2
	default:
		return 0 // revolute and continuous share a model
	}
}

// colMajor flattens a rotation matrix column by column.
func colMajor(m spatial.Mat3) []float64 {
	return []float64{m[0][0], m[1][0], m[2][0], m[0][1], m[1][1], m[2][1], m[0][2], m[1][2], m[2][2]}
}

// children returns, in CSR form, each joint's child joints in joint order.
func children(r *model.Robot) (start, list []int) {
	parents := make([]int, len(r.Joints))
	for i, j := range r.Joints {
		parents[i] = j.Parent
	}
	start, list = csr(len(r.Joints), 0, parents)
	return start, list
}

// csr groups items by owner: owner o's items, in item order, are list[start[o-lo]:start[o-lo+1]], for owners
// lo..lo+n-1 (items with other owners, such as the roots' parent -1 when lo is 0, are left out). Linear in
// the items, so that the tables of a large tree stay quick to generate.
func csr(n, lo int, owner []int) (start, list []int) {
	start = make([]int, n+1)
	for _, o := range owner {
		if o >= lo && o < lo+n {
			start[o-lo+1]++
		}
	}
	for k := 0; k < n; k++ {
		start[k+1] += start[k]
	}
	list = make([]int, start[n])
	next := append([]int(nil), start[:n]...)
	for item, o := range owner {
		if o >= lo && o < lo+n {
			list[next[o-lo]] = item
			next[o-lo]++
		}
	}
	return start, list
}

// levelOrder returns the joints level by level and each level's start in that order.
func levelOrder(r *model.Robot) (order, start []int) {
	start = []int{0}
	for _, l := range r.Levels {
		order = append(order, l...)
		start = append(start, len(order))
	}
	return order, start
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// realList prints values exactly for double and rounded once for float.
func realList(v []float64, float bool) string {
	s := make([]string, len(v))
	for i, x := range v {
		if float {
			s[i] = strconv.FormatFloat(float64(float32(x)), 'g', 9, 32) + "f"
			if !strings.ContainsAny(s[i], ".e") {
				s[i] = strings.TrimSuffix(s[i], "f") + ".f"
			}
		} else {
			s[i] = strconv.FormatFloat(x, 'g', 17, 64)
			if !strings.ContainsAny(s[i], ".e") {
				s[i] += ".0"
			}
		}
	}
	return strings.Join(s, ", ")
}

// emitTables writes the robot's sizes, topology and constant kinematic and inertial data.
func emitTables(w *writer, r *model.Robot) {
	nb, nf := len(r.Joints), len(r.Frames)
	order, lstart := levelOrder(r)
	cstart, clist := children(r)
	kinds := make([]int, nb)
	var axes, es, rs, inertias []float64
	nvSub := make([]int, nb)
	for i, j := range r.Joints {
		kinds[i] = jointKind(j.Type)
		axes = append(axes, j.Axis[:]...)
		es = append(es, colMajor(j.Placement.E)...)
		rs = append(rs, j.Placement.R[:]...)
		p := j.Inertia.Params()
		inertias = append(inertias, p[:]...)
		for _, s := range r.Subtree[i] {
			nvSub[i] += r.Joints[s].Type.NV()
		}
	}
	frameJoint := make([]int, nf)
	var fes, frs []float64
	for i, f := range r.Frames {
		frameJoint[i] = f.Joint
		fes = append(fes, colMajor(f.Placement.E)...)
		frs = append(frs, f.Placement.R[:]...)
	}
	if len(clist) == 0 {
		clist = []int{-1} // keep the array non-empty; child_start bounds every read
	}

	w.comment("Sizes: configuration and velocity coordinates, bodies (one per movable joint), frames (one per",
		"URDF link) and BFS levels.")
	w.line("constexpr int NQ = %d;", r.NQ)
	w.line("constexpr int NV = %d;", r.NV)
	w.line("constexpr int NB = %d;", nb)
	w.line("constexpr int NF = %d;", nf)
	w.line("constexpr int NLEVELS = %d;", len(r.Levels))
	w.line("constexpr bool FLOATING_BASE = %v;", r.FloatingBase())
	w.blank()
	w.comment("Robot constants, indexed by joint (body) or frame number. Placements are parent-to-joint-frame",
		"transforms (E column-major, r in parent coordinates); inertias are the 10 parameters",
		"[m, h, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] about the body origin, fixed-joint links merged.")
	w.namespace("robot", func() {
		table := func(typ, name string, n int, values string) {
			w.line("GRID_TABLE %s %s[%d] = {%s};", typ, name, n, values)
		}
		table("int", "kind", nb, intList(kinds))
		table("int", "parent", nb, intList(r.Parents()))
		qi, vi := make([]int, nb), make([]int, nb)
		for i, j := range r.Joints {
			qi[i], vi[i] = j.Q, j.V
		}
		table("int", "q_index", nb, intList(qi))
		table("int", "v_index", nb, intList(vi))
		table("int", "nv_subtree", nb, intList(nvSub))
		table("int", "level_order", nb, intList(order))
		table("int", "level_start", len(lstart), intList(lstart))
		table("int", "child_start", len(cstart), intList(cstart))
		table("int", "children", len(clist), intList(clist))
		table("int", "frame_joint", nf, intList(frameJoint))
		for _, prec := range []struct {
			suffix string
			typ    string
			float  bool
		}{{"d", "double", false}, {"f", "float", true}} {
			table(prec.typ, "axis_"+prec.suffix, 3*nb, realList(axes, prec.float))
			table(prec.typ, "placement_E_"+prec.suffix, 9*nb, realList(es, prec.float))
			table(prec.typ, "placement_r_"+prec.suffix, 3*nb, realList(rs, prec.float))
			table(prec.typ, "inertia_"+prec.suffix, 10*nb, realList(inertias, prec.float))
			table(prec.typ, "frame_E_"+prec.suffix, 9*nf, realList(fes, prec.float))
			table(prec.typ, "frame_r_"+prec.suffix, 3*nf, realList(frs, prec.float))
		}
		w.blank()
		w.comment("Typed access to the real-valued tables.")
		for _, name := range []string{"axis", "placement_E", "placement_r", "inertia", "frame_E", "frame_r"} {
			w.line("template <typename T> GLASS_DEVICE const T* %s() { return pick<T>(%s_f, %s_d); }", name, name, name)
		}
	})
	w.blank()
}

// literal formats an int for emitted code.
func literal(n int) string { return fmt.Sprint(n) }
