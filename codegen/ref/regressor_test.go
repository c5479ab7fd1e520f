package ref

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"gonum.org/v1/gonum/mat"
)

func TestRegressorTimesParametersIsRNEA(t *testing.T) {
	for name, r := range testModels(t) {
		pi := mat.NewVecDense(10*len(r.Joints), InertialParameters(r))
		for k, s := range randomStates(r, 5) {
			var tau mat.VecDense
			tau.MulVec(JointTorqueRegressor(r, s.q, s.qd, s.qdd), pi)
			want := RNEA(r, s.q, s.qd, s.qdd, true)
			if e := relErr(tau.RawVector().Data, want); e > 1e-12 {
				t.Errorf("%s state %d: Y·π differs from RNEA by %.3g relative", name, k, e)
			}
		}
	}
}

func TestDynamicParametersRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   spatial.Inertia
	}{
		{"massless", spatial.Inertia{}},
		{"offset box", spatial.InertiaFromCOM(2.5, spatial.Vec3{0.1, -0.2, 0.3},
			spatial.Mat3{{0.3, 0.01, -0.02}, {0.01, 0.4, 0.03}, {-0.02, 0.03, 0.5}})},
	} {
		p := tc.in.DynamicParameters()
		if diff := cmp.Diff(tc.in, spatial.InertiaFromDynamicParameters(p)); diff != "" {
			t.Errorf("%s: inertia → parameters → inertia (-want +got):\n%s", tc.name, diff)
		}
		// Pinocchio's order: Ixx, Ixy, Iyy, Ixz, Iyz, Izz after m and h
		want := [10]float64{tc.in.M, tc.in.H[0], tc.in.H[1], tc.in.H[2],
			tc.in.I[0][0], tc.in.I[0][1], tc.in.I[1][1], tc.in.I[0][2], tc.in.I[1][2], tc.in.I[2][2]}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("%s: parameter order (-want +got):\n%s", tc.name, diff)
		}
	}
}
