// CPU XLA FFI handlers (grid_<algo>_cpu) for the robot whose grid.cuh is on the include path.

// At -O2, GCC's -Warray-bounds misreads joint_project's six-value branch, unreachable for the one-value
// call in joint_articulated_terms (kernels/grid/articulated.cuh), as an overflow.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
#include "grid.cuh"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "handlers.h"
