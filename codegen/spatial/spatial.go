// Package spatial is float64 spatial algebra in the project's pinned conventions (docs: architecture.md):
// spatial vectors are angular first ([ω; v] for motion, [n; f] for force), coordinate transforms are
// (E, r) pairs and rigid-body inertias are (m, h = m·c, Ī) about the body origin.
//
// It serves the model builder and the reference dynamics; the generated CUDA C++ has its own library.
package spatial

import "math"

// Vec3 is a 3-vector.
type Vec3 [3]float64

// Mat3 is a 3×3 matrix, indexed [row][col].
type Mat3 [3][3]float64

// Motion is a spatial motion vector [ω; v].
type Motion [6]float64

// Force is a spatial force vector [n; f].
type Force [6]float64

// Identity3 is the 3×3 identity.
var Identity3 = Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a - b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{s * a[0], s * a[1], s * a[2]} }

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a × b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.Dot(a)) }

// Skew returns the matrix [a]× with [a]× b = a × b.
func (a Vec3) Skew() Mat3 {
	return Mat3{{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}}
}

// MulVec returns m·v.
func (m Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// TMulVec returns mᵀ·v.
func (m Mat3) TMulVec(v Vec3) Vec3 {
	return Vec3{
		m[0][0]*v[0] + m[1][0]*v[1] + m[2][0]*v[2],
		m[0][1]*v[0] + m[1][1]*v[1] + m[2][1]*v[2],
		m[0][2]*v[0] + m[1][2]*v[1] + m[2][2]*v[2],
	}
}

// Mul returns m·n.
func (m Mat3) Mul(n Mat3) Mat3 {
	var p Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return p
}

// T returns mᵀ.
func (m Mat3) T() Mat3 {
	return Mat3{{m[0][0], m[1][0], m[2][0]}, {m[0][1], m[1][1], m[2][1]}, {m[0][2], m[1][2], m[2][2]}}
}

// Add returns m + n.
func (m Mat3) Add(n Mat3) Mat3 {
	var p Mat3
	for i := range p {
		for j := range p[i] {
			p[i][j] = m[i][j] + n[i][j]
		}
	}
	return p
}

// Scale returns s·m.
func (m Mat3) Scale(s float64) Mat3 {
	var p Mat3
	for i := range p {
		for j := range p[i] {
			p[i][j] = s * m[i][j]
		}
	}
	return p
}

// Ang returns the angular part ω.
func (m Motion) Ang() Vec3 { return Vec3{m[0], m[1], m[2]} }

// Lin returns the linear part v.
func (m Motion) Lin() Vec3 { return Vec3{m[3], m[4], m[5]} }

// MakeMotion assembles [ω; v].
func MakeMotion(w, v Vec3) Motion { return Motion{w[0], w[1], w[2], v[0], v[1], v[2]} }

// Add returns a + b.
func (a Motion) Add(b Motion) Motion {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Scale returns s·a.
func (a Motion) Scale(s float64) Motion {
	for i := range a {
		a[i] *= s
	}
	return a
}

// Dot returns the power aᵀf of a motion and a force.
func (a Motion) Dot(f Force) float64 {
	var s float64
	for i := range a {
		s += a[i] * f[i]
	}
	return s
}

// CrossMotion returns a ×m b = [ω×ω_b; ω×v_b + v×ω_b].
func (a Motion) CrossMotion(b Motion) Motion {
	w, v := a.Ang(), a.Lin()
	return MakeMotion(w.Cross(b.Ang()), w.Cross(b.Lin()).Add(v.Cross(b.Ang())))
}

// CrossForce returns a ×f f = [ω×n + v×f; ω×f].
func (a Motion) CrossForce(f Force) Force {
	w, v := a.Ang(), a.Lin()
	return MakeForce(w.Cross(f.Ang()).Add(v.Cross(f.Lin())), w.Cross(f.Lin()))
}

// Ang returns the moment n.
func (f Force) Ang() Vec3 { return Vec3{f[0], f[1], f[2]} }

// Lin returns the force f.
func (f Force) Lin() Vec3 { return Vec3{f[3], f[4], f[5]} }

// MakeForce assembles [n; f].
func MakeForce(n, f Vec3) Force { return Force{n[0], n[1], n[2], f[0], f[1], f[2]} }

// Add returns a + b.
func (a Force) Add(b Force) Force {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// Sub returns a - b.
func (a Force) Sub(b Force) Force {
	for i := range a {
		a[i] -= b[i]
	}
	return a
}
