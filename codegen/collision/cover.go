// Package collision approximates a robot's URDF collision shapes by spheres bound to its bodies, for the
// collision scoring of inverse-kinematics solutions (kernels/grid/collision.cuh). Primitives (spheres,
// boxes, cylinders) and meshes whose file can be read are covered exactly: every point of the shape lies in
// some sphere. A mesh whose file is missing or unreadable is approximated (see Fallback).
package collision

import (
	"math"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// Sphere is a ball: a centre and a radius.
type Sphere struct {
	Center spatial.Vec3
	Radius float64
}

// Contains reports whether p lies in the ball (with a relative slack for rounding).
func (s Sphere) Contains(p spatial.Vec3) bool {
	return p.Sub(s.Center).Norm() <= s.Radius*(1+1e-12)+1e-15
}

// The cells of a box or cylinder cover: at most MaxCellsPerAxis along each axis (a long or flat shape) and
// no smaller than MinCell (m), so that a small part (a finger's pad) is a sphere or two.
const (
	MaxCellsPerAxis = 8
	MinCell         = 0.02
)

// CoverBox covers the axis-aligned box of the given full side lengths, centred on the origin, by the
// circumscribed spheres of a grid of equal cells: each point of the box is in a cell and each cell in its
// sphere. Cells are about half the shortest side (larger for elongated or small boxes: MaxCellsPerAxis,
// MinCell), which keeps a sphere within about a third of that side outside the box.
func CoverBox(size spatial.Vec3) []Sphere {
	return coverGrid(size, func(lo, hi spatial.Vec3) bool { return true })
}

// CoverCylinder covers the cylinder of the given radius and length about the z axis, centred on the
// origin: the grid of its bounding box, keeping the cells whose xy rectangle meets the disc.
func CoverCylinder(radius, length float64) []Sphere {
	return coverGrid(spatial.Vec3{2 * radius, 2 * radius, length}, func(lo, hi spatial.Vec3) bool {
		// the rectangle's point nearest the axis
		x := math.Max(lo[0], math.Min(0, hi[0]))
		y := math.Max(lo[1], math.Min(0, hi[1]))
		return x*x+y*y <= radius*radius
	})
}

// coverGrid splits the box of the given size into cells and returns the circumscribed sphere of each cell
// that keep(lo, hi) accepts.
func coverGrid(size spatial.Vec3, keep func(lo, hi spatial.Vec3) bool) []Sphere {
	shortest := math.Min(size[0], math.Min(size[1], size[2]))
	longest := math.Max(size[0], math.Max(size[1], size[2]))
	cell := math.Max(math.Max(shortest/2, longest/MaxCellsPerAxis), MinCell)
	var n [3]int
	var step spatial.Vec3
	for k := range 3 {
		n[k] = max(1, int(math.Ceil(size[k]/cell-1e-9)))
		step[k] = size[k] / float64(n[k])
	}
	radius := step.Norm() / 2
	var out []Sphere
	for i := range n[0] {
		for j := range n[1] {
			for k := range n[2] {
				lo := spatial.Vec3{-size[0]/2 + float64(i)*step[0], -size[1]/2 + float64(j)*step[1], -size[2]/2 + float64(k)*step[2]}
				hi := lo.Add(step)
				if keep(lo, hi) {
					out = append(out, Sphere{Center: lo.Add(hi).Scale(0.5), Radius: radius})
				}
			}
		}
	}
	return out
}

// CoverSegments covers the segments from a to each of bs by spheres of the given radius spaced at most one
// radius apart along them (a chain of balls whose union is within 14 % of the radius of the capsule's
// surface); a alone when bs is empty. Used where a mesh cannot be read (Fallback).
func CoverSegments(a spatial.Vec3, bs []spatial.Vec3, radius float64) []Sphere {
	out := []Sphere{{Center: a, Radius: radius}}
	for _, b := range bs {
		d := b.Sub(a)
		n := int(math.Ceil(d.Norm()/radius - 1e-9))
		for i := 1; i <= n; i++ {
			out = append(out, Sphere{Center: a.Add(d.Scale(float64(i) / float64(n))), Radius: radius})
		}
	}
	return out
}

// Transformed returns the spheres placed by x: a sphere centred at c in x's child frame is centred at
// x.R + x.Eᵀ·c in its parent frame.
func Transformed(x spatial.Transform, s []Sphere) []Sphere {
	out := make([]Sphere, len(s))
	for i, b := range s {
		out[i] = Sphere{Center: x.R.Add(x.E.TMulVec(b.Center)), Radius: b.Radius}
	}
	return out
}
