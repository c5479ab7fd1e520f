// Small types and helpers shared by every generated robot header.
#pragma once

#include "glass/scope.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

// Robot constant tables: device memory under nvcc, ordinary constants on the host.
#if defined(__CUDACC__)
#define GRID_TABLE static __device__ const
#else
#define GRID_TABLE static const
#endif

namespace grid {

// Selects the float or the double copy of a robot table.
template <typename T>
GLASS_DEVICE const T* pick(const float* f, const double* d) {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "float or double");
    if constexpr (std::is_same<T, float>::value) {
        return f;
    } else {
        return d;
    }
}

// A 3-vector passed by value to kernels (gravity).
template <typename T>
struct Vec3 {
    T x, y, z;
};

// The standard gravity along -z.
template <typename T>
constexpr Vec3<T> default_gravity() {
    return Vec3<T>{T(0), T(0), T(-9.81)};
}

// Block-stride copy of n values: every thread of the block calls it; no trailing barrier.
template <typename T, typename U>
GLASS_HD void block_copy(T* dst, const U* src, uint32_t n) {
    for (uint32_t k = glass::block_rank(); k < n; k += glass::block_size()) dst[k] = static_cast<T>(src[k]);
}

// Outcome of a host wrapper: code 0 is success; otherwise message says what failed.
struct Status {
    int code;
    const char* message;
    static Status ok() { return Status{0, "ok"}; }
    bool is_ok() const { return code == 0; }
#if defined(__CUDACC__)
    static Status from(cudaError_t err) { return Status{static_cast<int>(err), cudaGetErrorString(err)}; }
#endif
};

#if defined(__CUDACC__)
// Grid size cap for batched launches; blocks stride over the remaining samples.
constexpr int MAX_GRID_BLOCKS = 1 << 20;

// Raises a kernel's dynamic shared-memory limit when it needs more than the default 48 KiB.
template <typename Kernel>
inline cudaError_t set_smem_limit(Kernel kernel, size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

// Device allocations of one host-wrapper call, freed when it returns.
template <typename T>
class DeviceBuffers {
  public:
    DeviceBuffers() = default;
    DeviceBuffers(const DeviceBuffers&) = delete;
    DeviceBuffers& operator=(const DeviceBuffers&) = delete;
    ~DeviceBuffers() {
        for (T* p : ptrs_) cudaFree(p);
    }
    T* alloc(size_t n) {
        T* p = nullptr;
        if (err_ == cudaSuccess) err_ = cudaMalloc(&p, (n > 0 ? n : 1) * sizeof(T));
        if (p != nullptr) ptrs_.push_back(p);
        return p;
    }
    T* upload(const T* host, size_t n) {
        T* p = alloc(n);
        if (err_ == cudaSuccess) err_ = cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice);
        return p;
    }
    bool failed() const { return err_ != cudaSuccess; }
    Status status() const { return Status::from(err_); }

  private:
    std::vector<T*> ptrs_;
    cudaError_t err_ = cudaSuccess;
};
#endif

}  // namespace grid
