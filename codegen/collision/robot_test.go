package collision

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
)

// A three-link chain on a base: a box base, a cylinder link, a link with a sphere and a missing mesh, and a
// link with a mesh on disk, scaled and placed by its collision origin.
const chainURDF = `<robot name="chain">
  <link name="base"><collision><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l1">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><origin xyz="0 0 0.15"/><geometry><cylinder radius="0.04" length="0.3"/></geometry></collision>
  </link>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.3"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l2">
    <inertial><origin xyz="0 0 0.1"/><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
    <collision><geometry><mesh filename="meshes/missing.stl"/></geometry></collision>
    <collision><geometry><mesh filename="meshes/missing2.stl"/></geometry></collision>
  </link>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0 0 0.3"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l3">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/><geometry><mesh filename="meshes/tetra.stl" scale="0.1 0.1 -0.2"/></geometry></collision>
  </link>
  <joint name="tool" type="fixed"><parent link="l3"/><child link="tip"/><origin xyz="0 0 0.2"/></joint>
  <link name="tip"><collision><geometry><sphere radius="0.02"/></geometry></collision></link>
</robot>`

func buildChain(t *testing.T) (*urdf.Robot, *model.Robot, *Model) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "meshes"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeBinarySTL(t, filepath.Join(dir, "meshes", "tetra.stl"), tetra)
	u, err := urdf.Parse([]byte(chainURDF))
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Build(u, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(u, r, Options{URDFDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return u, r, m
}

// buildURDF builds the collision model of a URDF document, meshes resolved from no folder.
func buildURDF(t *testing.T, doc string) *Model {
	t.Helper()
	u, err := urdf.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Build(u, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(u, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildCoversEveryShape(t *testing.T) {
	_, r, m := buildChain(t)
	bodyOf := map[string]int{}
	for _, f := range r.Frames {
		bodyOf[f.Name] = f.Joint
	}
	// every sampled point of each shape, placed in its body, lies in a sphere of that body
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		frame string
		pts   []spatial.Vec3 // in the frame's coordinates
	}{
		{"base", shift(boxPoints(spatial.Vec3{0.2, 0.2, 0.1}, rng), spatial.Vec3{0, 0, 0.05})},
		{"l1", shift(cylinderPoints(0.04, 0.3, rng), spatial.Vec3{0, 0, 0.15})},
		{"l2", spherePoints(0.05, rng)},
		// the tetrahedron's box [-1, 2] × [0, 3] × [-0.5, 0.25] scaled by (0.1, 0.1, -0.2), turned a
		// quarter about z and raised by 0.1
		{"l3", place(spatial.FromPose(spatial.RotZ(math.Pi/2), spatial.Vec3{0, 0, 0.1}),
			shift(boxPoints(spatial.Vec3{0.3, 0.3, 0.15}, rng), spatial.Vec3{0.05, 0.15, 0.025}))},
		{"tip", spherePoints(0.02, rng)},
	} {
		var own []Sphere
		for _, s := range m.Spheres {
			if r.Frames[s.Frame].Name == tc.frame {
				own = append(own, s.Local)
			}
		}
		if p, bad := uncovered(own, tc.pts); bad {
			t.Errorf("%s: point %v is in none of its %d spheres", tc.frame, p, len(own))
		}
	}
	// body coordinates are the frame's placed on the body
	for _, s := range m.Spheres {
		f := r.Frames[s.Frame]
		if s.Body != bodyOf[f.Name] {
			t.Errorf("sphere of %s on body %d, want %d", f.Name, s.Body, bodyOf[f.Name])
		}
		want := Transformed(f.Placement, []Sphere{s.Local})[0]
		if d := cmp.Diff(want, s.Sphere, cmpopts.EquateApprox(0, 1e-12)); d != "" {
			t.Errorf("%s: body sphere (-want +got):\n%s", f.Name, d)
		}
	}
}

func TestBuildFallbackAndPairs(t *testing.T) {
	u, _, m := buildChain(t)
	want := []string{"l2: mesh meshes/missing.stl not found", "l2: mesh meshes/missing2.stl not found"}
	if d := cmp.Diff(want, m.Approximated); d != "" {
		t.Errorf("Approximated (-want +got):\n%s", d)
	}
	// one fallback for the link however many of its meshes are missing: the segments to its centre of
	// mass (0, 0, 0.1) and to j3's origin (0, 0, 0.3)
	var l2 []Sphere
	for _, s := range m.Spheres {
		if s.Body == 1 {
			l2 = append(l2, s.Local)
		}
	}
	fb := Fallback(u, u.Link("l2"), DefaultFallbackRadius)
	if d := cmp.Diff(append([]Sphere{{Radius: 0.05}}, fb...), l2, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("l2's spheres (-want +got):\n%s", d)
	}
	if len(fb) != 1+2+6 {
		t.Errorf("fallback of %d spheres, want 9", len(fb))
	}
	// bodies: world (base) -1, j1 0, j2 1, j3 2 (with tip); parent-child pairs are left out, and the world
	// and l2 overlap whatever j1 and j2 do only if their spheres reach, which they do not
	wantPairs := []Pair{{-1, 1}, {-1, 2}, {0, 2}}
	if d := cmp.Diff(wantPairs, m.Pairs); d != "" {
		t.Errorf("Pairs (-want +got):\n%s", d)
	}
	for i := 1; i < len(m.Spheres); i++ {
		if m.Spheres[i].Body < m.Spheres[i-1].Body {
			t.Fatalf("spheres not grouped by body: %d after %d", m.Spheres[i].Body, m.Spheres[i-1].Body)
		}
	}
}

func TestBuildAlwaysOverlapping(t *testing.T) {
	// two revolute joints at one point: the grandchild's big sphere always meets the world's
	m := buildURDF(t, `<robot name="knot">
  <link name="base"><collision><geometry><sphere radius="0.2"/></geometry></collision></link>
  <joint name="a" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="a"/>
  <joint name="b" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="b"><collision><origin xyz="0.1 0 0"/><geometry><sphere radius="0.2"/></geometry></collision></link>
</robot>`)
	if d := cmp.Diff([]Pair{{-1, 1}}, m.AlwaysOverlapping); d != "" {
		t.Errorf("AlwaysOverlapping (-want +got):\n%s", d)
	}
	if len(m.Pairs) != 0 {
		t.Errorf("Pairs %v, want none", m.Pairs)
	}
}

func shift(pts []spatial.Vec3, by spatial.Vec3) []spatial.Vec3 {
	out := make([]spatial.Vec3, len(pts))
	for i, p := range pts {
		out[i] = p.Add(by)
	}
	return out
}

// place maps points from x's child frame to its parent frame.
func place(x spatial.Transform, pts []spatial.Vec3) []spatial.Vec3 {
	out := make([]spatial.Vec3, len(pts))
	for i, p := range pts {
		out[i] = x.R.Add(x.E.TMulVec(p))
	}
	return out
}

func spherePoints(radius float64, rng *rand.Rand) []spatial.Vec3 {
	pts := []spatial.Vec3{{}}
	for range 500 {
		d := spatial.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		pts = append(pts, d.Scale(radius/d.Norm()))
	}
	return pts
}

func TestBuildNeutralOverlapping(t *testing.T) {
	// two prismatic fingers that touch when closed (q = 0) but not when open
	m := buildURDF(t, `<robot name="gripper">
  <link name="palm"/>
  <joint name="left" type="prismatic"><parent link="palm"/><child link="left"/><origin xyz="0 0.01 0"/><axis xyz="0 1 0"/><limit lower="0" upper="0.1" effort="1" velocity="1"/></joint>
  <link name="left"><collision><geometry><sphere radius="0.012"/></geometry></collision></link>
  <joint name="right" type="prismatic"><parent link="palm"/><child link="right"/><origin xyz="0 -0.01 0"/><axis xyz="0 -1 0"/><limit lower="0" upper="0.1" effort="1" velocity="1"/></joint>
  <link name="right"><collision><geometry><sphere radius="0.012"/></geometry></collision></link>
</robot>`)
	got := [3][]Pair{m.Pairs, m.AlwaysOverlapping, m.NeutralOverlapping}
	if d := cmp.Diff([3][]Pair{nil, nil, {{0, 1}}}, got); d != "" {
		t.Errorf("pairs, always and neutral overlapping (-want +got):\n%s", d)
	}
}
