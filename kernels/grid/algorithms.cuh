// Every algorithm template (kernels/grid/algorithms/), for the generated grid.cuh to instantiate on its
// robot. One file per algorithm; see docs/architecture.md.
#pragma once

#include "grid/algorithms/aba.cuh"
#include "grid/algorithms/crba.cuh"
#include "grid/algorithms/fd.cuh"
#include "grid/algorithms/fd_gradient.cuh"
#include "grid/algorithms/integrator.cuh"
#include "grid/algorithms/jacobian.cuh"
#include "grid/algorithms/kinematics.cuh"
#include "grid/algorithms/minv.cuh"
#include "grid/algorithms/multi_target.cuh"
#include "grid/algorithms/regressor.cuh"
#include "grid/algorithms/rnea.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/algorithms/second_order.cuh"
