// Execution scopes shared by the operator library and the generated dynamics.
//
// One source compiles two ways:
//   * under nvcc (__CUDACC__): functions are __host__ __device__, block scope means the CUDA thread block,
//     barriers are __syncthreads();
//   * with a plain C++17 compiler: one "thread" runs every block-stride loop serially and barriers are
//     no-ops, so the CPU build executes exactly the code the GPU runs.
//
// Block-scope functions are called by every thread of the block; warp-scope functions by every lane of
// one warp; thread-scope functions by a single thread.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GLASS_HD __host__ __device__ __forceinline__
#define GLASS_DEVICE __device__ __forceinline__
#define GLASS_GLOBAL __global__
// A large routine called from several kernels: compiled once rather than inlined into each.
#define GLASS_HD_OUTLINED __host__ __device__ __noinline__
// A lambda the device compiler must inline wherever it is called (after the parameter list): a large one called
// once, whose captured state would otherwise go to local memory with the call.
#define GLASS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define GLASS_HD inline
#define GLASS_DEVICE inline
#define GLASS_GLOBAL
#define GLASS_HD_OUTLINED inline __attribute__((noinline))
#define GLASS_INLINE_LAMBDA
#endif

namespace glass {

// Rank of the calling thread in its block and the block's size (2-D blocks are flattened x-fastest).
GLASS_HD uint32_t block_rank() {
#if defined(__CUDA_ARCH__)
    return threadIdx.x + threadIdx.y * blockDim.x;
#else
    return 0;
#endif
}

GLASS_HD uint32_t block_size() {
#if defined(__CUDA_ARCH__)
    return blockDim.x * blockDim.y;
#else
    return 1;
#endif
}

GLASS_HD void block_sync() {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
}

// Lane of the calling thread in its warp, and the warp's width (1 on the host).
GLASS_HD uint32_t warp_rank() {
#if defined(__CUDA_ARCH__)
    return block_rank() & 31u;
#else
    return 0;
#endif
}

GLASS_HD uint32_t warp_size() {
#if defined(__CUDA_ARCH__)
    return 32u;
#else
    return 1;
#endif
}

GLASS_HD void warp_sync() {
#if defined(__CUDA_ARCH__)
    __syncwarp();
#endif
}

// A quiet NaN in host and device code: std::numeric_limits is host-only under nvcc, and NVRTC has no GCC
// builtins.
GLASS_HD double quiet_nan() {
#if defined(__CUDACC_RTC__)
    return __longlong_as_double(0x7ff8000000000000LL);
#else
    return __builtin_nan("");
#endif
}

// Barrier after a block-scope operation, elided when the caller batches several operations between syncs.
template <bool TRAILING_SYNC>
GLASS_HD void trailing_sync() {
    if constexpr (TRAILING_SYNC) block_sync();
}

}  // namespace glass
