// Measured roofs of the GPU the benchmark runs on: device-to-device copy bandwidth and FMA throughput in
// float and double, printed as one JSON object on stdout.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o peak bench/roofline/peak.cu && ./peak [--bytes N] [--reps R]
//
// Bandwidth counts every byte read plus every byte written (a copy of N bytes moves 2N), the convention of
// STREAM and of the roofline's memory roof. GB and GFLOP/s are decimal (1e9). Each figure is the median of
// --reps timed repetitions (cudaEvent timing) after warm-up launches. The top-level bandwidth_GBps is the
// better of the two copies (cudaMemcpyAsync and a grid-stride kernel): the memory roof a kernel can reach;
// fma_f32_GFLOPs and fma_f64_GFLOPs are the compute roofs (an FMA counts 2 flops).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                       \
    do {                                                                                                  \
        cudaError_t err_ = (call);                                                                        \
        if (err_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            std::exit(1);                                                                                 \
        }                                                                                                 \
    } while (0)

namespace {

// Grid-stride copy in 16-byte words: the simplest kernel that saturates DRAM.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ float fma_op(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fma_op(double a, double b, double c) { return fma(a, b, c); }

__device__ __forceinline__ uint64_t global_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// CHAINS independent FMA chains per thread hide the FMA latency; b and c are run-time values, so no chain
// can be folded, and every thread stores its sum, so none is dead. a ← a·b + c converges to c/(1−b)
// without overflow or denormals. Block 0's thread 0 also records SM cycles and nanoseconds elapsed, giving
// the SM clock under this load.
template <typename T, int CHAINS>
__global__ void fma_kernel(T* out, T b, T c, int iters, long long* cycles, unsigned long long* ns) {
    const bool timer = blockIdx.x == 0 && threadIdx.x == 0;
    long long c0 = 0;
    uint64_t t0 = 0;
    if (timer) {
        c0 = clock64();
        t0 = global_ns();
    }
    T a[CHAINS];
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) a[k] = T(threadIdx.x + k) * T(1e-3);
    for (int it = 0; it < iters; it += 16) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
#pragma unroll
            for (int k = 0; k < CHAINS; ++k) a[k] = fma_op(a[k], b, c);
        }
    }
    T s = T(0);
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) s += a[k];
    out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = s;
    if (timer) {
        *cycles = clock64() - c0;
        *ns = global_ns() - t0;
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times fn() reps times after warm-up; returns per-repetition milliseconds.
template <typename F>
std::vector<double> time_ms(F fn, int reps, int warmup = 3) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; ++i) fn();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        CHECK(cudaEventRecord(start));
        fn();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t = 0.f;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms;
}

struct FmaResult {
    double gflops, min_ms, median_ms, sm_clock_mhz;
};

template <typename T, int CHAINS>
FmaResult measure_fma(int sms, int reps, int iters) {
    constexpr int threads = 256;
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_kernel<T, CHAINS>, threads, 0));
    const int blocks = sms * std::max(per_sm, 1);
    T* out = nullptr;
    long long* cycles = nullptr;
    unsigned long long* ns = nullptr;
    CHECK(cudaMalloc(&out, size_t(blocks) * threads * sizeof(T)));
    CHECK(cudaMalloc(&cycles, sizeof(long long)));
    CHECK(cudaMalloc(&ns, sizeof(unsigned long long)));
    const T b = T(0.999999), c = T(1e-6);
    const std::vector<double> ms =
        time_ms([&] { fma_kernel<T, CHAINS><<<blocks, threads>>>(out, b, c, iters, cycles, ns); }, reps);
    long long h_cycles = 0;
    unsigned long long h_ns = 0;
    CHECK(cudaMemcpy(&h_cycles, cycles, sizeof h_cycles, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&h_ns, ns, sizeof h_ns, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(out));
    CHECK(cudaFree(cycles));
    CHECK(cudaFree(ns));
    const double flops = 2.0 * double(blocks) * threads * CHAINS * double(iters);
    const double med = median(ms);
    return FmaResult{flops / (med * 1e-3) / 1e9, *std::min_element(ms.begin(), ms.end()), med,
                     h_ns > 0 ? double(h_cycles) / double(h_ns) * 1e3 : 0.0};
}

// FP32 and FP64 FMA lanes per SM by compute capability (CUDA C Programming Guide, arithmetic instruction
// throughput); 0 when not tabulated here.
void lanes_per_sm(int major, int minor, int& f32, int& f64) {
    f32 = f64 = 0;
    if (major == 9 && minor == 0) { f32 = 128; f64 = 64; }
    else if (major == 8 && minor == 0) { f32 = 64; f64 = 32; }
    else if (major == 10 && minor == 0) { f32 = 128; f64 = 64; }
}

}  // namespace

int main(int argc, char** argv) {
    size_t bytes = size_t(1) << 31;  // per buffer: 2 GiB, far beyond any cache
    int reps = 25;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--bytes N] [--reps R]\n", argv[0]);
            return 2;
        }
    }
    bytes = (bytes / sizeof(int4)) * sizeof(int4);

    int dev = 0;
    CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    int sm_khz = 0, mem_khz = 0, bus_bits = 0, driver = 0, runtime = 0;
    CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev));
    CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
    CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    const int sms = prop.multiProcessorCount;

    // ---- copy bandwidth ----
    void *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 1, bytes));
    CHECK(cudaMemset(dst, 0, bytes));
    const std::vector<double> memcpy_ms =
        time_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); }, reps);
    int copy_per_sm = 0;
    constexpr int copy_threads = 512;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&copy_per_sm, copy_kernel, copy_threads, 0));
    const int copy_blocks = sms * std::max(copy_per_sm, 1);
    const size_t words = bytes / sizeof(int4);
    CHECK(cudaMemset(dst, 0, bytes));  // so the check below sees the kernel's copy, not cudaMemcpy's
    const std::vector<double> kernel_ms = time_ms(
        [&] { copy_kernel<<<copy_blocks, copy_threads>>>(static_cast<const int4*>(src), static_cast<int4*>(dst), words); },
        reps);
    // the kernel really copied: spot-check the last word
    int4 tail{};
    CHECK(cudaMemcpy(&tail, static_cast<int4*>(dst) + words - 1, sizeof tail, cudaMemcpyDeviceToHost));
    const bool copy_ok = tail.x == 0x01010101 && tail.w == 0x01010101;
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    const double moved = 2.0 * double(bytes);
    const double memcpy_gbs = moved / (median(memcpy_ms) * 1e-3) / 1e9;
    const double kernel_gbs = moved / (median(kernel_ms) * 1e-3) / 1e9;

    // ---- FMA throughput ----
    const FmaResult f32 = measure_fma<float, 8>(sms, reps, 1 << 17);
    const FmaResult f64 = measure_fma<double, 8>(sms, reps, 1 << 16);

    int lanes32 = 0, lanes64 = 0;
    lanes_per_sm(prop.major, prop.minor, lanes32, lanes64);
    const double clk_ghz = f32.sm_clock_mhz * 1e-3;

    std::printf("{\n");
    std::printf("  \"device\": \"%s\",\n", prop.name);
    std::printf("  \"compute_capability\": \"%d.%d\",\n", prop.major, prop.minor);
    std::printf("  \"sm_count\": %d,\n", sms);
    std::printf("  \"driver_version\": %d,\n  \"runtime_version\": %d,\n", driver, runtime);
    std::printf("  \"sm_clock_max_mhz\": %.0f,\n", sm_khz * 1e-3);
    std::printf("  \"mem_clock_mhz\": %.0f,\n  \"mem_bus_bits\": %d,\n", mem_khz * 1e-3, bus_bits);
    // double data rate: two transfers per memory clock over the whole bus
    std::printf("  \"theoretical_bandwidth_GBps\": %.1f,\n", 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9);
    std::printf("  \"global_mem_bytes\": %zu,\n  \"l2_bytes\": %d,\n", prop.totalGlobalMem, prop.l2CacheSize);
    std::printf("  \"bandwidth_GBps\": %.1f,\n", std::max(memcpy_gbs, kernel_gbs));
    std::printf("  \"fma_f32_GFLOPs\": %.1f,\n  \"fma_f64_GFLOPs\": %.1f,\n", f32.gflops, f64.gflops);
    std::printf("  \"copy\": {\"buffer_bytes\": %zu, \"reps\": %d, \"bytes_counted\": \"read + write\", "
                "\"memcpy_GBps\": %.1f, \"memcpy_median_ms\": %.4f, \"kernel_GBps\": %.1f, "
                "\"kernel_median_ms\": %.4f, \"kernel_blocks\": %d, \"kernel_threads\": %d, \"kernel_ok\": %s},\n",
                bytes, reps, memcpy_gbs, median(memcpy_ms), kernel_gbs, median(kernel_ms), copy_blocks, copy_threads,
                copy_ok ? "true" : "false");
    std::printf("  \"fma\": {\"reps\": %d, \"chains_per_thread\": 8, "
                "\"f32\": {\"GFLOPs\": %.1f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"sm_clock_mhz\": %.0f, "
                "\"theoretical_GFLOPs_at_clock\": %.1f}, "
                "\"f64\": {\"GFLOPs\": %.1f, \"median_ms\": %.4f, \"min_ms\": %.4f, \"sm_clock_mhz\": %.0f, "
                "\"theoretical_GFLOPs_at_clock\": %.1f}}\n",
                reps, f32.gflops, f32.median_ms, f32.min_ms, f32.sm_clock_mhz, 2.0 * sms * lanes32 * clk_ghz,
                f64.gflops, f64.median_ms, f64.min_ms, f64.sm_clock_mhz,
                2.0 * sms * lanes64 * f64.sm_clock_mhz * 1e-3);
    std::printf("}\n");
    return copy_ok ? 0 : 1;
}
