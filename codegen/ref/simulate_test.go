package ref

import (
	"math"
	"testing"
)

// With no effort and no damping the total energy is conserved, so an RK4 rollout's energy drift bounds
// the error of ABA, CRBA and the kinematics together.
func TestRolloutConservesEnergy(t *testing.T) {
	models := testModels(t)
	for _, name := range []string{"iiwa/fixed", "hyq/floating", "branchy/fixed", "g1_29dof/floating"} {
		r := models[name]
		s := randomStates(r, 4)[0]
		q, qd := s.q, s.qd
		tau := make([]float64, r.NV)
		k0, p0 := Energy(r, q, qd)
		for range 200 {
			q, qd = StepRK4(r, q, qd, tau, 5e-4)
		}
		k1, p1 := Energy(r, q, qd)
		if drift := math.Abs((k1 + p1) - (k0 + p0)); drift > 1e-6*(k0+math.Abs(p0)) {
			t.Errorf("%s: energy %.9g -> %.9g (kinetic %.4g -> %.4g)", name, k0+p0, k1+p1, k0, k1)
		}
		if k1 == k0 {
			t.Errorf("%s: the rollout did not move", name)
		}
	}
}
