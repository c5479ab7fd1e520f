// CPU XLA FFI handlers of whole rollouts (grid_rollout*_cpu) for the robot whose grid.cuh is on the include path.
#include "grid.cuh"

#include "handlers.h"
#include "trajectory.h"
