package model

import (
	"encoding/json"
	"io"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// ExportConventions states how to read the exported model; it is written into every export.
const ExportConventions = "Placements are {rotation R (row-major 3x3), translation t}: a point p in the child " +
	"frame is R·p + t in the parent frame (R's columns are the child's axes in parent coordinates). A joint's " +
	"placement is its frame in its parent body's frame (parent -1: the world) at q = 0; a frame's placement is " +
	"the frame in the body frame of its joint (joint -1: the world). Joint motion, body frame in joint frame: " +
	"revolute and continuous rotate by q about axis, prismatic translate by q·axis, free-flyer " +
	"q = [x y z qx qy qz qw] is the body pose (Hamilton quaternion, scalar last, normalised before use). " +
	"Velocities: one coordinate per revolute/continuous/prismatic joint; a free-flyer's is [v_lin; omega] in " +
	"the body frame. Spatial vectors [angular; linear]. Inertia: mass, centre of mass in the body frame, " +
	"rotational inertia about the centre of mass in body axes, links on fixed joints merged. Gravity is the " +
	"linear acceleration in world coordinates. Limits are null where the URDF gives none; damping is recorded " +
	"from the URDF and not applied by the dynamics; mimic joints are independent joints."

// ExportedModel is the JSON form of a Robot: the kinematic tree in plain numbers, for tools outside Go
// (the pure-JAX peer of the benchmarks reads it).
type ExportedModel struct {
	Conventions  string          `json:"conventions"`
	Name         string          `json:"name"`
	NQ           int             `json:"nq"`
	NV           int             `json:"nv"`
	FloatingBase bool            `json:"floating_base"`
	Gravity      [3]float64      `json:"gravity"`
	Joints       []ExportedJoint `json:"joints"`
	Frames       []ExportedFrame `json:"frames"`
}

// ExportedPose is a placement: a point p in the child frame is Rotation·p + Translation in the parent.
type ExportedPose struct {
	Rotation    [3][3]float64 `json:"rotation"`
	Translation [3]float64    `json:"translation"`
}

// ExportedInertia is a body inertia in its body frame.
type ExportedInertia struct {
	Mass float64 `json:"mass"`
	// COM is the centre of mass (zero for a massless body).
	COM [3]float64 `json:"com"`
	// Rotational is the rotational inertia about the centre of mass, in body axes.
	Rotational [3][3]float64 `json:"rotational_inertia"`
}

// ExportedLimits holds a joint's URDF limits; nil where the URDF gives none.
type ExportedLimits struct {
	Lower    *float64 `json:"lower"`
	Upper    *float64 `json:"upper"`
	Effort   *float64 `json:"effort"`
	Velocity *float64 `json:"velocity"`
}

// ExportedMimic is a URDF mimic record (informational).
type ExportedMimic struct {
	Joint      string  `json:"joint"`
	Multiplier float64 `json:"multiplier"`
	Offset     float64 `json:"offset"`
}

// ExportedJoint is a movable joint and the body it carries.
type ExportedJoint struct {
	Name string `json:"name"`
	// Type is revolute, continuous, prismatic or free-flyer.
	Type   string `json:"type"`
	Parent int    `json:"parent"`
	QIndex int    `json:"q_index"`
	VIndex int    `json:"v_index"`
	NQ     int    `json:"nq"`
	NV     int    `json:"nv"`
	Link   string `json:"link"`
	// Axis is the unit axis in the joint frame (zero for a free-flyer).
	Axis      [3]float64      `json:"axis"`
	Placement ExportedPose    `json:"placement"`
	Inertia   ExportedInertia `json:"inertia"`
	Limits    ExportedLimits  `json:"limits"`
	Damping   float64         `json:"damping"`
	Mimic     *ExportedMimic  `json:"mimic,omitempty"`
}

// ExportedFrame is a URDF link placed on a joint's body.
type ExportedFrame struct {
	Name      string       `json:"name"`
	Joint     int          `json:"joint"`
	Placement ExportedPose `json:"placement"`
}

// exportPose turns a parent-to-child transform into the child's pose in the parent.
func exportPose(x spatial.Transform) ExportedPose {
	rot, pos := x.Pose()
	return ExportedPose{Rotation: rot, Translation: pos}
}

// Transform returns the parent-to-child transform of the pose, the inverse of the export.
func (p ExportedPose) Transform() spatial.Transform {
	return spatial.FromPose(p.Rotation, p.Translation)
}

// exportInertia splits an inertia about the body origin into mass, centre of mass and the rotational inertia
// about the centre of mass (parallel axis theorem: I_c = I_o + m [c]×[c]×).
func exportInertia(in spatial.Inertia) ExportedInertia {
	if in.M == 0 {
		return ExportedInertia{Rotational: in.I}
	}
	c := in.H.Scale(1 / in.M)
	cx := c.Skew()
	ic := in.I.Add(cx.Mul(cx).Scale(in.M))
	// Symmetrise: the sum above leaves rounding-level asymmetry that readers should not have to handle.
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			s := (ic[i][j] + ic[j][i]) / 2
			ic[i][j], ic[j][i] = s, s
		}
	}
	return ExportedInertia{Mass: in.M, COM: c, Rotational: ic}
}

// Inertia returns the inertia about the body origin, the inverse of the export.
func (e ExportedInertia) Inertia() spatial.Inertia {
	return spatial.InertiaFromCOM(e.Mass, e.COM, e.Rotational)
}

// Export returns the JSON form of the robot.
func (r *Robot) Export() ExportedModel {
	m := ExportedModel{Conventions: ExportConventions, Name: r.Name, NQ: r.NQ, NV: r.NV,
		FloatingBase: r.FloatingBase(), Gravity: r.Gravity, Joints: []ExportedJoint{}, Frames: []ExportedFrame{}}
	for _, j := range r.Joints {
		ej := ExportedJoint{Name: j.Name, Type: j.Type.String(), Parent: j.Parent, QIndex: j.Q, VIndex: j.V,
			NQ: j.Type.NQ(), NV: j.Type.NV(), Link: j.Link, Axis: j.Axis, Placement: exportPose(j.Placement),
			Inertia: exportInertia(j.Inertia), Damping: j.Damping}
		l := j.Limits
		if l.Bounded {
			ej.Limits.Lower, ej.Limits.Upper = &l.Lower, &l.Upper
		}
		if l.Rated {
			ej.Limits.Effort, ej.Limits.Velocity = &l.Effort, &l.Velocity
		}
		if j.Mimic != nil {
			ej.Mimic = &ExportedMimic{Joint: j.Mimic.Joint, Multiplier: j.Mimic.Multiplier, Offset: j.Mimic.Offset}
		}
		m.Joints = append(m.Joints, ej)
	}
	for _, f := range r.Frames {
		m.Frames = append(m.Frames, ExportedFrame{Name: f.Name, Joint: f.Joint, Placement: exportPose(f.Placement)})
	}
	return m
}

// WriteJSON writes the robot's kinematic tree as indented JSON (ExportedModel). Go's encoder writes the
// shortest decimal that reads back to the same float64, so the numbers round-trip exactly.
func (r *Robot) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Export())
}
