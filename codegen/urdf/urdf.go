// Package urdf parses URDF robot descriptions into plain Go values, validating what dynamics needs:
// link inertias, joint kinematics, limits and the shape of the link tree. Visual elements are ignored;
// collision primitives are kept for collision work.
//
// Every error names the offending element and the line it starts on.
package urdf

import (
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// JointType is the kind of a URDF joint.
type JointType int

// The supported joint types; planar joints are rejected at parse time.
const (
	Fixed JointType = iota
	Revolute
	Continuous
	Prismatic
	Floating
)

var jointTypeNames = map[JointType]string{
	Fixed: "fixed", Revolute: "revolute", Continuous: "continuous", Prismatic: "prismatic", Floating: "floating",
}

func (t JointType) String() string { return jointTypeNames[t] }

// Pose is a URDF <origin>: a translation and a fixed-axis roll-pitch-yaw rotation.
type Pose struct {
	XYZ spatial.Vec3
	RPY spatial.Vec3
}

// Rotation returns the pose's rotation matrix (columns: the child axes in the parent).
func (p Pose) Rotation() spatial.Mat3 { return spatial.RPY(p.RPY) }

// Transform returns the parent-to-child coordinate transform of the pose.
func (p Pose) Transform() spatial.Transform { return spatial.FromPose(p.Rotation(), p.XYZ) }

// Inertial is a link's <inertial>: mass and the inertia tensor about the centre of mass, in the axes of
// Origin (which also places the centre of mass).
type Inertial struct {
	Origin Pose
	Mass   float64
	// Ixx, Ixy, Ixz, Iyy, Iyz, Izz
	Inertia [6]float64
}

// Tensor returns the symmetric 3×3 inertia tensor about the centre of mass, in the inertial frame's axes.
func (in Inertial) Tensor() spatial.Mat3 {
	i := in.Inertia
	return spatial.Mat3{{i[0], i[1], i[2]}, {i[1], i[3], i[4]}, {i[2], i[4], i[5]}}
}

// GeometryKind names a collision primitive.
type GeometryKind int

// Collision primitives.
const (
	Sphere GeometryKind = iota
	Box
	Cylinder
	Mesh
)

// Geometry is one collision primitive. Size holds (radius) for a sphere, (x, y, z) for a box and
// (radius, length) for a cylinder; Filename and Scale describe a mesh.
type Geometry struct {
	Kind     GeometryKind
	Size     []float64
	Filename string
	Scale    spatial.Vec3
}

// Collision is a link's <collision> element.
type Collision struct {
	Name     string
	Origin   Pose
	Geometry Geometry
}

// Link is a URDF <link>. Inertial is nil for a massless link.
type Link struct {
	Name       string
	Line       int
	Inertial   *Inertial
	Collisions []Collision
}

// Limit is a joint's <limit>.
type Limit struct {
	Lower, Upper, Effort, Velocity float64
}

// Dynamics is a joint's <dynamics>.
type Dynamics struct {
	Damping, Friction float64
}

// Mimic records a joint's <mimic> element: q = Multiplier·q(Joint) + Offset. The model treats mimic joints
// as independent.
type Mimic struct {
	Joint              string
	Multiplier, Offset float64
}

// Joint is a URDF <joint>. Axis is normalised and defaults to x.
type Joint struct {
	Name     string
	Line     int
	Type     JointType
	Parent   string
	Child    string
	Origin   Pose
	Axis     spatial.Vec3
	Limit    *Limit
	Dynamics *Dynamics
	Mimic    *Mimic
}

// Robot is a parsed and validated URDF. Links and Joints keep the document's order.
type Robot struct {
	Name   string
	Links  []Link
	Joints []Joint
	// Root is the one link that is no joint's child.
	Root string
	// Warnings lists accepted irregularities (see Options.StrictInertia).
	Warnings []string
}

// Link returns the link called name, or nil.
func (r *Robot) Link(name string) *Link {
	for i := range r.Links {
		if r.Links[i].Name == name {
			return &r.Links[i]
		}
	}
	return nil
}

// ChildJoints returns the joints whose parent is the named link, sorted by joint name.
func (r *Robot) ChildJoints(link string) []*Joint {
	var out []*Joint
	for i := range r.Joints {
		if r.Joints[i].Parent == link {
			out = append(out, &r.Joints[i])
		}
	}
	sortJoints(out)
	return out
}
