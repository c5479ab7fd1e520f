// CUDA XLA FFI handlers (grid_<algo>_cuda) for the robot whose grid.cuh is on the include path, built by a host
// C++ compiler against the CUDA runtime's headers, without nvcc: the kernels come from NVRTC at run time
// (grid_rbd._nvrtc compiles metadata.json's `kernels` of an entry point into a cubin) and grid_rtc_load binds
// them, after which the handlers launch them as the nvcc-built library launches its own.
#define GRID_RTC_HOST 1
#include "grid.cuh"

#include "handlers.h"
#include "grid_ffi.h"

#if !defined(GRID_FFI_PARTS) || GRID_FFI_PART == 0  // once per library, when its handlers compile in parts
extern "C" {

// Loads a cubin and binds its kernels: names[k] is a kernel's name expression (metadata.json's `kernels`),
// mangled[k] its symbol in the cubin (nvrtcGetLoweredName). Returns a cudaError_t code, 0 on success.
__attribute__((visibility("default"))) int grid_rtc_load(const void* cubin, int count, const char* const* names,
                                                         const char* const* mangled) {
    return static_cast<int>(grid::rtc::registry().load(cubin, count, names, mangled));
}

// The message of a code grid_rtc_load returned.
__attribute__((visibility("default"))) const char* grid_rtc_error(int code) {
    return cudaGetErrorString(static_cast<cudaError_t>(code));
}

}  // extern "C"
#endif
