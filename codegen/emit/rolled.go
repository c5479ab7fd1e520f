package emit

import (
	"fmt"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// Roll chooses between the two robot descriptions the algorithm templates accept (docs/architecture.md,
// "Rolled robots"): unrolled, every body's code specialised on its constants (fast kernels, compile time
// growing faster than the tree), or rolled, the bodies iterated at run time over a few joint classes
// (compile time independent of the tree's size).
type Roll int

const (
	// RollAuto rolls robots with more than RollBodies bodies.
	RollAuto Roll = iota
	// RollAlways rolls every robot (tests compare the two descriptions on small robots).
	RollAlways
	// RollNever unrolls every robot.
	RollNever
)

// ParseRoll reads a Roll from its flag spelling: auto, always or never.
func ParseRoll(s string) (Roll, error) {
	switch s {
	case "auto", "":
		return RollAuto, nil
	case "always":
		return RollAlways, nil
	case "never":
		return RollNever, nil
	}
	return RollAuto, fmt.Errorf("-roll=%q: want auto, always or never", s)
}

// RollBodies is the most bodies RollAuto unrolls: the largest shared robots (about 30 bodies) compile
// unrolled in minutes; a tree of a hundred bodies would take hours.
const RollBodies = 64

// rolls reports whether a robot is generated rolled.
func (o Options) rolls(r *model.Robot) bool {
	switch o.Roll {
	case RollAlways:
		return true
	case RollNever:
		return false
	default:
		return len(r.Joints) > RollBodies
	}
}

// rolledOnly names the entry points a rolled robot does not have, with the reason.
var rolledOnly = map[string]string{
	"idsva_so": "second-order derivatives are NV³ per output and need the unrolled description; " +
		"generate the robot with -roll=never (feasible up to a few dozen bodies)",
	"fdsva_so": "second-order derivatives are NV³ per output and need the unrolled description; " +
		"generate the robot with -roll=never (feasible up to a few dozen bodies)",
	"integrator_gradient": "its directions run the step on dual numbers, which needs the unrolled description; " +
		"generate the robot with -roll=never, or differentiate the integrator's composition",
}

// jointClass is what the code of a rolled body depends on.
type jointClass struct {
	kind, axisClass int
	root            bool
}

// jointClasses returns the robot's classes in order of first appearance and each joint's class.
func jointClasses(r *model.Robot) ([]jointClass, []int) {
	var classes []jointClass
	of := make([]int, len(r.Joints))
	for i, j := range r.Joints {
		c := jointClass{jointKind(j.Type), axisClass(j.Axis), j.Parent < 0}
		if j.Type == model.FreeFlyer {
			c.axisClass = 6
		}
		k := -1
		for n, have := range classes {
			if have == c {
				k = n
			}
		}
		if k < 0 {
			k = len(classes)
			classes = append(classes, c)
		}
		of[i] = k
	}
	return classes, of
}

// minvBlockColumns is the column count of body i's F/P block in the inverse mass matrix algorithm
// (grid/algorithms/minv.cuh): the columns after its own, for a body with children.
func minvBlockColumns(r *model.Robot, i int) int {
	if len(r.Subtree[i]) > 1 {
		return r.NV - r.Joints[i].V - r.Joints[i].Type.NV()
	}
	return 0
}

// minvLevelLayout places the F/P blocks by levels (even levels in one region, odd levels after it), the
// layout valid when bodies run level by level: each body's column base (the block's offset less its first
// column) and the storage in columns.
func minvLevelLayout(r *model.Robot) (base []int, columns int) {
	depth := make([]int, len(r.Joints))
	for l, level := range r.Levels {
		for _, i := range level {
			depth[i] = l
		}
	}
	total := make([]int, len(r.Levels))
	for i := range r.Joints {
		total[depth[i]] += minvBlockColumns(r, i)
	}
	var region [2]int
	for l, n := range total {
		region[l%2] = max(region[l%2], n)
	}
	base = make([]int, len(r.Joints))
	used := make([]int, len(r.Levels))
	for i, j := range r.Joints {
		d := depth[i]
		off := used[d]
		if d%2 == 1 {
			off += region[0]
		}
		used[d] += minvBlockColumns(r, i)
		if minvBlockColumns(r, i) > 0 {
			base[i] = off - j.V - j.Type.NV()
		}
	}
	return base, max(region[0]+region[1], 1)
}

// emitRolledTables writes the tables only a rolled robot reads: joint classes, the inverse mass matrix's
// block layout and the frames listed by body.
func emitRolledTables(w *writer, r *model.Robot) {
	_, class := jointClasses(r)
	base, _ := minvLevelLayout(r)
	bodies := make([]int, len(r.Frames))
	for f, fr := range r.Frames {
		bodies[f] = fr.Joint
	}
	// body b's frames (b = -1: the world's) at [frameStart[b+1], frameStart[b+2])
	frameStart, frameList := csr(len(r.Joints)+1, -1, bodies)
	w.namespace("robot", func() {
		w.line("GRID_TABLE int joint_class[%d] = {%s};", len(class), intList(class))
		w.line("GRID_TABLE int minv_column_base[%d] = {%s};", len(base), intList(base))
		w.line("GRID_TABLE int frame_start[%d] = {%s};", len(frameStart), intList(frameStart))
		w.line("GRID_TABLE int frame_list[%d] = {%s};", len(frameList), intList(frameList))
	})
	w.blank()
}

// emitRolledRobotModel writes `struct Robot` for a rolled robot: sizes and joint classes as constants, every
// other value through accessors of the run-time tables (grid/model.cuh, RolledJoint).
func emitRolledRobotModel(w *writer, r *model.Robot) {
	classes, _ := jointClasses(r)
	_, columns := minvLevelLayout(r)
	w.comment("The robot as data for the algorithm templates (grid/model.cuh), rolled: the bodies are iterated at run",
		"time, each dispatched to its joint class (kind, axis class, root), with its values read from the tables above.")
	w.block("struct Robot", func() {
		w.line("static constexpr bool ROLLED = true, FLOATING_BASE = %v;", r.FloatingBase())
		w.line("static constexpr int NQ = %d, NV = %d, NB = %d, NF = %d, NLEVELS = %d;", r.NQ, r.NV, len(r.Joints),
			len(r.Frames), len(r.Levels))
		var cs []string
		for _, c := range classes {
			cs = append(cs, fmt.Sprintf("{%d, %d, %v}", c.kind, c.axisClass, c.root))
		}
		w.line("static constexpr int NCLASSES = %d;", len(classes))
		w.line("static constexpr JointClassData joint_classes[NCLASSES] = {%s};", strings.Join(cs, ", "))
		w.line("static constexpr int MINV_STORAGE_COLUMNS = %d;", columns)
		for _, name := range []string{"joint_class", "parent", "q_index", "v_index", "nv_subtree", "level_start",
			"level_order", "child_start", "children", "frame_joint", "frame_start", "frame_list", "minv_column_base"} {
			w.line("GLASS_DEVICE static int %s(int k) { return robot::%s[k]; }", name, name)
		}
		for _, t := range []struct {
			name string
			n    int
		}{{"axis", 3}, {"placement_E", 9}, {"placement_r", 3}, {"inertia", 10}, {"frame_E", 9}, {"frame_r", 3}} {
			w.line("template <typename T> GLASS_DEVICE static const T* %s(int k) { return robot::%s<T>() + %d * k; }",
				t.name, t.name, t.n)
		}
	}, ";")
	w.blank()
}

// omit reports whether entry name is left out of this robot, recording why.
func (g *gen) omit(name string) bool {
	reason, ok := rolledOnly[name]
	if g.rolled && ok {
		g.omitted[name] = "not generated for a rolled robot: " + reason
		return true
	}
	return false
}
