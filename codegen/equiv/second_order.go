package equiv

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"gonum.org/v1/gonum/mat"
)

// float64Tolerances are the float64 tolerances other than 1e-10: the entry points whose reference is a
// central difference (of exact first derivatives, codegen/ref having no second-order derivatives of its own,
// of the exact step for integrator_gradient, or of the frame positions for multi_target_position_gradient), where the stencil's truncation and rounding error, not the
// kernels', bound the agreement; and the integrator, whose RK4 step composes four articulated-body runs
// (h1_2 rolled: 3.2e-10 at cond(M) 4.9e8).
var float64Tolerances = map[string]float64{"idsva_so": 1e-6, "fdsva_so": 1e-5, "integrator_gradient": 1e-7, "integrator": 1e-9,
	"multi_target_position_gradient": 1e-9}

// Float64Tolerance is the relative float64 error an entry point's equivalence check allows.
func Float64Tolerance(algo string) float64 {
	if tol, ok := float64Tolerances[algo]; ok {
		return tol
	}
	return 1e-10
}

// fdStep is the step of the fourth-order central stencil of the second-order references.
const fdStep = 1e-4

// stencil returns (f(-2h) − 8 f(−h) + 8 f(h) − f(2h)) / 12h for f evaluated at the four offsets.
func stencil(f func(h float64) []float64) []float64 {
	m2, m1, p1, p2 := f(-2*fdStep), f(-fdStep), f(fdStep), f(2*fdStep)
	out := make([]float64, len(m2))
	for i := range out {
		out[i] = (m2[i] - 8*m1[i] + 8*p1[i] - p2[i]) / (12 * fdStep)
	}
	return out
}

// tensor lays out d[b] (each an n×n row-major matrix, the derivative along direction b) as the row-major
// n×n×nd tensor t[i][a][b].
func tensor(d [][]float64, n int) []float64 {
	nd := len(d)
	out := make([]float64, n*n*nd)
	for b, m := range d {
		for ia := 0; ia < n*n; ia++ {
			out[ia*nd+b] = m[ia]
		}
	}
	return out
}

// alongQ differentiates a matrix function of q along every tangent direction, moving q with Integrate.
func alongQ(r *model.Robot, q []float64, f func(q []float64) mat.Matrix) [][]float64 {
	out := make([][]float64, r.NV)
	for b := range out {
		e := make([]float64, r.NV)
		e[b] = 1
		out[b] = stencil(func(h float64) []float64 { return rowMajor(f(r.Integrate(q, e, h))) })
	}
	return out
}

// alongV differentiates a matrix function of a velocity-like vector x along every coordinate.
func alongV(x []float64, f func(x []float64) mat.Matrix) [][]float64 {
	out := make([][]float64, len(x))
	for b := range out {
		out[b] = stencil(func(h float64) []float64 {
			y := append([]float64(nil), x...)
			y[b] += h
			return rowMajor(f(y))
		})
	}
	return out
}

// idsvaReference is idsva_so's reference: central differences of the exact RNEA derivatives and of CRBA.
func idsvaReference(r *model.Robot, s Sample) [][]float64 {
	n := r.NV
	dq := func(q []float64) mat.Matrix { d, _ := ref.RNEADerivatives(r, q, s.QD, s.QDD, true); return d }
	dqdQ := func(q []float64) mat.Matrix { _, d := ref.RNEADerivatives(r, q, s.QD, s.QDD, true); return d }
	dqdV := func(v []float64) mat.Matrix { _, d := ref.RNEADerivatives(r, s.Q, v, s.QDD, true); return d }
	m := func(q []float64) mat.Matrix { return ref.CRBA(r, q) }
	return [][]float64{
		tensor(alongQ(r, s.Q, dq), n),
		tensor(alongQ(r, s.Q, dqdQ), n),
		tensor(alongV(s.QD, dqdV), n),
		tensor(alongQ(r, s.Q, m), n),
	}
}

// fdsvaReference is fdsva_so's reference: central differences of the exact ABA derivatives.
func fdsvaReference(r *model.Robot, s Sample) [][]float64 {
	n := r.NV
	dq := func(q []float64) mat.Matrix { d, _, _ := ref.ABADerivatives(r, q, s.QD, s.Tau); return d }
	dqdQ := func(q []float64) mat.Matrix { _, d, _ := ref.ABADerivatives(r, q, s.QD, s.Tau); return d }
	dqdV := func(v []float64) mat.Matrix { _, d, _ := ref.ABADerivatives(r, s.Q, v, s.Tau); return d }
	minv := func(q []float64) mat.Matrix { _, _, m := ref.ABADerivatives(r, q, s.QD, s.Tau); return m }
	return [][]float64{
		tensor(alongQ(r, s.Q, dq), n),
		tensor(alongQ(r, s.Q, dqdQ), n),
		tensor(alongV(s.QD, dqdV), n),
		tensor(alongQ(r, s.Q, minv), n),
	}
}
