// The GPU side of run(): one kernel per call, staging each problem's inputs and NaN-poisoned outputs (and
// scratch) in dynamic shared memory (in global memory when they do not fit), as the generated dynamics
// kernels do, then running the body with the group its scope gives it. Included by harness.h under nvcc.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace glass_harness {

// The largest blockDim the executor launches (device.cpp); the bound keeps every kernel launchable there.
constexpr unsigned kMaxBlock = 256u;

template <typename T, typename O, typename Body>
__global__ void __launch_bounds__(kMaxBlock) op_kernel(Body body, Layout L) {
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t t = threadIdx.x;
    uint32_t local = 0u, rank = t, size = blockDim.x;  // block scope: one problem, the whole block
    if (L.scope == int(Scope::Warp)) {
        local = t >> 5;
        rank = t & 31u;
        size = 32u;
    } else if (L.scope == int(Scope::Thread)) {
        local = t;
        rank = 0u;
        size = 1u;
    }
    const std::size_t p = std::size_t(blockIdx.x) * std::size_t(L.per_block) + local;
    unsigned char* w = L.gmem != nullptr ? L.gmem + p * L.stride : smem + std::size_t(local) * L.stride;
    T* a = reinterpret_cast<T*>(w);
    O* o = reinterpret_cast<O*>(w + L.off_o);
    T* s = reinterpret_cast<T*>(w + L.off_s);
    const double* raw = L.src + (p % std::size_t(L.n_src)) * std::size_t(L.n_in);
    for (int i = int(rank); i < L.n_in; i += int(size)) a[i] = T(raw[i]);
    for (int i = int(rank); i < L.n_out; i += int(size)) o[i] = O(NAN);
    // Scratch starts as NaN too, so a read before a write shows in the result.
    for (std::size_t i = rank; i < L.scratch_elems; i += size) s[i] = T(NAN);
    __syncthreads();
    body(Args<T, O>{raw, a, o, s, L.n_in, L.n_out, rank, size, Scope(L.scope)});
    __syncthreads();
    double* dst = L.out + p * std::size_t(L.n_out);
    for (int i = int(rank); i < L.n_out; i += int(size)) dst[i] = double(o[i]);
}

template <typename T, typename O, typename Body>
int launch(const void* body, const Layout& layout, unsigned grid, unsigned block, std::size_t smem) {
    if (smem > 48u * 1024u) {
        const cudaError_t e =
            cudaFuncSetAttribute(op_kernel<T, O, Body>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return int(e);
    }
    op_kernel<T, O, Body><<<grid, block, smem>>>(*static_cast<const Body*>(body), layout);
    return int(cudaGetLastError());
}

}  // namespace glass_harness
