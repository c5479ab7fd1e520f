package ref

import (
	"math"
	"sort"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"gonum.org/v1/gonum/mat"
)

// centralDiff returns the nv×nv central-difference Jacobian of fn, where fn(c, h) evaluates the function
// with its argument moved by h along tangent column c.
func centralDiff(nv int, h float64, fn func(c int, h float64) []float64) *mat.Dense {
	d := mat.NewDense(nv, nv, nil)
	for c := 0; c < nv; c++ {
		plus, minus := fn(c, h), fn(c, -h)
		for i := range plus {
			d.Set(i, c, (plus[i]-minus[i])/(2*h))
		}
	}
	return d
}

// matRelErr is max|got - want| / max|want|.
func matRelErr(got, want *mat.Dense) float64 {
	return relErr(got.RawMatrix().Data, want.RawMatrix().Data)
}

// unit returns e_c of length n.
func unit(n, c int) []float64 {
	e := make([]float64, n)
	e[c] = 1
	return e
}

// plus returns x + h·e_c.
func plus(x []float64, c int, h float64) []float64 {
	y := append([]float64(nil), x...)
	y[c] += h
	return y
}

func sortedNames(models map[string]*model.Robot) []string {
	names := make([]string, 0, len(models))
	for name := range models {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// The q step is fixed; the qd and τ steps scale with the vector's size. τ and qdd are quadratic in qd and
// affine in τ, so central differences carry no truncation error there, and a step relative to the
// magnitude keeps rounding (≈ ε·|τ|/h) below the tolerance at large velocities.
func TestDerivativesMatchFiniteDifferences(t *testing.T) {
	const h, tol = 1e-6, 1e-6
	models := testModels(t)
	worst := map[string]float64{}
	for _, name := range sortedNames(models) {
		r := models[name]
		for k, s := range randomStates(r, 4) {
			nv := r.NV
			tau := RNEA(r, s.q, s.qd, s.qdd, true)
			dq, dqd := RNEADerivatives(r, s.q, s.qd, s.qdd, true)
			adq, adqd, minv := ABADerivatives(r, s.q, s.qd, tau)
			hv, ht := h*math.Max(1, maxAbs(s.qd)), h*math.Max(1, maxAbs(tau))
			cases := []struct {
				what      string
				got, want *mat.Dense
			}{
				{"dτ/dq", dq, centralDiff(nv, h, func(c int, h float64) []float64 {
					return RNEA(r, r.Integrate(s.q, unit(nv, c), h), s.qd, s.qdd, true)
				})},
				{"dτ/dqd", dqd, centralDiff(nv, hv, func(c int, h float64) []float64 {
					return RNEA(r, s.q, plus(s.qd, c, h), s.qdd, true)
				})},
				{"dqdd/dq", adq, centralDiff(nv, h, func(c int, h float64) []float64 {
					return ABA(r, r.Integrate(s.q, unit(nv, c), h), s.qd, tau)
				})},
				{"dqdd/dqd", adqd, centralDiff(nv, hv, func(c int, h float64) []float64 {
					return ABA(r, s.q, plus(s.qd, c, h), tau)
				})},
				{"dqdd/dτ", minv, centralDiff(nv, ht, func(c int, h float64) []float64 {
					return ABA(r, s.q, s.qd, plus(tau, c, h))
				})},
			}
			for _, tc := range cases {
				e := matRelErr(tc.got, tc.want)
				worst[tc.what] = math.Max(worst[tc.what], e)
				if e > tol {
					t.Errorf("%s state %d: %s differs from central differences by %.3g relative", name, k, tc.what, e)
				}
			}
		}
	}
	t.Logf("%d models %v; largest relative errors against central differences: %v", len(models), sortedNames(models), worst)
}

// Without gravity and velocity, ∂τ/∂qd vanishes; and since RNEA is affine in qdd with slope M, the q-derivative
// at (q, 0, qdd) without gravity is that of M(q)·qdd, which is linear in qdd.
func TestRNEADerivativeIdentities(t *testing.T) {
	for name, r := range testModels(t) {
		s := randomStates(r, 5)[0]
		zero := make([]float64, r.NV)
		dq1, dqd := RNEADerivatives(r, s.q, zero, s.qdd, false)
		if m := maxAbs(dqd.RawMatrix().Data); m != 0 {
			t.Errorf("%s: ∂τ/∂qd at rest is not zero (%.3g)", name, m)
		}
		twice := append([]float64(nil), s.qdd...)
		for i := range twice {
			twice[i] *= 2
		}
		dq2, _ := RNEADerivatives(r, s.q, zero, twice, false)
		dq1.Scale(2, dq1)
		if e := matRelErr(dq1, dq2); e > 1e-12 {
			t.Errorf("%s: ∂τ/∂q is not linear in qdd at rest without gravity (%.3g)", name, e)
		}
		// ∂τ/∂qd is independent of qdd: compare at qdd and at zero acceleration.
		_, dqdA := RNEADerivatives(r, s.q, s.qd, s.qdd, true)
		_, dqdB := RNEADerivatives(r, s.q, s.qd, zero, false)
		if e := matRelErr(dqdA, dqdB); e > 1e-12 {
			t.Errorf("%s: ∂τ/∂qd depends on qdd or gravity (%.3g)", name, e)
		}
	}
}
