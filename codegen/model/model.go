// Package model turns a parsed URDF into the kinematic tree the dynamics algorithms run on: movable
// joints in depth-first order (siblings sorted by joint name), one rigid body per movable joint with the
// inertia of every link welded to it by fixed joints, and every link kept as a frame.
package model

import (
	"errors"
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
)

// JointType is the kind of a movable joint.
type JointType int

// Movable joint kinds. FreeFlyer is the 6-DOF floating joint: q = [x y z qx qy qz qw], v = [v_lin; ω] in
// the child frame.
const (
	Revolute JointType = iota
	Continuous
	Prismatic
	FreeFlyer
)

func (t JointType) String() string {
	return [...]string{"revolute", "continuous", "prismatic", "free-flyer"}[t]
}

// NQ is the number of configuration coordinates of the joint kind.
func (t JointType) NQ() int {
	if t == FreeFlyer {
		return 7
	}
	return 1
}

// NV is the number of velocity (tangent) coordinates of the joint kind.
func (t JointType) NV() int {
	if t == FreeFlyer {
		return 6
	}
	return 1
}

// FreeFlyerName is the name of a free-flyer base added on request (Pinocchio's name for it).
const FreeFlyerName = "root_joint"

// Limits holds a joint's URDF limits. Bounded says Lower and Upper hold position limits (false for
// continuous and free-flyer joints and joints without a <limit>); Rated says Effort and Velocity hold the
// URDF's effort and velocity limits (any joint with a <limit>).
type Limits struct {
	Bounded, Rated   bool
	Lower, Upper     float64
	Effort, Velocity float64
}

// Joint is a movable joint and the rigid body it carries.
type Joint struct {
	Name string
	Type JointType
	// Parent is the index of the parent joint, or -1 for the world.
	Parent int
	// Axis is the unit joint axis in the joint frame (unused for free-flyers).
	Axis spatial.Vec3
	// Placement is the constant transform from the parent body frame to this joint's frame at q = 0.
	Placement spatial.Transform
	// Inertia is the body's inertia in the joint frame, fixed-joint descendants merged in.
	Inertia spatial.Inertia
	// Q and V index the joint's first coordinate in q and in v.
	Q, V int
	// Link is the URDF child link of the joint.
	Link    string
	Limits  Limits
	Damping float64
	// Mimic is recorded from the URDF; the dynamics treat mimic joints as independent.
	Mimic *urdf.Mimic
}

// Frame is a URDF link placed relative to the body of a movable joint.
type Frame struct {
	Name string
	// Joint is the movable joint whose body carries the frame, or -1 for the fixed world.
	Joint int
	// Placement is the constant transform from the joint frame to this frame.
	Placement  spatial.Transform
	Collisions []urdf.Collision
}

// Robot is the kinematic tree.
type Robot struct {
	Name   string
	Joints []Joint
	Frames []Frame
	NQ, NV int
	// Gravity is the linear gravitational acceleration in world coordinates.
	Gravity spatial.Vec3
	// Levels groups joint indices by depth: Levels[0] holds the joints whose parent is the world.
	Levels [][]int
	// Ancestors[i] lists the joints from the root down to i, i included.
	Ancestors [][]int
	// Subtree[i] lists i and every joint below it, in joint order.
	Subtree [][]int
	// Warnings carries the parser's warnings.
	Warnings []string
}

// DefaultGravity is the standard gravity along -z.
var DefaultGravity = spatial.Vec3{0, 0, -9.81}

// Options control how the tree is built.
type Options struct {
	// FreeFlyer adds a 6-DOF free-flyer joint between the world and the root link. It is an error when
	// the URDF already starts with a floating joint.
	FreeFlyer bool
}

// Build builds the kinematic tree of a parsed URDF.
func Build(u *urdf.Robot, opt Options) (*Robot, error) {
	r := &Robot{Name: u.Name, Gravity: DefaultGravity, Warnings: u.Warnings}
	b := builder{urdf: u, robot: r}
	rootParent := -1
	if opt.FreeFlyer {
		for _, j := range u.ChildJoints(u.Root) {
			if j.Type == urdf.Floating {
				return nil, fmt.Errorf("a free-flyer base was requested, but joint %q already floats the root link %q; build without the free-flyer option", j.Name, u.Root)
			}
		}
		rootParent = b.addJoint(Joint{Name: FreeFlyerName, Type: FreeFlyer, Parent: -1,
			Placement: spatial.IdentityTransform, Link: u.Root})
	}
	b.addLink(u.Root, rootParent, spatial.IdentityTransform)
	if len(r.Joints) == 0 {
		return nil, errors.New("robot has no movable joint")
	}
	r.computeTopology()
	return r, nil
}

type builder struct {
	urdf  *urdf.Robot
	robot *Robot
}

func (b *builder) addJoint(j Joint) int {
	r := b.robot
	j.Q, j.V = r.NQ, r.NV
	r.NQ += j.Type.NQ()
	r.NV += j.Type.NV()
	r.Joints = append(r.Joints, j)
	return len(r.Joints) - 1
}

// addLink records the link as a frame of body `joint` at `placement` from the joint frame, welds its
// inertia to that body, and recurses into its child joints in name order.
func (b *builder) addLink(name string, joint int, placement spatial.Transform) {
	link := b.urdf.Link(name)
	b.robot.Frames = append(b.robot.Frames, Frame{Name: name, Joint: joint, Placement: placement,
		Collisions: link.Collisions})
	if in := link.Inertial; in != nil && joint >= 0 {
		local := spatial.InertiaFromCOM(in.Mass, in.Origin.XYZ,
			in.Origin.Rotation().Mul(in.Tensor()).Mul(in.Origin.Rotation().T()))
		body := &b.robot.Joints[joint]
		body.Inertia = body.Inertia.Add(local.ToParent(placement))
	}
	for _, j := range b.urdf.ChildJoints(name) {
		toJoint := placement.Then(j.Origin.Transform())
		if j.Type == urdf.Fixed {
			b.addLink(j.Child, joint, toJoint)
			continue
		}
		mj := Joint{Name: j.Name, Parent: joint, Axis: j.Axis, Placement: toJoint, Link: j.Child, Mimic: j.Mimic}
		switch j.Type {
		case urdf.Revolute:
			mj.Type = Revolute
		case urdf.Continuous:
			mj.Type = Continuous
		case urdf.Prismatic:
			mj.Type = Prismatic
		case urdf.Floating:
			mj.Type, mj.Axis = FreeFlyer, spatial.Vec3{}
		}
		if j.Limit != nil {
			// Continuous joints keep their effort and velocity limits; only their position is unbounded.
			mj.Limits = Limits{Rated: true, Effort: j.Limit.Effort, Velocity: j.Limit.Velocity}
			if mj.Type == Revolute || mj.Type == Prismatic {
				mj.Limits.Bounded, mj.Limits.Lower, mj.Limits.Upper = true, j.Limit.Lower, j.Limit.Upper
			}
		}
		if j.Dynamics != nil {
			mj.Damping = j.Dynamics.Damping
		}
		b.addLink(j.Child, b.addJoint(mj), spatial.IdentityTransform)
	}
}

func (r *Robot) computeTopology() {
	n := len(r.Joints)
	r.Ancestors = make([][]int, n)
	r.Subtree = make([][]int, n)
	r.Levels = nil
	for i, j := range r.Joints {
		// Depth-first order puts every parent before its children.
		if j.Parent >= 0 {
			r.Ancestors[i] = append(append([]int(nil), r.Ancestors[j.Parent]...), i)
		} else {
			r.Ancestors[i] = []int{i}
		}
		depth := len(r.Ancestors[i]) - 1
		for len(r.Levels) <= depth {
			r.Levels = append(r.Levels, nil)
		}
		r.Levels[depth] = append(r.Levels[depth], i)
		for _, a := range r.Ancestors[i] {
			r.Subtree[a] = append(r.Subtree[a], i)
		}
	}
}

// Parents returns each joint's parent index (-1 for the world).
func (r *Robot) Parents() []int {
	p := make([]int, len(r.Joints))
	for i, j := range r.Joints {
		p[i] = j.Parent
	}
	return p
}

// Depth is the number of BFS levels (the longest chain of movable joints).
func (r *Robot) Depth() int { return len(r.Levels) }

// Width is the largest number of joints on one BFS level.
func (r *Robot) Width() int {
	w := 0
	for _, l := range r.Levels {
		w = max(w, len(l))
	}
	return w
}

// TotalMass is the mass of every body that moves; links welded to the world are not counted.
func (r *Robot) TotalMass() float64 {
	m := 0.0
	for _, j := range r.Joints {
		m += j.Inertia.M
	}
	return m
}

// FloatingBase reports whether the first joint is a free-flyer hanging from the world.
func (r *Robot) FloatingBase() bool {
	return len(r.Joints) > 0 && r.Joints[0].Type == FreeFlyer && r.Joints[0].Parent < 0
}

// JointIndex returns the index of the named joint, or -1.
func (r *Robot) JointIndex(name string) int {
	for i, j := range r.Joints {
		if j.Name == name {
			return i
		}
	}
	return -1
}

// FrameIndex returns the index of the named frame, or -1.
func (r *Robot) FrameIndex(name string) int {
	for i, f := range r.Frames {
		if f.Name == name {
			return i
		}
	}
	return -1
}
