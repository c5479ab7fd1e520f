// Small types and helpers shared by every generated robot header.
#pragma once

#include "glass/scope.cuh"

#include <cstddef>
#include <cstdint>
#include <type_traits>

// GRID_CUDA_HOST: code that launches kernels through the CUDA runtime. NVRTC (__CUDACC_RTC__) compiles device
// code only: the kernels, without the launch helpers and host wrappers. The launch code compiles two ways:
//   * nvcc, with the kernels in the same library (`kernel<<<...>>>`);
//   * GRID_RTC_HOST: a host C++ compiler, for kernels NVRTC compiles at run time into a cubin that the
//     library loads (grid::rtc below); no nvcc is needed, only the CUDA runtime's headers and library.
#if defined(GRID_RTC_HOST)
#include <cuda_runtime_api.h>
#endif
#if (defined(__CUDACC__) && !defined(__CUDACC_RTC__)) || defined(GRID_RTC_HOST)
#define GRID_CUDA_HOST 1
#endif

#if !defined(__CUDACC_RTC__)
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>
#endif
#if defined(GRID_RTC_HOST)
#include <mutex>
#include <string>
#include <unordered_map>
#endif

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

// Sample groups. The generated entry points are cooperative over a *sample group*: the blockDim.x threads
// of a block that share threadIdx.y work on one sample, and a block holds blockDim.y samples. A 1-D block is
// one group (the whole block, barriers are __syncthreads()); blockDim.x == 1 runs a sample per thread with no
// barriers at all. Groups of 2..32 threads must be a power of two (they sit inside one warp and
// synchronise with __syncwarp on their own lanes); larger groups of a multiple of 32 threads use named
// barrier threadIdx.y + 1, so a block holds at most 15 of them. On the host a group is one thread.

// Rank of the calling thread in its sample group, and the group's size.
GLASS_HD uint32_t group_rank() {
#if defined(__CUDA_ARCH__)
    return threadIdx.x;
#else
    return 0;
#endif
}

GLASS_HD uint32_t group_size() {
#if defined(__CUDA_ARCH__)
    return blockDim.x;
#else
    return 1;
#endif
}

// Barrier over the calling thread's sample group (see above); a no-op on the host and for one-thread groups.
GLASS_HD void group_sync() {
#if defined(__CUDA_ARCH__)
    if (blockDim.y == 1) {
        __syncthreads();
    } else if (blockDim.x == 1) {
        // the sample belongs to this thread alone
    } else if (blockDim.x < 32) {
        const uint32_t first_lane = (threadIdx.y * blockDim.x) & 31u;
        __syncwarp(((1u << blockDim.x) - 1u) << first_lane);
    } else if (blockDim.x == 32) {
        __syncwarp();
    } else {
        asm volatile("bar.sync %0, %1;" ::"r"(threadIdx.y + 1), "r"(blockDim.x) : "memory");
    }
#endif
}

// Group-stride copy of n values: every thread of the sample group calls it; no trailing barrier.
template <typename T, typename U>
GLASS_HD void block_copy(T* dst, const U* src, uint32_t n) {
    for (uint32_t k = group_rank(); k < n; k += group_size()) dst[k] = static_cast<T>(src[k]);
}

// How a batched launch maps samples to threads: threads_per_sample threads (blockDim.x) cooperate on each
// sample and samples_per_block samples (blockDim.y) share a block, each with its own shared-memory slice.
struct LaunchShape {
    int threads_per_sample;
    int samples_per_block;
    constexpr int threads() const { return threads_per_sample * samples_per_block; }
};

// The default-argument marker of the `<algo>_launch` helpers: use the shape baked for the batch size.
constexpr LaunchShape BAKED_LAUNCH_SHAPE{0, 0};

// The shape of the limb kernels (`<algo>_limbs_kernel`, where an entry point has one): a block per sample and a
// warp per limb of the tree (grid/schedule.cuh, LimbScope), for batches so small that one sample's latency is
// the call's. Not a sample-group shape: valid_launch_shape refuses it, the launch functions that have a limb
// kernel take it first.
constexpr LaunchShape LIMBS_LAUNCH_SHAPE{-1, 1};
GLASS_HD constexpr bool is_limbs_shape(LaunchShape s) {
    return s.threads_per_sample == LIMBS_LAUNCH_SHAPE.threads_per_sample;
}

// An entry point's baked launch configuration in precision T, specialised by grid.cuh for each of its entry
// points (ALGO is GRID_ALGO_<NAME>): TIER, the resource tier (below) tuned for the robot and GPU, TIER_SHARED
// where untuned; MAX_THREADS, the kernels' __launch_bounds__; shape(num_samples), the launch shape by batch.
template <int ALGO, typename T = float>
struct launch_cfg;

// A kernel's __launch_bounds__: the baked value, or GRID_MAX_THREADS where the build defines it.
constexpr int max_threads_override(int baked) {
#if defined(GRID_MAX_THREADS)
    (void)baked;
    return GRID_MAX_THREADS;
#else
    return baked;
#endif
}

// Whether a shape is one the sample-group barriers support, within max_threads threads per block.
constexpr bool valid_launch_shape(LaunchShape s, int max_threads) {
    const int g = s.threads_per_sample;
    if (g < 1 || s.samples_per_block < 1 || s.threads() > max_threads) return false;
    if (s.samples_per_block == 1 || g == 1) return true;
    if (g <= 32) return (g & (g - 1)) == 0;
    return g % 32 == 0 && s.samples_per_block <= 15;
}

// Resource tiers: how much of a block's resources an entry point may take, for a caller who runs it inside a
// kernel of their own. Each entry point has three spill levels, the places of a sample's memory:
//   level 0  its buffers (inputs and outputs) and its scratch in shared memory;
//   level 1  the scratch (or the part of it the inner's placement parameter moves) in global memory
//            (d_workspace), the buffers in shared memory;
//   level 2  the scratch in d_workspace and the outputs written straight to the caller's global memory: only
//            the inputs in shared memory.
// A tier resolves to a level per robot, precision and entry point (spill_level): TIER_SHARED to level 0
// (fastest), TIER_MINIMAL to level 2 (least shared memory), TIER_LITE to the first level whose shared memory
// fits TIER_LITE_SMEM_BYTES. Each entry point's <ALGO>_SPILL_LEVEL<T, TIER>(), its inner's placement
// (<ALGO>_TEMP_IN_SMEM<T, TIER>(), MINV_F_IN_SMEM, EE_GRAD_TEMP_IN_SMEM, ...: docs/architecture.md) and
// <ALGO>_OUTPUTS_IN_SMEM<T, TIER>() say what a tier resolves to for the robot at hand.
constexpr int TIER_SHARED = 0;
constexpr int TIER_LITE = 1;
constexpr int TIER_MINIMAL = 2;
GLASS_HD constexpr bool valid_tier(int tier) { return tier == TIER_SHARED || tier == TIER_LITE || tier == TIER_MINIMAL; }
// The shared memory a block gets without opting in to more: TIER_LITE's budget for one sample.
constexpr size_t TIER_LITE_SMEM_BYTES = 48 * 1024;
// The spill level of a tier, from the shared memory a sample takes at levels 0 and 1, in bytes.
GLASS_HD constexpr int spill_level(int tier, size_t level0_bytes, size_t level1_bytes) {
    return tier == TIER_SHARED                        ? 0
           : tier == TIER_MINIMAL                     ? 2
           : level0_bytes <= TIER_LITE_SMEM_BYTES     ? 0
           : level1_bytes <= TIER_LITE_SMEM_BYTES     ? 1
                                                      : 2;
}

// A group kernel's __launch_bounds__ at a tier, from its TIER_SHARED bound: looser bounds let a caller launch
// larger blocks, and make the compiler budget fewer registers per thread (TIER_LITE twice the threads, at most
// 768 unless the shared bound is already higher; TIER_MINIMAL the hardware's 1024).
GLASS_HD constexpr int tier_max_threads(int tier, int shared_bound) {
    const int lite = 2 * shared_bound < 768 ? 2 * shared_bound : 768;
    return tier == TIER_SHARED ? shared_bound : tier == TIER_LITE ? (lite > shared_bound ? lite : shared_bound) : 1024;
}

// Elements between consecutive samples' shared-memory slices: the per-sample need rounded up to an odd
// count, so that one-thread groups reading the same offset of their slices hit distinct banks.
GLASS_HD constexpr size_t sample_stride(size_t elements) { return elements | size_t(1); }

// Outcome of a host wrapper: code 0 is success; otherwise message says what failed.
struct Status {
    int code;
    const char* message;
    static Status ok() { return Status{0, "ok"}; }
    bool is_ok() const { return code == 0; }
#if defined(GRID_CUDA_HOST)
    static Status from(cudaError_t err) { return Status{static_cast<int>(err), cudaGetErrorString(err)}; }
#endif
};

// The per-warp tile of WarpStores (below), which the launch code sizes the dynamic shared memory by.
template <typename T>
struct WarpStoreTile {
    static constexpr int CHUNK = 128 / int(sizeof(T));  // values of one 128-byte run
    static constexpr int PITCH = CHUNK + 1;               // odd pitch: lanes filling the tile hit distinct banks
    static constexpr int TILE = 32 * PITCH;

    // Dynamic shared memory of a block of `threads` threads.
    static constexpr size_t smem_bytes(int threads) { return size_t((threads + 31) / 32) * TILE * sizeof(T); }
};

// Dynamic shared memory of a one-sample-per-thread kernel's block of `threads` threads.
template <typename T>
constexpr size_t thread_store_smem_bytes(int threads) {
#if defined(GRID_DIRECT_THREAD_STORES)
    (void)threads;
    return 0;
#else
    return WarpStoreTile<T>::smem_bytes(threads);
#endif
}

#if defined(__CUDACC__)
// Coalesced stores of the one-sample-per-thread kernels. Sample k's outputs lie at [k·S, (k + 1)·S), so the
// 32 lanes of a warp (samples base .. base + 31) writing their element e at once touch 32 lines; through a
// per-warp tile in shared memory the warp instead writes its samples' 32·S contiguous values in 128-byte
// runs. Build with GRID_DIRECT_THREAD_STORES to have every thread store its own outputs (for comparison).
template <typename T>
struct WarpStores : WarpStoreTile<T> {
    using WarpStoreTile<T>::CHUNK;
    using WarpStoreTile<T>::PITCH;
    using WarpStoreTile<T>::TILE;

    T* tile;
    int lane, lanes;  // this thread's lane, and the threads its warp has (a block need not be a multiple of 32)
    __device__ explicit WarpStores(void* smem)
        : tile(static_cast<T*>(smem) + (threadIdx.x / 32) * TILE),
          lane(int(threadIdx.x & 31u)),
          lanes(min(32, int(blockDim.x - (threadIdx.x & ~31u)))) {}

    // The first sample of the calling warp in a grid-stride loop's first pass.
    __device__ int warp_base() const { return int(blockIdx.x * blockDim.x + (threadIdx.x & ~31u)); }

    // dst[s·S + e] = lane s's src[e] for the warp's first `samples` lanes (dst: the warp's first sample).
    // Every thread of the warp calls it.
    // UNROLLED unrolls the loops over the values, so that src's indices are constants and src can live in
    // registers (an unrolled robot's arrays); a rolled robot's arrays are indexed at run time anyway, and
    // unrolling their stores costs the compiler minutes (a 120-body tree's mass matrix, 11449 values: over
    // ten minutes against 44 s).
    template <int S, bool UNROLLED = true>
    __device__ void store(T* dst, const T* src, int samples) const {
        store_part<S, 0, S, UNROLLED>(dst, src, samples);
    }

    // store for the elements [BEGIN, END) of each sample's S only (BEGIN a multiple of CHUNK, END one or S): for
    // outputs that become final piece by piece, so that stored values need not stay live.
    template <int S, int BEGIN, int END, bool UNROLLED = true>
    __device__ void store_part(T* dst, const T* src, int samples) const {
        static_assert(0 <= BEGIN && BEGIN <= END && END <= S, "a part of the outputs");
        static_assert(BEGIN % CHUNK == 0 && (END % CHUNK == 0 || END == S), "a part of whole 128-byte runs");
        if (lanes == 1) {  // a block of one thread (batch 1): nothing to coalesce
            if constexpr (UNROLLED) {
#pragma unroll
                for (int e = BEGIN; e < END; ++e) dst[e] = src[e];
            } else {
                for (int e = BEGIN; e < END; ++e) dst[e] = src[e];
            }
            return;
        }
        const int count = min(samples, lanes);
        const unsigned mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
        if constexpr (UNROLLED) {
#pragma unroll
            for (int c0 = BEGIN; c0 < END; c0 += CHUNK) store_run<S, END>(dst, src, c0, count, mask);
        } else {
#pragma unroll 1
            for (int c0 = BEGIN; c0 < END; c0 += CHUNK) store_run<S, END>(dst, src, c0, count, mask);
        }
    }

    // For a ROWS × COLS row-major output whose rows become final from the last to the first: rows [FIRST, END)
    // are final now (and every row after END before), so the 128-byte runs that hold only final values and were
    // not stored by an earlier call are stored.
    template <int ROWS, int COLS, int FIRST, int END, bool UNROLLED = true>
    __device__ void store_final_rows(T* dst, const T* src, int samples) const {
        constexpr int S = ROWS * COLS;
        constexpr int begin = round_up(FIRST * COLS) < S ? round_up(FIRST * COLS) : S;
        constexpr int end = END == ROWS || round_up(END * COLS) > S ? S : round_up(END * COLS);
        if constexpr (begin < end) store_part<S, begin, end, UNROLLED>(dst, src, samples);
    }

    // The same for an output whose rows become final from the first to the last (ROWS rows of COLS values):
    // rows [FIRST, END) are final now and every row before FIRST was before.
    template <int ROWS, int COLS, int FIRST, int END, bool UNROLLED = true>
    __device__ void store_final_leading_rows(T* dst, const T* src, int samples) const {
        constexpr int S = ROWS * COLS;
        constexpr int begin = round_down(FIRST * COLS);
        constexpr int end = END == ROWS ? S : round_down(END * COLS);
        if constexpr (begin < end) store_part<S, begin, end, UNROLLED>(dst, src, samples);
    }

  private:
    __host__ __device__ static constexpr int round_up(int e) { return (e + CHUNK - 1) / CHUNK * CHUNK; }
    __host__ __device__ static constexpr int round_down(int e) { return e / CHUNK * CHUNK; }

    // The run of elements [c0, min(c0 + CHUNK, END)) of the warp's first `count` samples, through the tile.
    template <int S, int END>
    __device__ __forceinline__ void store_run(T* dst, const T* src, int c0, int count, unsigned mask) const {
        const int w = min(CHUNK, END - c0);
#pragma unroll
        for (int i = 0; i < CHUNK; ++i)
            if (c0 + i < END) tile[lane * PITCH + i] = src[c0 + i];
        __syncwarp(mask);
        for (int t = lane; t < count * w; t += lanes) {
            const int s = t / w, i = t - s * w;
            dst[size_t(s) * S + c0 + i] = tile[s * PITCH + i];
        }
        __syncwarp(mask);
    }
};

#endif

#if defined(__CUDACC__) || defined(GRID_CUDA_HOST)
// Grid size cap for batched launches; blocks stride over the remaining samples.
constexpr int MAX_GRID_BLOCKS = 1 << 20;

// Blocks for num_samples samples at samples_per_block per block, capped at MAX_GRID_BLOCKS.
inline int launch_blocks(int num_samples, int samples_per_block) {
    const int blocks = (num_samples + samples_per_block - 1) / samples_per_block;
    return blocks < MAX_GRID_BLOCKS ? blocks : MAX_GRID_BLOCKS;
}
#endif

#if defined(GRID_CUDA_HOST)

// The devices whose launch settings are remembered per kernel (ordinals below it).
constexpr int kMaxDevices = 64;

// Raises kernel func's dynamic shared-memory limit to at least bytes on the current device when it needs more
// than the default 48 KiB, remembering in raised (per device) what is already allowed: launches stay cheap and
// command-buffer friendly.
inline cudaError_t raise_smem_limit(std::atomic<size_t> (&raised)[kMaxDevices], const void* func, size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    const bool cached = device >= 0 && device < kMaxDevices;
    if (cached && raised[device].load(std::memory_order_relaxed) >= bytes) return cudaSuccess;
    err = cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (err == cudaSuccess && cached) {
        size_t seen = raised[device].load(std::memory_order_relaxed);
        while (seen < bytes && !raised[device].compare_exchange_weak(seen, bytes)) {
        }
    }
    return err;
}

#if !defined(GRID_RTC_HOST)
// raise_smem_limit for kernel K of this library, set once per device and size, not on every launch.
template <auto K>
inline cudaError_t set_smem_limit(size_t bytes) {
    static std::atomic<size_t> raised[kMaxDevices];  // bytes already allowed, per device (zero-initialised)
    return raise_smem_limit(raised, reinterpret_cast<const void*>(K), bytes);
}
#endif

// L2 persisting of a spilled workspace, an opt-in build flag (GRID_CUDA_ENABLE_L2_PERSISTING=1; off by
// default, as the persisting carve-out evicts other traffic): a launch at a tier that spills first marks its
// d_workspace as an access-policy window on its stream, so that spilled accesses hit L2 rather than HBM. The
// window stays on the stream for later launches; not for streams being captured into a graph.
#if !defined(GRID_CUDA_ENABLE_L2_PERSISTING)
#define GRID_CUDA_ENABLE_L2_PERSISTING 0
#endif
inline cudaError_t persist_workspace(cudaStream_t stream, const void* workspace, size_t bytes) {
#if GRID_CUDA_ENABLE_L2_PERSISTING
    if (workspace == nullptr || bytes == 0) return cudaSuccess;
    int device = 0, max_window = 0, max_persisting = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device);
    if (err != cudaSuccess || max_window <= 0 || max_persisting <= 0) return err;
    static std::atomic<bool> limit_set[64];  // the persisting carve-out, set once per device
    if (device >= 0 && device < 64 && !limit_set[device].exchange(true))
        err = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, size_t(max_persisting));
    if (err != cudaSuccess) return err;
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = const_cast<void*>(workspace);
    attr.accessPolicyWindow.num_bytes = bytes < size_t(max_window) ? bytes : size_t(max_window);
    const double fits = double(max_persisting) / double(attr.accessPolicyWindow.num_bytes);
    attr.accessPolicyWindow.hitRatio = float(fits < 1.0 ? fits : 1.0);
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    return cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
#else
    (void)stream;
    (void)workspace;
    (void)bytes;
    return cudaSuccess;
#endif
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

#if defined(GRID_RTC_HOST)
// Kernels compiled at run time. NVRTC compiles a robot's kernels into a cubin; the launch code's library loads
// it (load, from the library's grid_rtc_load export) and finds each kernel by its C++ name expression, the
// string NVRTC was given for it ("grid::aba_kernel<float, 0>"), which NVRTC maps to the mangled name.
namespace rtc {

template <typename T>
constexpr const char* type_name() {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "float or double");
    return std::is_same<T, float>::value ? "float" : "double";
}

// "kernel<T>" and "kernel<T, TIER>", as NVRTC name expressions.
template <typename T>
std::string instance(const char* kernel) {
    return std::string(kernel) + "<" + type_name<T>() + ">";
}
template <typename T, int TIER>
std::string instance(const char* kernel) {
    return std::string(kernel) + "<" + type_name<T>() + ", " + std::to_string(TIER) + ">";
}

// "kernel<grid::Robot, T>": an algorithm kernel of the robot the generated header describes.
template <typename T>
std::string robot_instance(const char* kernel) {
    return std::string(kernel) + "<grid::Robot, " + type_name<T>() + ">";
}

// Name expression → kernel handle, for every kernel loaded so far (cubins stay loaded for the process).
class Registry {
  public:
    // Loads a cubin and binds its kernels: names[k] is a name expression, mangled[k] its symbol in the cubin.
    cudaError_t load(const void* cubin, int count, const char* const* names, const char* const* mangled) {
        cudaLibrary_t library = nullptr;
        cudaError_t err = cudaLibraryLoadData(&library, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0);
        if (err != cudaSuccess) return err;
        std::lock_guard<std::mutex> hold(lock_);
        for (int k = 0; k < count && err == cudaSuccess; ++k) {
            cudaKernel_t kernel = nullptr;
            err = cudaLibraryGetKernel(&kernel, library, mangled[k]);
            if (err == cudaSuccess) kernels_[names[k]] = kernel;
        }
        return err;
    }
    // The kernel of that name expression, or null when no loaded cubin has it.
    cudaKernel_t find(const std::string& name) const {
        std::lock_guard<std::mutex> hold(lock_);
        const auto it = kernels_.find(name);
        return it == kernels_.end() ? nullptr : it->second;
    }

  private:
    mutable std::mutex lock_;
    std::unordered_map<std::string, cudaKernel_t> kernels_;
};

inline Registry& registry() {
    static Registry r;
    return r;
}

// One kernel of the launch code, resolved from the registry on its first launch after the cubin holding it
// was loaded; afterwards a launch costs what a launch through <<<...>>> does.
class Kernel {
  public:
    explicit Kernel(std::string name) : name_(std::move(name)) {}
    const std::string& name() const { return name_; }
    // cudaErrorSymbolNotFound until a loaded cubin has it (grid_rbd compiles and loads the kernels of an entry
    // point before its first call).
    cudaError_t get(cudaKernel_t* out) {
        cudaKernel_t k = kernel_.load(std::memory_order_acquire);
        if (k == nullptr) {
            k = registry().find(name_);
            if (k == nullptr) return cudaErrorSymbolNotFound;
            kernel_.store(k, std::memory_order_release);
        }
        *out = k;
        return cudaSuccess;
    }

    std::atomic<size_t> raised[kMaxDevices] = {};  // its shared-memory limit per device (raise_smem_limit)

  private:
    std::string name_;
    std::atomic<cudaKernel_t> kernel_{nullptr};
};

// As set_smem_limit<K>, for a kernel of a loaded cubin.
inline cudaError_t set_smem_limit(Kernel& kernel, size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    cudaKernel_t k = nullptr;
    const cudaError_t err = kernel.get(&k);
    return err != cudaSuccess ? err : raise_smem_limit(kernel.raised, reinterpret_cast<const void*>(k), bytes);
}

// Launches kernel with the arguments, each passed as the kernel declares its parameter (the generated launch
// code passes its own parameters, declared as the kernel's: device pointers, int and Vec3<T>).
template <typename... A>
cudaError_t launch(Kernel& kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, A... args) {
    static_assert(((std::is_pointer<A>::value || std::is_same<A, int>::value || !std::is_arithmetic<A>::value) && ...),
                  "kernel arguments are pointers, int or structs: other arithmetic types would need the kernel's "
                  "exact parameter type");
    cudaKernel_t k = nullptr;
    const cudaError_t err = kernel.get(&k);
    if (err != cudaSuccess) return err;
    void* params[] = {static_cast<void*>(&args)..., nullptr};
    return cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, params, smem, stream);
}

}  // namespace rtc
#endif

}  // namespace grid
