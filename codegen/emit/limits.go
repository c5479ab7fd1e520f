package emit

import (
	"fmt"
	"math"

	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// MaxNV is the most velocity coordinates a generated robot may have. The kernels index one sample's data
// with 32-bit ints up to the 6·NV² entries of end_effector_pose_hessian (NV³-entry second-order outputs
// and every offset across the batch are size_t), so 6·NV² must fit in an int.
var MaxNV = int(math.Sqrt(float64(math.MaxInt32) / 6))

// checkLimits names the first limit a robot exceeds.
func checkLimits(r *model.Robot) error {
	if r.NV > MaxNV {
		return fmt.Errorf("robot %q has %d velocity coordinates; the generated kernels index one sample with "+
			"32-bit ints, which holds at most %d (6·NV² entries of end_effector_pose_hessian)", r.Name, r.NV, MaxNV)
	}
	return nil
}
