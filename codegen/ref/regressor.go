package ref

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"gonum.org/v1/gonum/mat"
)

// InertialParameters returns the robot's inertial parameters π in the regressor's layout: body by body,
// Pinocchio's dynamic parameters (spatial.Inertia.DynamicParameters).
func InertialParameters(r *model.Robot) []float64 {
	out := make([]float64, 0, 10*len(r.Joints))
	for _, j := range r.Joints {
		p := j.Inertia.DynamicParameters()
		out = append(out, p[:]...)
	}
	return out
}

// JointTorqueRegressor returns Y(q, qd, qdd), NV × 10·NB, with RNEA(q, qd, qdd) = Y·π for π =
// InertialParameters. Inverse dynamics is linear in the inertias, so column 10·i + k is RNEA on the robot
// whose only inertia is body i's k-th unit parameter: built from RNEA alone, independent of the kernel's
// construction.
func JointTorqueRegressor(r *model.Robot, q, qd, qdd []float64) *mat.Dense {
	checkSizes(r, q, qd, qdd)
	unit := *r
	unit.Joints = append([]model.Joint(nil), r.Joints...)
	y := mat.NewDense(r.NV, 10*len(r.Joints), nil)
	for i := range unit.Joints {
		unit.Joints[i].Inertia = spatial.Inertia{}
	}
	for i := range unit.Joints {
		for k := 0; k < 10; k++ {
			var p [10]float64
			p[k] = 1
			unit.Joints[i].Inertia = spatial.InertiaFromDynamicParameters(p)
			y.SetCol(10*i+k, RNEA(&unit, q, qd, qdd, true))
		}
		unit.Joints[i].Inertia = spatial.Inertia{}
	}
	return y
}
