package emit

import (
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/collision"
	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// CollisionInfo is metadata.json's `collision`: the covering spheres in their links' coordinates, so that a
// check can place them with any forward kinematics, and the body pairs checked for self-collision.
type CollisionInfo struct {
	Spheres []CollisionSphere `json:"spheres"`
	// SelfPairs are the body pairs (joint indices, -1 the world) whose spheres are checked against each
	// other; AlwaysOverlapping and NeutralOverlapping the non-adjacent pairs left out because they overlap in
	// every sampled configuration or at the neutral one (collision.Model).
	SelfPairs          [][2]int `json:"self_pairs"`
	AlwaysOverlapping  [][2]int `json:"always_overlapping"`
	NeutralOverlapping [][2]int `json:"neutral_overlapping"`
	// Approximated lists the meshes that could not be read and were approximated along their links.
	Approximated   []string `json:"approximated"`
	FallbackRadius float64  `json:"fallback_radius"`
}

// CollisionSphere is one covering sphere: its link (frame), its body and its centre in the link's
// coordinates.
type CollisionSphere struct {
	Frame  string     `json:"frame"`
	Body   int        `json:"body"`
	Center [3]float64 `json:"center"`
	Radius float64    `json:"radius"`
}

func collisionInfo(m *collision.Model, r *model.Robot) *CollisionInfo {
	info := &CollisionInfo{Spheres: []CollisionSphere{}, SelfPairs: pairList(m.Pairs),
		AlwaysOverlapping: pairList(m.AlwaysOverlapping), NeutralOverlapping: pairList(m.NeutralOverlapping),
		Approximated:   append([]string{}, m.Approximated...),
		FallbackRadius: m.FallbackRadius}
	for _, s := range m.Spheres {
		info.Spheres = append(info.Spheres, CollisionSphere{Frame: r.Frames[s.Frame].Name, Body: s.Body,
			Center: s.Local.Center, Radius: s.Local.Radius})
	}
	return info
}

func pairList(ps []collision.Pair) [][2]int {
	out := [][2]int{}
	for _, p := range ps {
		out = append(out, [2]int{p.A, p.B})
	}
	return out
}

// emitCollision writes struct RobotCollision, the spheres and pairs that kernels/grid/collision.cuh scores,
// and defines GRID_HAS_COLLISION.
func emitCollision(w *writer, m *collision.Model, r *model.Robot) {
	nb := len(r.Joints)
	// first[b + 1] is the first sphere of body b (-1 the world), first[nb + 1] the count
	first := make([]int, nb+2)
	for _, s := range m.Spheres {
		first[s.Body+2]++
	}
	for b := 1; b < len(first); b++ {
		first[b] += first[b-1]
	}
	w.comment("Covering spheres of the URDF collision shapes (codegen/collision; built with -collision), for",
		"grid/collision.cuh: the spheres grouped by body (-1 the world), centres in body coordinates, and the",
		"body pairs checked for self-collision (no parent-child pairs, none that overlap in every configuration",
		"or at the neutral one).")
	w.line("#define GRID_HAS_COLLISION 1")
	w.block("struct RobotCollision", func() {
		w.line("static constexpr int NS = %d, NPAIRS = %d;", len(m.Spheres), len(m.Pairs))
		w.line("// spheres [first[b + 1], first[b + 2]) are body b's")
		w.line("static constexpr int first[%d] = {%s};", nb+2, intList(first))
		w.line("// x, y, z (body coordinates), radius; a zero-radius placeholder where there are none")
		w.line("static constexpr double sphere[%d][4] = {", max(len(m.Spheres), 1))
		for _, s := range m.Spheres {
			c := s.Sphere.Center
			w.line("    {%s},  // %s", realList([]float64{c[0], c[1], c[2], s.Sphere.Radius}, false), r.Frames[s.Frame].Name)
		}
		if len(m.Spheres) == 0 {
			w.line("    {0.0, 0.0, 0.0, 0.0},")
		}
		w.line("};")
		w.line("static constexpr int pair[%d][2] = {", max(len(m.Pairs), 1))
		for _, p := range m.Pairs {
			w.line("    {%d, %d},", p.A, p.B)
		}
		if len(m.Pairs) == 0 {
			w.line("    {0, 0},")
		}
		w.line("};")
	}, ";")
	w.blank()
}

// checkCollision rejects a collision model made for another robot.
func checkCollision(m *collision.Model, r *model.Robot) error {
	for _, s := range m.Spheres {
		if s.Body < -1 || s.Body >= len(r.Joints) || s.Frame < 0 || s.Frame >= len(r.Frames) {
			return fmt.Errorf("collision sphere on body %d, frame %d: robot %s has %d bodies and %d frames",
				s.Body, s.Frame, r.Name, len(r.Joints), len(r.Frames))
		}
	}
	return nil
}
