// CPU XLA FFI handlers (grid_<algo>_cpu) for the robot whose grid.cuh is on the include path.
#include "grid.cuh"

#include "handlers.h"
#include "grid_ffi.h"
