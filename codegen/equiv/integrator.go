package equiv

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// integratorGradientReference is integrator_gradient's reference: the step, and its Jacobians in tangent
// coordinates by the central stencil of the exact step along each direction of (θ, qd, u), q moved by
// Integrate and the change of q₁ taken to the tangent at q₁.
func integratorGradientReference(r *model.Robot, s Sample, m ref.Integrator) [][]float64 {
	nq, nv, nx := r.NQ, r.NV, 2*r.NV
	q1, qd1 := ref.Step(r, s.Q, s.QD, s.Tau, s.DT, m)
	column := func(step func(h float64) ([]float64, []float64)) []float64 {
		d := stencil(func(h float64) []float64 {
			q, qd := step(h)
			return append(append([]float64(nil), q...), qd...)
		})
		return append(tangentAt(r, q1, d[:nq]), d[nq:]...)
	}
	dx := make([]float64, nx*nx)
	du := make([]float64, nx*nv)
	for b := 0; b < nv; b++ {
		unit := make([]float64, nv)
		unit[b] = 1
		along := func(x []float64, h float64) []float64 {
			out := append([]float64(nil), x...)
			out[b] += h
			return out
		}
		cols := [3][]float64{
			column(func(h float64) ([]float64, []float64) {
				return ref.Step(r, r.Integrate(s.Q, unit, h), s.QD, s.Tau, s.DT, m)
			}),
			column(func(h float64) ([]float64, []float64) { return ref.Step(r, s.Q, along(s.QD, h), s.Tau, s.DT, m) }),
			column(func(h float64) ([]float64, []float64) { return ref.Step(r, s.Q, s.QD, along(s.Tau, h), s.DT, m) }),
		}
		for i := 0; i < nx; i++ {
			dx[i*nx+b] = cols[0][i]
			dx[i*nx+nv+b] = cols[1][i]
			du[i*nv+b] = cols[2][i]
		}
	}
	return [][]float64{q1, qd1, dx, du}
}

// tangentAt maps a change dq of the configuration q to tangent coordinates: one-coordinate joints pass
// through; a free-flyer's becomes its body twist [Rᵀ·dp; 2·Im(conj(quat) ⊗ dquat)] (quat unit).
func tangentAt(r *model.Robot, q, dq []float64) []float64 {
	theta := make([]float64, r.NV)
	for _, j := range r.Joints {
		if j.Type != model.FreeFlyer {
			theta[j.V] = dq[j.Q]
			continue
		}
		x, y, z, w := q[j.Q+3], q[j.Q+4], q[j.Q+5], q[j.Q+6]
		lin := spatial.QuatToMat(x, y, z, w).TMulVec(spatial.Vec3{dq[j.Q], dq[j.Q+1], dq[j.Q+2]})
		dx, dy, dz, dw := dq[j.Q+3], dq[j.Q+4], dq[j.Q+5], dq[j.Q+6]
		omega := [3]float64{
			2 * (w*dx - dw*x - (y*dz - z*dy)),
			2 * (w*dy - dw*y - (z*dx - x*dz)),
			2 * (w*dz - dw*z - (x*dy - y*dx)),
		}
		copy(theta[j.V:], []float64{lin[0], lin[1], lin[2], omega[0], omega[1], omega[2]})
	}
	return theta
}
