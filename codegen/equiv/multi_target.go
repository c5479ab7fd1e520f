package equiv

import (
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
)

// framePositions is multi_target_position's reference: the frame origins of the reference kinematics,
// [NF, 3] row-major.
func framePositions(r *model.Robot, q []float64) []float64 {
	var pos []float64
	for _, p := range ref.FramePoses(r, q) {
		pos = append(pos, p.Position[:]...)
	}
	return pos
}

// framePositionGradientReference is multi_target_position_gradient's reference, independent of the
// Jacobians: the central stencil of the frame positions along each tangent direction (q moved by
// Integrate), laid out [NF, 3, NV] row-major.
func framePositionGradientReference(r *model.Robot, q []float64) []float64 {
	nv := r.NV
	rows := 3 * len(r.Frames)
	out := make([]float64, rows*nv)
	for c := 0; c < nv; c++ {
		e := make([]float64, nv)
		e[c] = 1
		d := stencil(func(h float64) []float64 { return framePositions(r, r.Integrate(q, e, h)) })
		for k, v := range d {
			out[k*nv+c] = v
		}
	}
	return out
}
