package model_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

func exported(t *testing.T, path string, ff bool) (*model.Robot, model.ExportedModel) {
	t.Helper()
	r, err := model.Load(path, urdf.Options{}, model.Options{FreeFlyer: ff})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m model.ExportedModel
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("reading the export back: %v", err)
	}
	return r, m
}

var approx = cmpopts.EquateApprox(0, 1e-15)

func ptr(x float64) *float64 { return &x }

// Known values of branchy.urdf, worked out by hand from the URDF: placements compose the URDF origins of
// fixed joints, axes are normalised, masses and inertias of fixed children are merged.
func TestExportKnownValues(t *testing.T) {
	_, m := exported(t, testrobots.Own("branchy.urdf"), false)
	joint := func(name string) model.ExportedJoint {
		for _, j := range m.Joints {
			if j.Name == name {
				return j
			}
		}
		t.Fatalf("no joint %q in the export", name)
		return model.ExportedJoint{}
	}
	frame := func(name string) model.ExportedFrame {
		for _, f := range m.Frames {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no frame %q in the export", name)
		return model.ExportedFrame{}
	}
	pose := func(rot spatial.Mat3, pos spatial.Vec3) model.ExportedPose {
		return model.ExportedPose{Rotation: rot, Translation: pos}
	}
	s := 1 / math.Sqrt2
	// the hand and the tool welded to it: 0.3 kg at z 0.02 and 0.1 kg at z 0.09, tensors diagonal about z
	handCOM := (0.3*0.02 + 0.1*0.09) / 0.4
	handIxx := 4e-4 + 0.3*(0.02-handCOM)*(0.02-handCOM) + 1e-4 + 0.1*(0.09-handCOM)*(0.09-handCOM)
	tests := []struct {
		what      string
		got, want any
	}{
		{"sizes", []int{m.NQ, m.NV, len(m.Joints), len(m.Frames)}, []int{13, 12, 7, 11}},
		{"name", m.Name, "branchy"},
		{"floating base", m.FloatingBase, true},
		{"gravity", m.Gravity, [3]float64{0, 0, -9.81}},
		{"conventions", strings.Contains(m.Conventions, "R·p + t in the parent frame"), true},
		{"float_base type, indices", []any{joint("float_base").Type, joint("float_base").Parent,
			joint("float_base").QIndex, joint("float_base").NQ, joint("float_base").NV}, []any{"free-flyer", -1, 0, 7, 6}},
		{"float_base placement (URDF origin)", joint("float_base").Placement,
			pose(spatial.RPY(spatial.Vec3{0.1, 0.2, -0.3}), spatial.Vec3{0.1, -0.2, 0.5})},
		{"float_base limits", joint("float_base").Limits, model.ExportedLimits{}},
		{"b_leg_hip placement", joint("b_leg_hip").Placement, pose(spatial.Identity3, spatial.Vec3{-0.2, -0.1, 0})},
		{"b_leg_hip axis", joint("b_leg_hip").Axis, [3]float64{0, 0, -1}},
		{"b_leg_hip limits", joint("b_leg_hip").Limits,
			model.ExportedLimits{Lower: ptr(-1), Upper: ptr(1), Effort: ptr(40), Velocity: ptr(10)}},
		// under the fixed a_mount (z rotation by 1 rad at (-0.1, 0.1, 0)), 0.05 down
		{"mount_leg placement", joint("mount_leg").Placement, pose(spatial.RotZ(1), spatial.Vec3{-0.1, 0.1, -0.05})},
		{"mount_leg parent, q, v", []int{joint("mount_leg").Parent, joint("mount_leg").QIndex, joint("mount_leg").VIndex},
			[]int{0, 7, 6}},
		{"mount_leg (continuous) limits", joint("mount_leg").Limits, model.ExportedLimits{}},
		{"arm_slide axis (URDF 1 1 0)", joint("arm_slide").Axis, [3]float64{s, s, 0}},
		{"arm_slide type", joint("arm_slide").Type, "prismatic"},
		{"z_arm_roll damping", joint("z_arm_roll").Damping, 0.1},
		{"arm_wrist axis (URDF 0 0 2)", joint("arm_wrist").Axis, [3]float64{0, 0, 1}},
		{"hand inertia (tool merged)", joint("arm_wrist").Inertia, model.ExportedInertia{Mass: 0.4,
			COM:        [3]float64{0, 0, handCOM},
			Rotational: [3][3]float64{{handIxx, 0, 0}, {0, handIxx, 0}, {0, 0, 2e-4 + 5e-5}}}},
		{"world frame", frame("world"), model.ExportedFrame{Name: "world", Joint: -1,
			Placement: pose(spatial.Identity3, spatial.Vec3{})}},
		{"mount frame on the base body", frame("mount"), model.ExportedFrame{Name: "mount", Joint: 0,
			Placement: pose(spatial.RotZ(1), spatial.Vec3{-0.1, 0.1, 0})}},
		{"tool frame on the hand body", frame("tool"), model.ExportedFrame{Name: "tool", Joint: 6,
			Placement: pose(spatial.RotZ(0.7), spatial.Vec3{0, 0, 0.08})}},
		{"foot3 frame", frame("foot3"), model.ExportedFrame{Name: "foot3", Joint: 3,
			Placement: pose(spatial.Identity3, spatial.Vec3{0, 0, -0.2})}},
	}
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, tc.got, approx); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.what, d)
		}
	}
}

// The export reads back to the model: placements give the same transforms, inertias the same 10
// parameters, and composing the exported poses as the conventions say (a point p of a child frame is
// R·p + t in its parent) reproduces the reference forward kinematics at random configurations.
func TestExportRoundTrip(t *testing.T) {
	for _, rb := range testrobots.All(t) {
		t.Run(rb.Name, func(t *testing.T) {
			r, m := exported(t, rb.Path, rb.FreeFlyer)
			if m.Name != r.Name || m.NQ != r.NQ || m.NV != r.NV || len(m.Joints) != len(r.Joints) || len(m.Frames) != len(r.Frames) {
				t.Fatalf("export sizes %s %d %d %d %d, model %s %d %d %d %d", m.Name, m.NQ, m.NV, len(m.Joints),
					len(m.Frames), r.Name, r.NQ, r.NV, len(r.Joints), len(r.Frames))
			}
			for i, j := range r.Joints {
				e := m.Joints[i]
				got := []any{e.Name, e.Type, e.Parent, e.QIndex, e.VIndex, e.Link, e.Placement.Transform(),
					e.Inertia.Inertia().Params()}
				want := []any{j.Name, j.Type.String(), j.Parent, j.Q, j.V, j.Link, j.Placement, j.Inertia.Params()}
				// inertias pass through the centre of mass and back: rounding of the parallel-axis terms
				if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-14)); d != "" {
					t.Errorf("joint %d (-model +export):\n%s", i, d)
				}
			}
			for i, f := range r.Frames {
				e := m.Frames[i]
				if d := cmp.Diff([]any{f.Name, f.Joint, f.Placement}, []any{e.Name, e.Joint, e.Placement.Transform()}); d != "" {
					t.Errorf("frame %d (-model +export):\n%s", i, d)
				}
			}
			rng := rand.New(rand.NewPCG(7, 8))
			for range 3 {
				q := r.RandomConfiguration(rng)
				want := ref.FramePoses(r, q)
				got := framePoses(m, q)
				if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
					t.Fatalf("forward kinematics from the export at q = %v (-ref +export):\n%s", q, d)
				}
			}
		})
	}
}

// framePoses is forward kinematics written from the exported numbers and the stated conventions only.
func framePoses(m model.ExportedModel, q []float64) []ref.Pose {
	type pose struct {
		rot spatial.Mat3
		pos spatial.Vec3
	}
	// child pose in parent composed onto the parent's world pose: R = R_p·R_c, p = p_p + R_p·p_c
	then := func(parent, child pose) pose {
		return pose{parent.rot.Mul(child.rot), parent.pos.Add(parent.rot.MulVec(child.pos))}
	}
	world := pose{rot: spatial.Identity3}
	bodies := make([]pose, len(m.Joints))
	for i, j := range m.Joints {
		parent := world
		if j.Parent >= 0 {
			parent = bodies[j.Parent]
		}
		var motion pose
		qj := q[j.QIndex:]
		switch j.Type {
		case "revolute", "continuous":
			motion = pose{rot: spatial.AxisAngle(j.Axis, qj[0])}
		case "prismatic":
			motion = pose{rot: spatial.Identity3, pos: spatial.Vec3(j.Axis).Scale(qj[0])}
		case "free-flyer":
			motion = pose{rot: spatial.QuatToMat(qj[3], qj[4], qj[5], qj[6]), pos: spatial.Vec3{qj[0], qj[1], qj[2]}}
		}
		bodies[i] = then(then(parent, pose{j.Placement.Rotation, j.Placement.Translation}), motion)
	}
	out := make([]ref.Pose, len(m.Frames))
	for i, f := range m.Frames {
		parent := world
		if f.Joint >= 0 {
			parent = bodies[f.Joint]
		}
		p := then(parent, pose{f.Placement.Rotation, f.Placement.Translation})
		out[i] = ref.Pose{Rotation: p.rot, Position: p.pos}
	}
	return out
}
