// Package equiv prepares equivalence checks of generated code against the float64 reference: random
// samples, the reference outputs of every entry point, and a CUDA driver that runs the batched kernels at
// many block sizes on poisoned outputs and compares them with the reference.
package equiv

import (
	"fmt"
	"math/rand/v2"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"gonum.org/v1/gonum/mat"
)

// Sample is one input state, with a time step for the integrators.
type Sample struct {
	Q, QD, QDD, Tau []float64
	DT              float64
}

// RandomSamples draws n states: configurations within limits, velocities N(0, 1) and, every other
// sample, N(0, 10²), accelerations N(0, 3²), efforts N(0, 10²) and a time step in [1, 10] ms.
func RandomSamples(r *model.Robot, n int, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 11))
	normals := func(scale float64) []float64 {
		v := make([]float64, r.NV)
		for i := range v {
			v[i] = scale * rng.NormFloat64()
		}
		return v
	}
	out := make([]Sample, n)
	for k := range out {
		vscale := 1.0
		if k%2 == 1 {
			vscale = 10
		}
		out[k] = Sample{r.RandomConfiguration(rng), normals(vscale), normals(3), normals(10), 0.001 + 0.009*rng.Float64()}
	}
	return out
}

// Input returns the sample's array of the given entry-point input name.
func (s Sample) Input(name string) ([]float64, error) {
	switch name {
	case "q":
		return s.Q, nil
	case "qd":
		return s.QD, nil
	case "qdd":
		return s.QDD, nil
	case "tau", "u":
		return s.Tau, nil
	case "dt":
		return []float64{s.DT}, nil
	}
	return nil, fmt.Errorf("no sample value for input %q", name)
}

func rowMajor(m mat.Matrix) []float64 {
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out = append(out, m.At(i, j))
		}
	}
	return out
}

// Reference computes an entry point's outputs for one sample (and frame), in the entry point's output
// order and row-major layout.
func Reference(r *model.Robot, algo string, s Sample, frame int) ([][]float64, error) {
	zero := make([]float64, r.NV)
	switch algo {
	case "frame_poses":
		var pos, rot, quat []float64
		for _, p := range ref.FramePoses(r, s.Q) {
			pos = append(pos, p.Position[:]...)
			for i := 0; i < 3; i++ {
				rot = append(rot, p.Rotation[i][:]...)
			}
			x, y, z, w := spatial.MatToQuat(p.Rotation)
			quat = append(quat, x, y, z, w)
		}
		return [][]float64{pos, rot, quat}, nil
	case "frame_jacobian":
		var j []float64
		for _, row := range ref.FrameJacobian(r, s.Q, frame) {
			j = append(j, row...)
		}
		return [][]float64{j}, nil
	case "inverse_dynamics":
		return [][]float64{ref.RNEA(r, s.Q, s.QD, s.QDD, true)}, nil
	case "joint_torque_regressor":
		return [][]float64{rowMajor(ref.JointTorqueRegressor(r, s.Q, s.QD, s.QDD))}, nil
	case "inverse_dynamics_gradient":
		dq, dqd := ref.RNEADerivatives(r, s.Q, s.QD, s.QDD, true)
		return [][]float64{rowMajor(dq), rowMajor(dqd)}, nil
	case "bias_forces":
		return [][]float64{ref.RNEA(r, s.Q, s.QD, zero, true)}, nil
	case "gravity_forces":
		return [][]float64{ref.RNEA(r, s.Q, zero, zero, true)}, nil
	case "mass_matrix":
		return [][]float64{rowMajor(ref.CRBA(r, s.Q))}, nil
	case "minv":
		inv, err := ref.Minv(r, s.Q)
		if err != nil {
			return nil, err
		}
		return [][]float64{rowMajor(inv)}, nil
	case "forward_dynamics", "aba":
		return [][]float64{ref.ABA(r, s.Q, s.QD, s.Tau)}, nil
	case "forward_dynamics_gradient":
		dq, dqd, minv := ref.ABADerivatives(r, s.Q, s.QD, s.Tau)
		return [][]float64{rowMajor(dq), rowMajor(dqd), rowMajor(minv)}, nil
	case "idsva_so":
		return idsvaReference(r, s), nil
	case "fdsva_so":
		return fdsvaReference(r, s), nil
	case "end_effector_pose_hessian":
		var h []float64
		for _, row := range ref.FrameJacobianDerivative(r, s.Q, frame) {
			for _, col := range row {
				h = append(h, col...)
			}
		}
		return [][]float64{h}, nil
	case "integrator":
		q1, qd1 := ref.Step(r, s.Q, s.QD, s.Tau, s.DT, ref.Integrator(frame))
		return [][]float64{q1, qd1}, nil
	case "integrator_gradient":
		return integratorGradientReference(r, s, ref.Integrator(frame)), nil
	case "multi_target_position":
		return [][]float64{framePositions(r, s.Q)}, nil
	case "multi_target_position_gradient":
		return [][]float64{framePositionGradientReference(r, s.Q)}, nil
	case "end_effector_pose_gradient":
		var j []float64
		for f := range r.Frames {
			for _, row := range ref.FrameJacobian(r, s.Q, f) {
				j = append(j, row...)
			}
		}
		return [][]float64{j}, nil
	}
	return nil, fmt.Errorf("no reference for entry point %q", algo)
}

// CondM is the largest 2-norm condition number of the mass matrix over the samples.
func CondM(r *model.Robot, samples []Sample) float64 {
	worst := 1.0
	for _, s := range samples {
		var svd mat.SVD
		if svd.Factorize(ref.CRBA(r, s.Q), mat.SVDNone) {
			worst = max(worst, svd.Cond())
		}
	}
	return worst
}

// ConditionedByM lists the entry points whose float32 error scales with cond(M).
var ConditionedByM = map[string]bool{"minv": true, "forward_dynamics": true, "aba": true, "forward_dynamics_gradient": true, "fdsva_so": true,
	"integrator": true, "integrator_gradient": true}
