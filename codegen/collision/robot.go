package collision

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
)

// DefaultFallbackRadius is the radius (m) of the spheres that stand for a mesh whose file cannot be read.
const DefaultFallbackRadius = 0.05

// Samples is how many random configurations (a fixed seed) decide which body pairs always overlap.
const Samples = 200

// Options control how a robot's collision spheres are made.
type Options struct {
	// URDFDir is the folder mesh filenames are resolved against (ResolveMesh).
	URDFDir string
	// FallbackRadius replaces DefaultFallbackRadius when positive.
	FallbackRadius float64
}

// BodySphere is one covering sphere: in the coordinates of the body that carries it and of the frame (URDF
// link) whose collision element it covers.
type BodySphere struct {
	// Body is the movable joint whose body carries the sphere, -1 for the world.
	Body int
	// Frame indexes the robot's frames.
	Frame int
	// Sphere is in body coordinates, Local in the frame's.
	Sphere Sphere
	Local  Sphere
}

// Pair is two bodies (A < B; -1 the world).
type Pair struct{ A, B int }

// Model is a robot's collision spheres and the body pairs checked against each other.
type Model struct {
	// Spheres are grouped by body, the world's first, then in joint order.
	Spheres []BodySphere
	// Pairs are the body pairs whose spheres are checked for self-collision: every pair of bodies with
	// spheres except a body and its parent (the world for a root), pairs that overlap in every sampled
	// configuration, whose approximations touch whatever the joints do (AlwaysOverlapping), and pairs that
	// overlap at the neutral configuration, every joint at 0 clamped into its limits (NeutralOverlapping: a
	// closed gripper's fingers, say), MoveIt's setup assistant's "always" and "default" rules.
	Pairs              []Pair
	AlwaysOverlapping  []Pair
	NeutralOverlapping []Pair
	// Approximated says, per link, which mesh was approximated by Fallback and why.
	Approximated []string
	// FallbackRadius is the radius the approximations used.
	FallbackRadius float64
}

// Build makes the collision model of r, whose URDF is u: each link's <collision> elements covered by spheres
// (Cover), bound to the body the link is welded to.
func Build(u *urdf.Robot, r *model.Robot, opt Options) (*Model, error) {
	m := &Model{FallbackRadius: opt.FallbackRadius}
	if m.FallbackRadius <= 0 {
		m.FallbackRadius = DefaultFallbackRadius
	}
	for fi, f := range r.Frames {
		link := u.Link(f.Name)
		if link == nil {
			return nil, fmt.Errorf("collision: frame %q is no URDF link", f.Name)
		}
		var local []Sphere
		fellBack := false
		for _, c := range link.Collisions {
			s, why, err := Cover(c.Geometry, opt.URDFDir)
			if err != nil {
				return nil, fmt.Errorf("collision: link %q: %w", f.Name, err)
			}
			if why != "" {
				m.Approximated = append(m.Approximated, fmt.Sprintf("%s: %s", f.Name, why))
				if !fellBack {
					local = append(local, Fallback(u, link, m.FallbackRadius)...)
				}
				fellBack = true
				continue
			}
			local = append(local, Transformed(c.Origin.Transform(), s)...)
		}
		for i, s := range local {
			m.Spheres = append(m.Spheres, BodySphere{Body: f.Joint, Frame: fi, Local: s,
				Sphere: Transformed(f.Placement, local[i:i+1])[0]})
		}
	}
	slices.SortStableFunc(m.Spheres, func(a, b BodySphere) int { return a.Body - b.Body })
	m.pairs(r)
	return m, nil
}

// Cover covers one collision geometry by spheres in its own coordinates. A mesh is covered by its
// bounding box (scaled as the URDF says) when its file is found and read; otherwise Cover returns no
// spheres and why, and the caller approximates the link (Fallback).
func Cover(g urdf.Geometry, urdfDir string) (spheres []Sphere, why string, err error) {
	switch g.Kind {
	case urdf.Sphere:
		return []Sphere{{Radius: g.Size[0]}}, "", nil
	case urdf.Box:
		return CoverBox(spatial.Vec3{g.Size[0], g.Size[1], g.Size[2]}), "", nil
	case urdf.Cylinder:
		return CoverCylinder(g.Size[0], g.Size[1]), "", nil
	case urdf.Mesh:
		path := ResolveMesh(g.Filename, urdfDir)
		if path == "" {
			return nil, fmt.Sprintf("mesh %s not found", g.Filename), nil
		}
		lo, hi, err := MeshBounds(path)
		if err != nil {
			return nil, fmt.Sprintf("mesh %s not read (%v)", g.Filename, err), nil
		}
		var size, centre spatial.Vec3
		for k := range 3 {
			a, b := lo[k]*g.Scale[k], hi[k]*g.Scale[k]
			size[k], centre[k] = max(a, b)-min(a, b), (a+b)/2
		}
		return Transformed(spatial.Transform{E: spatial.Identity3, R: centre}, CoverBox(size)), "", nil
	}
	return nil, "", fmt.Errorf("unknown geometry kind %d", g.Kind)
}

// Fallback approximates a link whose mesh cannot be read, in the link's coordinates: spheres of the given
// radius along the segments from the link's origin to its centre of mass and to the origin of each child
// joint, the stretch of a serial link that its mesh usually spans. It is not a cover of the real shape.
func Fallback(u *urdf.Robot, link *urdf.Link, radius float64) []Sphere {
	var ends []spatial.Vec3
	if in := link.Inertial; in != nil && in.Mass > 0 {
		ends = append(ends, in.Origin.XYZ)
	}
	for _, j := range u.ChildJoints(link.Name) {
		ends = append(ends, j.Origin.XYZ)
	}
	return CoverSegments(spatial.Vec3{}, ends, radius)
}

// pairs lists the body pairs checked for self-collision (see Model.Pairs).
func (m *Model) pairs(r *model.Robot) {
	var bodies []int
	for _, s := range m.Spheres {
		if len(bodies) == 0 || bodies[len(bodies)-1] != s.Body {
			bodies = append(bodies, s.Body)
		}
	}
	parent := func(b int) int {
		if b < 0 {
			return -2
		}
		return r.Joints[b].Parent
	}
	var candidates []Pair
	for i, a := range bodies {
		for _, b := range bodies[i+1:] {
			if parent(b) != a && parent(a) != b {
				candidates = append(candidates, Pair{a, b})
			}
		}
	}
	always := make([]bool, len(candidates))
	for i := range always {
		always[i] = true
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range Samples {
		world := m.worldSpheres(r, r.RandomConfiguration(rng))
		for i, p := range candidates {
			always[i] = always[i] && overlap(world[p.A], world[p.B])
		}
	}
	neutral := m.worldSpheres(r, Neutral(r))
	m.Pairs, m.AlwaysOverlapping, m.NeutralOverlapping = nil, nil, nil
	for i, p := range candidates {
		switch {
		case always[i]:
			m.AlwaysOverlapping = append(m.AlwaysOverlapping, p)
		case overlap(neutral[p.A], neutral[p.B]):
			m.NeutralOverlapping = append(m.NeutralOverlapping, p)
		default:
			m.Pairs = append(m.Pairs, p)
		}
	}
}

// Neutral is the configuration with every coordinate at the robot's neutral value (model.Robot.Neutral)
// clamped into its joint's limits.
func Neutral(r *model.Robot) []float64 {
	q := r.Neutral()
	for _, j := range r.Joints {
		if l := j.Limits; l.Bounded {
			q[j.Q] = min(max(q[j.Q], l.Lower), l.Upper)
		}
	}
	return q
}

// worldSpheres places every sphere in the world at q, grouped by body.
func (m *Model) worldSpheres(r *model.Robot, q []float64) map[int][]Sphere {
	xs := ref.BodyTransforms(r, q)
	out := map[int][]Sphere{}
	for _, s := range m.Spheres {
		w := s.Sphere
		if s.Body >= 0 {
			w = Transformed(xs[s.Body], []Sphere{w})[0]
		}
		out[s.Body] = append(out[s.Body], w)
	}
	return out
}

// overlap reports whether some sphere of a meets some sphere of b.
func overlap(a, b []Sphere) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Center.Sub(y.Center).Norm() < x.Radius+y.Radius {
				return true
			}
		}
	}
	return false
}
