package ref

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"gonum.org/v1/gonum/mat"
)

// Energy returns the kinetic energy ½ qdᵀ M qd and the gravitational potential energy -Σ mᵢ g·cᵢ.
func Energy(r *model.Robot, q, qd []float64) (kinetic, potential float64) {
	m := CRBA(r, q)
	v := mat.NewVecDense(r.NV, qd)
	kinetic = 0.5 * mat.Inner(v, m, v)
	for i, x := range BodyTransforms(r, q) {
		in := r.Joints[i].Inertia
		if in.M == 0 {
			continue
		}
		rot, pos := x.Pose()
		com := pos.Add(rot.MulVec(in.H.Scale(1 / in.M)))
		potential -= in.M * r.Gravity.Dot(com)
	}
	return kinetic, potential
}

// Integrator is a time-stepping scheme, numbered as grid::algorithms::IntegratorMethod.
type Integrator int

const (
	// SemiImplicit is symplectic Euler: qd₁ = qd + dt·qdd, q₁ = q ⊕ dt·qd₁.
	SemiImplicit Integrator = 0
	// RK4 is classical Runge-Kutta, every stage integrated on the manifold from q (StepRK4).
	RK4 Integrator = 1
)

// Step is one step of the scheme m from (q, qd) under tau held over dt.
func Step(r *model.Robot, q, qd, tau []float64, dt float64, m Integrator) (qNext, qdNext []float64) {
	if m == RK4 {
		return StepRK4(r, q, qd, tau, dt)
	}
	a := ABA(r, q, qd, tau)
	qdNext = make([]float64, len(qd))
	for i := range qd {
		qdNext[i] = qd[i] + dt*a[i]
	}
	return r.Integrate(q, qdNext, dt), qdNext
}

// StepRK4 advances (q, qd) by dt under constant joint efforts tau with a classical Runge-Kutta step whose
// stages move q with model.Robot.Integrate, so free-flyer quaternions stay unit. It is fourth order in
// joint coordinates; averaging stage twists of a free-flyer makes its orientation second order.
func StepRK4(r *model.Robot, q, qd, tau []float64, dt float64) (qNext, qdNext []float64) {
	axpy := func(a float64, x, y []float64) []float64 {
		out := make([]float64, len(y))
		for i := range y {
			out[i] = y[i] + a*x[i]
		}
		return out
	}
	v1, a1 := qd, ABA(r, q, qd, tau)
	v2 := axpy(dt/2, a1, qd)
	a2 := ABA(r, r.Integrate(q, v1, dt/2), v2, tau)
	v3 := axpy(dt/2, a2, qd)
	a3 := ABA(r, r.Integrate(q, v2, dt/2), v3, tau)
	v4 := axpy(dt, a3, qd)
	a4 := ABA(r, r.Integrate(q, v3, dt), v4, tau)
	vAvg := make([]float64, r.NV)
	aAvg := make([]float64, r.NV)
	for i := range vAvg {
		vAvg[i] = (v1[i] + 2*v2[i] + 2*v3[i] + v4[i]) / 6
		aAvg[i] = (a1[i] + 2*a2[i] + 2*a3[i] + a4[i]) / 6
	}
	return r.Integrate(q, vAvg, dt), axpy(dt, aAvg, qd)
}
