package ref

import (
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"gonum.org/v1/gonum/mat"
)

// gravityMotion is the fictitious base acceleration that accounts for gravity: a_0 = [0; -g].
func gravityMotion(r *model.Robot) spatial.Motion {
	return spatial.MakeMotion(spatial.Vec3{}, r.Gravity.Scale(-1))
}

// jointVelocity returns S·qd for joint j.
func jointVelocity(j *model.Joint, v []float64) spatial.Motion {
	var m spatial.Motion
	for c, s := range j.Subspace() {
		m = m.Add(s.Scale(v[j.V+c]))
	}
	return m
}

// rneaPass holds the quantities of one RNEA evaluation that its derivatives are built from.
type rneaPass struct {
	xs    []spatial.Transform // parent-to-body transforms
	vj    []spatial.Motion    // S·qd per joint
	vel   []spatial.Motion    // body velocities
	xap   []spatial.Motion    // X_i·a_parent, the parent's acceleration in body coordinates
	force []spatial.Force     // body forces after the backward pass has added the children's
}

// newRNEAPass runs the RNEA recursion — forward sweep (v_i = X_i v_p + S_i qd_i, a_i = X_i a_p + S_i qdd_i +
// v_i × S_i qd_i with a_0 = -g; joint subspaces are constant in body coordinates, so the bias acceleration
// is v × S·qd) and backward sweep (f_p += X_iᵀ f_i) — and keeps its intermediate values for RNEA and its
// derivatives.
func newRNEAPass(r *model.Robot, q, qd, qdd []float64, withGravity bool) *rneaPass {
	n := len(r.Joints)
	p := &rneaPass{
		xs:    jointTransforms(r, q),
		vj:    make([]spatial.Motion, n),
		vel:   make([]spatial.Motion, n),
		xap:   make([]spatial.Motion, n),
		force: make([]spatial.Force, n),
	}
	acc := make([]spatial.Motion, n)
	var a0 spatial.Motion
	if withGravity {
		a0 = gravityMotion(r)
	}
	for i := range r.Joints {
		j := &r.Joints[i]
		p.vj[i] = jointVelocity(j, qd)
		vp, ap := spatial.Motion{}, a0
		if j.Parent >= 0 {
			vp, ap = p.vel[j.Parent], acc[j.Parent]
		}
		p.vel[i] = p.xs[i].ApplyMotion(vp).Add(p.vj[i])
		p.xap[i] = p.xs[i].ApplyMotion(ap)
		acc[i] = p.xap[i].Add(jointVelocity(j, qdd)).Add(p.vel[i].CrossMotion(p.vj[i]))
		p.force[i] = j.Inertia.MulMotion(acc[i]).Add(p.vel[i].CrossForce(j.Inertia.MulMotion(p.vel[i])))
	}
	for i := n - 1; i >= 0; i-- {
		if pj := r.Joints[i].Parent; pj >= 0 {
			p.force[pj] = p.force[pj].Add(p.xs[i].InvApplyForce(p.force[i]))
		}
	}
	return p
}

// RNEA returns the joint efforts τ = M(q)·qdd + C(q, qd)·qd + g(q) by the recursive Newton-Euler algorithm.
// With withGravity false the gravity term is left out.
func RNEA(r *model.Robot, q, qd, qdd []float64, withGravity bool) []float64 {
	checkSizes(r, q, qd, qdd)
	p := newRNEAPass(r, q, qd, qdd, withGravity)
	tau := make([]float64, r.NV)
	for i := range r.Joints {
		j := &r.Joints[i]
		for c, s := range j.Subspace() {
			tau[j.V+c] = s.Dot(p.force[i])
		}
	}
	return tau
}

// CRBA returns the full symmetric joint-space mass matrix M(q) by the composite-rigid-body algorithm.
func CRBA(r *model.Robot, q []float64) *mat.SymDense {
	checkSizes(r, q)
	n := len(r.Joints)
	xs := jointTransforms(r, q)
	composite := make([]spatial.Inertia, n)
	for i := range r.Joints {
		composite[i] = r.Joints[i].Inertia
	}
	for i := n - 1; i >= 0; i-- {
		if p := r.Joints[i].Parent; p >= 0 {
			composite[p] = composite[p].Add(composite[i].ToParent(xs[i]))
		}
	}
	m := mat.NewSymDense(r.NV, nil)
	for i := range r.Joints {
		ji := &r.Joints[i]
		for ci, si := range ji.Subspace() {
			// F is the force column Ic·S, carried up the ancestor chain.
			f := composite[i].MulMotion(si)
			for cj, sj := range ji.Subspace() {
				m.SetSym(ji.V+ci, ji.V+cj, sj.Dot(f))
			}
			for k := i; r.Joints[k].Parent >= 0; {
				f = xs[k].InvApplyForce(f)
				k = r.Joints[k].Parent
				jk := &r.Joints[k]
				for ck, sk := range jk.Subspace() {
					m.SetSym(ji.V+ci, jk.V+ck, sk.Dot(f))
				}
			}
		}
	}
	return m
}

// ABA returns the joint accelerations qdd = M⁻¹(τ - C·qd - g) by the articulated-body algorithm.
func ABA(r *model.Robot, q, qd, tau []float64) []float64 {
	checkSizes(r, q, qd, tau)
	n := len(r.Joints)
	xs := jointTransforms(r, q)
	vel := make([]spatial.Motion, n)
	bias := make([]spatial.Motion, n) // c_i = v_i × S·qd
	pa := make([]spatial.Force, n)    // articulated bias force
	ia := make([]spatial.Mat6, n)     // articulated inertia
	u := make([][]spatial.Force, n)   // U = Ia·S, per column
	dinv := make([]*mat.Dense, n)     // (Sᵀ U)⁻¹
	uvec := make([][]float64, n)      // τ - Sᵀ pA
	for i := range r.Joints {
		j := &r.Joints[i]
		vj := jointVelocity(j, qd)
		var vp spatial.Motion
		if j.Parent >= 0 {
			vp = vel[j.Parent]
		}
		vel[i] = xs[i].ApplyMotion(vp).Add(vj)
		bias[i] = vel[i].CrossMotion(vj)
		ia[i] = j.Inertia.Matrix()
		pa[i] = vel[i].CrossForce(j.Inertia.MulMotion(vel[i]))
	}
	for i := n - 1; i >= 0; i-- {
		j := &r.Joints[i]
		s := j.Subspace()
		nv := len(s)
		u[i] = make([]spatial.Force, nv)
		d := mat.NewDense(nv, nv, nil)
		uvec[i] = make([]float64, nv)
		for c := range s {
			u[i][c] = ia[i].MulMotion(s[c])
			uvec[i][c] = tau[j.V+c] - s[c].Dot(pa[i])
		}
		for a := range s {
			for b := range s {
				d.Set(a, b, s[a].Dot(u[i][b]))
			}
		}
		dinv[i] = mat.NewDense(nv, nv, nil)
		if err := dinv[i].Inverse(d); err != nil {
			panic(fmt.Sprintf("ref: ABA: joint %q has a singular articulated inertia: %v", j.Name, err))
		}
		if j.Parent < 0 {
			continue
		}
		// Ia' = Ia - U D⁻¹ Uᵀ ;  pa' = pa + Ia' c + U D⁻¹ u
		iaArt := ia[i]
		var pArt spatial.Force
		du := make([]float64, nv) // D⁻¹ u
		for a := 0; a < nv; a++ {
			for b := 0; b < nv; b++ {
				db := dinv[i].At(a, b)
				du[a] += db * uvec[i][b]
				for x := 0; x < 6; x++ {
					for y := 0; y < 6; y++ {
						iaArt[x][y] -= u[i][a][x] * db * u[i][b][y]
					}
				}
			}
		}
		pArt = pa[i].Add(iaArt.MulMotion(bias[i]))
		for a := 0; a < nv; a++ {
			for x := 0; x < 6; x++ {
				pArt[x] += u[i][a][x] * du[a]
			}
		}
		p := j.Parent
		parentIa := iaArt.ToParent(xs[i])
		ia[p] = ia[p].Add(&parentIa)
		pa[p] = pa[p].Add(xs[i].InvApplyForce(pArt))
	}
	qdd := make([]float64, r.NV)
	acc := make([]spatial.Motion, n)
	a0 := gravityMotion(r)
	for i := range r.Joints {
		j := &r.Joints[i]
		ap := a0
		if j.Parent >= 0 {
			ap = acc[j.Parent]
		}
		a := xs[i].ApplyMotion(ap).Add(bias[i])
		s := j.Subspace()
		rhs := make([]float64, len(s)) // u - Uᵀ a
		for c := range s {
			rhs[c] = uvec[i][c]
			for x := 0; x < 6; x++ {
				rhs[c] -= u[i][c][x] * a[x]
			}
		}
		for c := range s {
			for b := range s {
				qdd[j.V+c] += dinv[i].At(c, b) * rhs[b]
			}
		}
		acc[i] = a.Add(jointVelocity(j, qdd))
	}
	return qdd
}

// Minv returns M(q)⁻¹ through a Cholesky factorisation of the CRBA mass matrix. It is deliberately a
// different route from the generated analytical inverse, which it checks.
func Minv(r *model.Robot, q []float64) (*mat.SymDense, error) {
	var chol mat.Cholesky
	if ok := chol.Factorize(CRBA(r, q)); !ok {
		return nil, fmt.Errorf("ref: mass matrix of %s is not positive definite at this configuration", r.Name)
	}
	inv := mat.NewSymDense(r.NV, nil)
	if err := chol.InverseTo(inv); err != nil {
		return nil, err
	}
	return inv, nil
}
