// Every algorithm template (kernels/grid/algorithms/), for the generated grid.cuh to instantiate on its
// robot. One file per algorithm; see docs/architecture.md.
#pragma once

#include "grid/algorithms/aba.cuh"
#include "grid/algorithms/rnea.cuh"
