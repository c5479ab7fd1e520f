package collision

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// uncovered returns the first point of pts in none of the spheres.
func uncovered(spheres []Sphere, pts []spatial.Vec3) (spatial.Vec3, bool) {
	for _, p := range pts {
		if !coveredBy(spheres, p) {
			return p, true
		}
	}
	return spatial.Vec3{}, false
}

func coveredBy(spheres []Sphere, p spatial.Vec3) bool {
	for _, s := range spheres {
		if s.Contains(p) {
			return true
		}
	}
	return false
}

// boxPoints samples a box centred on the origin: its corners, a lattice through it (faces included) and
// random points.
func boxPoints(size spatial.Vec3, rng *rand.Rand) []spatial.Vec3 {
	var pts []spatial.Vec3
	const n = 12
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			for k := 0; k <= n; k++ {
				pts = append(pts, spatial.Vec3{size[0] * (float64(i)/n - 0.5), size[1] * (float64(j)/n - 0.5),
					size[2] * (float64(k)/n - 0.5)})
			}
		}
	}
	for range 2000 {
		pts = append(pts, spatial.Vec3{size[0] * (rng.Float64() - 0.5), size[1] * (rng.Float64() - 0.5),
			size[2] * (rng.Float64() - 0.5)})
	}
	return pts
}

// cylinderPoints samples a cylinder about z: its rim circles, its axis and random points of its volume.
func cylinderPoints(radius, length float64, rng *rand.Rand) []spatial.Vec3 {
	var pts []spatial.Vec3
	for i := 0; i < 64; i++ {
		a := 2 * math.Pi * float64(i) / 64
		for _, z := range []float64{-length / 2, 0, length / 2} {
			pts = append(pts, spatial.Vec3{radius * math.Cos(a), radius * math.Sin(a), z}, spatial.Vec3{0, 0, z})
		}
	}
	for range 3000 {
		a, rr := 2*math.Pi*rng.Float64(), radius*math.Sqrt(rng.Float64())
		pts = append(pts, spatial.Vec3{rr * math.Cos(a), rr * math.Sin(a), length * (rng.Float64() - 0.5)})
	}
	return pts
}

func TestCoverBoxContainsTheBox(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    spatial.Vec3
		spheres int
	}{
		{"cube", spatial.Vec3{0.2, 0.2, 0.2}, 8},
		{"slab", spatial.Vec3{0.4, 0.3, 0.05}, 8 * 6 * 1},
		{"rod", spatial.Vec3{1, 0.02, 0.03}, 8},
		{"link", spatial.Vec3{0.11, 0.12, 0.28}, 2 * 3 * 6},
		{"flat", spatial.Vec3{0.5, 0.5, 0}, 8 * 8},
		{"small", spatial.Vec3{0.022, 0.0088, 0.0038}, 2},
		{"point", spatial.Vec3{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := CoverBox(tc.size)
			if len(s) != tc.spheres {
				t.Errorf("%d spheres, want %d", len(s), tc.spheres)
			}
			if p, bad := uncovered(s, boxPoints(tc.size, rand.New(rand.NewPCG(3, 4)))); bad {
				t.Errorf("point %v of the box is in no sphere", p)
			}
			// no sphere reaches farther from the box than its own radius
			for _, b := range s {
				for k := range 3 {
					if math.Abs(b.Center[k]) > tc.size[k]/2+1e-12 {
						t.Fatalf("sphere %v is centred outside the box", b)
					}
				}
			}
		})
	}
}

func TestCoverCylinderContainsTheCylinder(t *testing.T) {
	for _, tc := range []struct {
		name           string
		radius, length float64
	}{
		{"squat", 0.1, 0.05},
		{"long", 0.03, 0.4},
		{"even", 0.05, 0.1},
		{"disc", 0.2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := CoverCylinder(tc.radius, tc.length)
			if p, bad := uncovered(s, cylinderPoints(tc.radius, tc.length, rand.New(rand.NewPCG(5, 6)))); bad {
				t.Errorf("point %v of the cylinder is in no sphere", p)
			}
			if full := CoverBox(spatial.Vec3{2 * tc.radius, 2 * tc.radius, tc.length}); len(s) > len(full) {
				t.Errorf("%d spheres, more than the bounding box's %d", len(s), len(full))
			}
		})
	}
}

func TestCoverSegments(t *testing.T) {
	got := CoverSegments(spatial.Vec3{}, []spatial.Vec3{{0, 0, 0.25}, {0.1, 0, 0}}, 0.1)
	want := []Sphere{
		{spatial.Vec3{0, 0, 0}, 0.1},
		{spatial.Vec3{0, 0, 0.25 / 3}, 0.1}, {spatial.Vec3{0, 0, 0.5 / 3}, 0.1}, {spatial.Vec3{0, 0, 0.25}, 0.1},
		{spatial.Vec3{0.1, 0, 0}, 0.1},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("CoverSegments (-want +got):\n%s", d)
	}
}

func TestTransformed(t *testing.T) {
	x := spatial.FromPose(spatial.RotZ(math.Pi/2), spatial.Vec3{1, 2, 3})
	got := Transformed(x, []Sphere{{spatial.Vec3{1, 0, 0}, 0.5}})
	want := []Sphere{{spatial.Vec3{1, 3, 3}, 0.5}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("Transformed (-want +got):\n%s", d)
	}
}
