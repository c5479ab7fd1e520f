package ref

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"gonum.org/v1/gonum/mat"
)

// tangent returns the directional derivative of τ when either the configuration moves along the tangent
// column s of joint k (wrtQ) or the velocity qd of that column grows at unit rate (!wrtQ).
//
// Moving joint k's configuration along its body-frame column s changes only that joint's transform, by
// dX_k = -(s ×m) X_k; each other quantity follows the chain rule through the RNEA recursion.
func (p *rneaPass) tangent(r *model.Robot, k int, s spatial.Motion, wrtQ bool, dtau []float64) {
	n := len(r.Joints)
	dv := make([]spatial.Motion, n)
	da := make([]spatial.Motion, n)
	df := make([]spatial.Force, n)
	neg := s.Scale(-1)
	for i := range r.Joints {
		j := &r.Joints[i]
		var dvp, dap spatial.Motion
		if j.Parent >= 0 {
			dvp, dap = dv[j.Parent], da[j.Parent]
		}
		dv[i] = p.xs[i].ApplyMotion(dvp)
		da[i] = p.xs[i].ApplyMotion(dap)
		if i == k {
			if wrtQ {
				// d(X v_p) = -s × (X v_p), with X v_p = v - S·qd; likewise for the acceleration.
				dv[i] = dv[i].Add(neg.CrossMotion(p.vel[i].Add(p.vj[i].Scale(-1))))
				da[i] = da[i].Add(neg.CrossMotion(p.xap[i]))
			} else {
				dv[i] = dv[i].Add(s)
				da[i] = da[i].Add(p.vel[i].CrossMotion(s))
			}
		}
		da[i] = da[i].Add(dv[i].CrossMotion(p.vj[i]))
		in := j.Inertia
		df[i] = in.MulMotion(da[i]).
			Add(dv[i].CrossForce(in.MulMotion(p.vel[i]))).
			Add(p.vel[i].CrossForce(in.MulMotion(dv[i])))
	}
	for i := n - 1; i >= 0; i-- {
		j := &r.Joints[i]
		for c, sc := range j.Subspace() {
			dtau[j.V+c] = sc.Dot(df[i])
		}
		if j.Parent < 0 {
			continue
		}
		up := df[i]
		if wrtQ && i == k {
			// d(Xᵀ f) = Xᵀ (s ×f f), since (s ×m)ᵀ = -(s ×f).
			up = up.Add(s.CrossForce(p.force[i]))
		}
		df[j.Parent] = df[j.Parent].Add(p.xs[i].InvApplyForce(up))
	}
}

// RNEADerivatives returns ∂τ/∂q and ∂τ/∂qd (nv×nv) of RNEA(q, qd, qdd, withGravity). The derivative with
// respect to q is taken along the tangent directions e_k of r.Integrate(q, e_k, ε), as Pinocchio does: a
// free-flyer's columns follow its body-frame twist.
//
// Method: exact forward-mode differentiation of the RNEA recursion, one tangent direction at a time. For
// each direction the derivatives of the body velocities, accelerations and forces are propagated through
// the same forward and backward passes as RNEA; a configuration direction of joint k enters only through
// that joint's transform, dX_k = -(S_k ×m) X_k. The cost is O(nv·n); no finite differences are involved.
func RNEADerivatives(r *model.Robot, q, qd, qdd []float64, withGravity bool) (dtauDq, dtauDqd *mat.Dense) {
	checkSizes(r, q, qd, qdd)
	p := newRNEAPass(r, q, qd, qdd, withGravity)
	dtauDq = mat.NewDense(r.NV, r.NV, nil)
	dtauDqd = mat.NewDense(r.NV, r.NV, nil)
	col := make([]float64, r.NV)
	for k := range r.Joints {
		j := &r.Joints[k]
		for c, s := range j.Subspace() {
			p.tangent(r, k, s, true, col)
			dtauDq.SetCol(j.V+c, col)
			p.tangent(r, k, s, false, col)
			dtauDqd.SetCol(j.V+c, col)
		}
	}
	return dtauDq, dtauDqd
}

// ABADerivatives returns ∂qdd/∂q, ∂qdd/∂qd and ∂qdd/∂τ = M⁻¹ of qdd = ABA(q, qd, τ), with ∂/∂q along the
// tangent directions as in RNEADerivatives. Since τ = RNEA(q, qd, qdd) holds identically,
// ∂qdd/∂x = -M⁻¹ ∂τ/∂x with ∂τ/∂x the RNEA derivatives taken at qdd = ABA(q, qd, τ), gravity included.
// It panics where the mass matrix is not positive definite, as ABA does on a singular articulated inertia.
func ABADerivatives(r *model.Robot, q, qd, tau []float64) (dqddDq, dqddDqd, minv *mat.Dense) {
	checkSizes(r, q, qd, tau)
	qdd := ABA(r, q, qd, tau)
	dq, dqd := RNEADerivatives(r, q, qd, qdd, true)
	inv, err := Minv(r, q)
	if err != nil {
		panic(err.Error())
	}
	minv = mat.DenseCopyOf(inv)
	dqddDq = mat.NewDense(r.NV, r.NV, nil)
	dqddDq.Mul(minv, dq)
	dqddDq.Scale(-1, dqddDq)
	dqddDqd = mat.NewDense(r.NV, r.NV, nil)
	dqddDqd.Mul(minv, dqd)
	dqddDqd.Scale(-1, dqddDqd)
	return dqddDq, dqddDqd, minv
}
