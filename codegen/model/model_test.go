package model

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

func load(t *testing.T, path string, ff bool) *Robot {
	t.Helper()
	r, err := Load(path, urdf.Options{}, Options{FreeFlyer: ff})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The counts are the robots' published degrees of freedom (shared/robots/README.md).
func TestSharedRobotCounts(t *testing.T) {
	tests := []struct {
		file      string
		freeFlyer bool
		nq, nv    int
	}{
		{"iiwa.urdf", false, 7, 7},
		{"hyq.urdf", false, 12, 12},
		{"atlas.urdf", false, 30, 30},
		{"panda.urdf", false, 7, 7},
		{"fetch.urdf", false, 7, 7},
		{"panda_ext_24dof.urdf", false, 24, 24},
		{"go2.urdf", true, 19, 18},
		{"g1_29dof.urdf", true, 36, 35},
		{"h1_2.urdf", true, 58, 57},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			r := load(t, testrobots.Shared(t, tc.file), tc.freeFlyer)
			if r.NQ != tc.nq || r.NV != tc.nv {
				t.Errorf("nq, nv = %d, %d; want %d, %d", r.NQ, r.NV, tc.nq, tc.nv)
			}
			if r.FloatingBase() != tc.freeFlyer {
				t.Errorf("FloatingBase() = %v", r.FloatingBase())
			}
		})
	}
}

// Joint order is depth-first over all joints, fixed ones included, with siblings sorted by name;
// branchy.urdf declares its siblings out of order and hangs a movable joint under a fixed one.
func TestJointOrderAndTopology(t *testing.T) {
	r := load(t, testrobots.Own("branchy.urdf"), false)
	var names []string
	for _, j := range r.Joints {
		names = append(names, j.Name+":"+j.Type.String())
	}
	want := []string{"float_base:free-flyer", "mount_leg:continuous", "leg_knee:revolute",
		"b_leg_hip:revolute", "z_arm_roll:revolute", "arm_slide:prismatic", "arm_wrist:continuous"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("joint order (-want +got):\n%s", d)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"nq", r.NQ, 13},
		{"nv", r.NV, 12},
		{"parents", r.Parents(), []int{-1, 0, 1, 0, 0, 4, 5}},
		{"levels", r.Levels, [][]int{{0}, {1, 3, 4}, {2, 5}, {6}}},
		{"ancestors of arm_wrist", r.Ancestors[6], []int{0, 4, 5, 6}},
		{"subtree of z_arm_roll", r.Subtree[4], []int{4, 5, 6}},
		{"subtree of root", r.Subtree[0], []int{0, 1, 2, 3, 4, 5, 6}},
		{"depth", r.Depth(), 4},
		{"width", r.Width(), 3},
		{"q index of arm_wrist", r.Joints[6].Q, 12},
		{"v index of arm_wrist", r.Joints[6].V, 11},
	}
	for _, c := range checks {
		if d := cmp.Diff(c.want, c.got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, d)
		}
	}
	var frames []string
	for _, f := range r.Frames {
		frames = append(frames, f.Name)
	}
	if len(frames) != 11 || r.FrameIndex("world") < 0 || r.FrameIndex("foot3") < 0 || r.FrameIndex("tool") < 0 {
		t.Errorf("every link must be a frame, got %v", frames)
	}
	// The URDF axis "1 1 0" is normalised.
	if a := r.Joints[5].Axis; math.Abs(a.Norm()-1) > 1e-15 || math.Abs(a[0]-a[1]) > 1e-15 {
		t.Errorf("prismatic axis %v not normalised", a)
	}
	// Masses of bodies with fixed children are merged: base alone carries 4 kg, mount's 0.5 kg joins
	// mount_leg's parent body (the base), hand carries the tool.
	masses := []float64{4.5, 1.0, 0.7, 0.9, 1.2, 0.8, 0.4}
	for i, m := range masses {
		if math.Abs(r.Joints[i].Inertia.M-m) > 1e-12 {
			t.Errorf("body %s mass %g, want %g", r.Joints[i].Name, r.Joints[i].Inertia.M, m)
		}
	}
	if math.Abs(r.TotalMass()-9.5) > 1e-12 {
		t.Errorf("total mass %g, want 9.5", r.TotalMass())
	}
}

// Merging a fixed joint is exact: the welded body's 10 inertia parameters equal the sum of the two
// links' inertias each expressed in the body frame, computed here straight from the URDF numbers.
func TestFixedJointMergeIsExact(t *testing.T) {
	r := load(t, testrobots.Own("branchy.urdf"), false)
	hand := r.Joints[r.JointIndex("arm_wrist")].Inertia
	// hand: m 0.3 at (0,0,0.02), I = diag(4e-4, 4e-4, 2e-4); tool: m 0.1 at (0,0,0.01) in a frame at
	// (0,0,0.08) rotated about z (its diagonal tensor is symmetric about z, so the rotation drops out).
	want := [10]float64{
		0.4, 0, 0, 0.3*0.02 + 0.1*0.09,
		4e-4 + 0.3*0.02*0.02 + 1e-4 + 0.1*0.09*0.09, 0, 0,
		4e-4 + 0.3*0.02*0.02 + 1e-4 + 0.1*0.09*0.09, 0,
		2e-4 + 5e-5,
	}
	got := hand.Params()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("merged inertia %v, want %v", got, want)
		}
	}
}

// A URDF `floating` root joint and an added free-flyer describe the same robot: same counts, same
// joints, same bodies.
func TestFloatingJointEqualsAddedFreeFlyer(t *testing.T) {
	path := testrobots.Shared(t, "go2.urdf")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	floating := strings.Replace(string(data), `<robot name="go2_description">`, `<robot name="go2_description">
  <link name="world"/>
  <joint name="root_joint" type="floating"><parent link="world"/><child link="base"/></joint>`, 1)
	u, err := urdf.Parse([]byte(floating))
	if err != nil {
		t.Fatal(err)
	}
	viaURDF, err := Build(u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	added := load(t, path, true)
	if viaURDF.NQ != 19 || viaURDF.NV != 18 || added.NQ != viaURDF.NQ || added.NV != viaURDF.NV {
		t.Fatalf("floating joint nq, nv = %d, %d; added free-flyer %d, %d", viaURDF.NQ, viaURDF.NV, added.NQ, added.NV)
	}
	if d := cmp.Diff(added.Joints, viaURDF.Joints, cmp.Comparer(func(a, b float64) bool {
		return math.Abs(a-b) <= 1e-15
	})); d != "" {
		t.Errorf("joints differ (-added +urdf):\n%s", d)
	}
	if _, err := Build(u, Options{FreeFlyer: true}); err == nil || !strings.Contains(err.Error(), "root_joint") {
		t.Errorf("adding a second free-flyer: got %v, want an error naming the floating joint", err)
	}
}

func TestIntegrateKeepsUnitQuaternion(t *testing.T) {
	r := load(t, testrobots.Own("branchy.urdf"), false)
	rng := rand.New(rand.NewPCG(5, 6))
	q := r.RandomConfiguration(rng)
	v := make([]float64, r.NV)
	for i := range v {
		v[i] = 5 * rng.NormFloat64()
	}
	for range 100 {
		q = r.Integrate(q, v, 0.01)
	}
	n := math.Hypot(math.Hypot(q[3], q[4]), math.Hypot(q[5], q[6]))
	if math.Abs(n-1) > 1e-12 {
		t.Errorf("quaternion norm drifted to %.15g", n)
	}
	// A pure base translation in the body frame moves the base along its rotated x axis.
	q0 := r.Neutral()
	copy(q0[3:7], []float64{0, 0, math.Sin(0.5), math.Cos(0.5)}) // 1 rad about z
	dv := make([]float64, r.NV)
	dv[0] = 1
	q1 := r.Integrate(q0, dv, 2)
	want := spatial.Vec3{2 * math.Cos(1), 2 * math.Sin(1), 0}
	if got := (spatial.Vec3{q1[0], q1[1], q1[2]}); got.Sub(want).Norm() > 1e-12 {
		t.Errorf("base moved to %v, want %v", got, want)
	}
}
