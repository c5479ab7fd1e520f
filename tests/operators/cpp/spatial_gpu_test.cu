// CUDA test of glass/spatial.cuh: the block-scope operators at many block sizes (1 to 1024, sizes that do
// not divide 6, 10 or 36, and 2-D blocks), the warp-scope operators with several warps per block, and the
// thread-scope operators one sample per thread, all compared with the host build of the thread-scope
// operators (which spatial_test.cpp checks against the definitions). Inputs and outputs live in shared
// memory as in the generated kernels, so `compute-sanitizer --tool racecheck` covers the barriers; outputs
// are poisoned with NaN first, so an entry that no thread writes fails. Every fourth sample runs the
// HAS_BETA variants with beta = 0 over NaN-filled outputs (which must not propagate).
//
// Prints "N passed, M failed" and exits non-zero on any failure.

#include "glass/spatial.cuh"
#include "scopes.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

#define CUDA_CHECK(call)                                                                                 \
    do {                                                                                                 \
        cudaError_t err_ = (call);                                                                       \
        if (err_ != cudaSuccess) {                                                                       \
            std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, __LINE__,      \
                        cudaGetErrorString(err_));                                                       \
            std::exit(2);                                                                                \
        }                                                                                                \
    } while (0)

template <typename T>
struct Sample {
    T v[6], x[6], f[6], E[9], r[3], pi[10], y0[10], alpha, beta;
};

constexpr int kSampleWords = 6 + 6 + 6 + 9 + 3 + 10 + 10 + 2;
static_assert(sizeof(Sample<float>) == kSampleWords * sizeof(float), "Sample must be a plain array of words");
static_assert(sizeof(Sample<double>) == kSampleWords * sizeof(double), "Sample must be a plain array of words");
constexpr int kOut = 6 * 36 + 20 * 6 + 4 * 10;

// out[0..n) = y0[0..n), spread over the scope's threads, then the scope's barrier (the accumulating variants
// read what this wrote).
template <class A, typename T>
GLASS_HD void preload(const T* y0, T* out, int n) {
    for (uint32_t k = A::rank(); k < uint32_t(n); k += A::size()) out[k] = y0[k];
    A::sync();
}

template <class A, typename T, int AXIS>
GLASS_HD T* run_axis(const Sample<T>& s, T* out) {
    preload<A>(s.y0, out, 6);
    A::template motion_cross_mul<T, AXIS, true>(s.alpha, s.v, nullptr, s.beta, out);
    A::sync();
    return out + 6;
}

// Every operator and template variant once, writing kOut values.
template <class A, typename T>
GLASS_HD void run_all(const Sample<T>& s, T* out) {
    A::template motion_cross<T>(s.v, out);
    out += 36;
    A::template force_cross<T>(s.v, out);
    out += 36;
    A::template force_cross_dual<T>(s.f, out);
    out += 36;
    A::template motion_transform<T>(s.E, s.r, out);
    out += 36;
    A::template force_transform<T>(s.E, s.r, out);
    out += 36;
    A::template spatial_inertia<T>(s.pi, out);
    out += 36;
    A::sync();

    A::template motion_cross_mul<T, -1, false>(s.alpha, s.v, s.x, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template motion_cross_mul<T, -1, true>(s.alpha, s.v, s.x, s.beta, out);
    out += 6;
    out = run_axis<A, T, 0>(s, out);
    out = run_axis<A, T, 1>(s, out);
    out = run_axis<A, T, 2>(s, out);
    out = run_axis<A, T, 3>(s, out);
    out = run_axis<A, T, 4>(s, out);
    out = run_axis<A, T, 5>(s, out);

    A::template force_cross_mul<T, false>(s.alpha, s.v, s.f, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template force_cross_mul<T, true>(s.alpha, s.v, s.f, s.beta, out);
    out += 6;

    A::template motion_transform_mul<T, false, false>(s.alpha, s.E, s.r, s.v, s.beta, out);
    out += 6;
    A::template motion_transform_mul<T, true, false>(s.alpha, s.E, s.r, s.v, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template motion_transform_mul<T, false, true>(s.alpha, s.E, s.r, s.v, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template motion_transform_mul<T, true, true>(s.alpha, s.E, s.r, s.v, s.beta, out);
    out += 6;

    A::template force_transform_mul<T, false, false>(s.alpha, s.E, s.r, s.f, s.beta, out);
    out += 6;
    A::template force_transform_mul<T, true, false>(s.alpha, s.E, s.r, s.f, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template force_transform_mul<T, false, true>(s.alpha, s.E, s.r, s.f, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template force_transform_mul<T, true, true>(s.alpha, s.E, s.r, s.f, s.beta, out);
    out += 6;

    A::template spatial_inertia_mul<T, false>(s.alpha, s.pi, s.v, s.beta, out);
    out += 6;
    preload<A>(s.y0, out, 6);
    A::template spatial_inertia_mul<T, true>(s.alpha, s.pi, s.v, s.beta, out);
    out += 6;

    A::template spatial_inertia_transform<T, false, false>(s.E, s.r, s.pi, out);
    out += 10;
    A::template spatial_inertia_transform<T, true, false>(s.E, s.r, s.pi, out);
    out += 10;
    // The accumulating inertia transform has no beta: accumulate onto finite values.
    preload<A>(s.pi, out, 10);
    A::template spatial_inertia_transform<T, false, true>(s.E, s.r, s.pi, out);
    out += 10;
    preload<A>(s.pi, out, 10);
    A::template spatial_inertia_transform<T, true, true>(s.E, s.r, s.pi, out);
    A::sync();
}

// Copies n words between global and shared memory with the scope's threads.
template <class A, typename T>
__device__ void copy_words(const T* src, T* dst, int n) {
    for (uint32_t k = A::rank(); k < uint32_t(n); k += A::size()) dst[k] = src[k];
    A::sync();
}

// One sample per block; the sample and its outputs in shared memory.
template <class A, typename T>
__global__ void block_kernel(const Sample<T>* samples, const T* poison, T* out) {
    extern __shared__ unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    Sample<T>* s = reinterpret_cast<Sample<T>*>(smem);
    T* o = smem + kSampleWords;
    copy_words<A>(reinterpret_cast<const T*>(samples + blockIdx.x), smem, kSampleWords);
    copy_words<A>(poison, o, kOut);
    run_all<A>(*s, o);
    copy_words<A>(o, out + size_t(blockIdx.x) * kOut, kOut);
}

// One sample per warp (blockDim.x a multiple of 32); each warp has its own shared-memory region.
template <typename T>
__global__ void warp_kernel(const Sample<T>* samples, const T* poison, T* out, int n) {
    using A = glass_test::WarpApi;
    extern __shared__ unsigned char smem_raw[];
    const int warp_in_block = int(threadIdx.x / 32);
    const int w = int(blockIdx.x) * int(blockDim.x / 32) + warp_in_block;
    if (w >= n) return;
    T* smem = reinterpret_cast<T*>(smem_raw) + warp_in_block * (kSampleWords + kOut);
    Sample<T>* s = reinterpret_cast<Sample<T>*>(smem);
    T* o = smem + kSampleWords;
    copy_words<A>(reinterpret_cast<const T*>(samples + w), smem, kSampleWords);
    copy_words<A>(poison, o, kOut);
    run_all<A>(*s, o);
    copy_words<A>(o, out + size_t(w) * kOut, kOut);
}

// One sample per thread, straight from global memory.
template <typename T>
__global__ void thread_kernel(const Sample<T>* samples, const T* poison, T* out, int n) {
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    T* o = out + size_t(i) * kOut;
    for (int k = 0; k < kOut; ++k) o[k] = poison[k];
    run_all<glass_test::ThreadApi>(samples[i], o);
}

int g_passed = 0;
int g_failed = 0;

template <typename T>
constexpr double tolerance() {
    return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

// Output segments of run_all (a matrix or a vector each); errors are scaled by the segment's largest |ref|.
std::vector<int> segments() {
    std::vector<int> s(6, 36);
    s.insert(s.end(), 20, 6);
    s.insert(s.end(), 4, 10);
    return s;
}

template <typename T>
void compare(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, int n) {
    const std::vector<int> seg = segments();
    int bad_sample = -1, bad_entry = -1;
    for (int i = 0; i < n && bad_sample < 0; ++i) {
        int off = 0;
        for (int len : seg) {
            double top = 1e-300;
            for (int k = 0; k < len; ++k) top = std::max(top, std::fabs(double(want[size_t(i) * kOut + off + k])));
            for (int k = 0; k < len; ++k) {
                const size_t at = size_t(i) * kOut + off + k;
                if (!(std::fabs(double(got[at]) - double(want[at])) <= tolerance<T>() * top)) {
                    bad_sample = i;
                    bad_entry = off + k;
                    break;
                }
            }
            if (bad_sample >= 0) break;
            off += len;
        }
    }
    if (bad_sample < 0) {
        ++g_passed;
        return;
    }
    ++g_failed;
    const size_t at = size_t(bad_sample) * kOut + bad_entry;
    std::printf("FAIL %s: sample %d output %d got %.17g want %.17g\n", what.c_str(), bad_sample, bad_entry,
                double(got[at]), double(want[at]));
}

template <typename T>
std::vector<Sample<T>> make_samples(int n) {
    std::mt19937_64 gen(0x9e3779b97f4a7c15ULL);
    std::uniform_real_distribution<double> u(-1, 1);
    std::normal_distribution<double> g(0, 1);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::vector<Sample<T>> out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        Sample<T>& s = out[size_t(i)];
        for (T& e : s.v) e = T(u(gen));
        for (T& e : s.x) e = T(u(gen));
        for (T& e : s.f) e = T(u(gen));
        for (T& e : s.r) e = T(u(gen));
        double q[4], norm = 0;
        for (double& e : q) {
            e = g(gen);
            norm += e * e;
        }
        norm = std::sqrt(norm);
        const double x = q[0] / norm, y = q[1] / norm, z = q[2] / norm, w = q[3] / norm;
        const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                             2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                             2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
        for (int k = 0; k < 9; ++k) s.E[k] = T(R[k]);
        // The operators are linear in pi: any 10 numbers exercise them.
        for (T& e : s.pi) e = T(u(gen));
        s.pi[0] = T(1 + 0.5 * u(gen));
        s.alpha = T(1.5 * u(gen));
        if (i % 4 == 0) {
            s.beta = T(0);
            for (T& e : s.y0) e = nan;
        } else {
            s.beta = T(u(gen));
            for (T& e : s.y0) e = T(u(gen));
        }
    }
    return out;
}

template <typename T>
void run_type(const char* type) {
    const int n = 64;
    const std::vector<Sample<T>> samples = make_samples<T>(n);
    std::vector<T> want(size_t(n) * kOut, std::numeric_limits<T>::quiet_NaN());
    for (int i = 0; i < n; ++i) run_all<glass_test::ThreadApi>(samples[size_t(i)], want.data() + size_t(i) * kOut);

    Sample<T>* d_samples = nullptr;
    T* d_out = nullptr;
    T* d_poison = nullptr;
    const std::vector<T> poison(size_t(n) * kOut, std::numeric_limits<T>::quiet_NaN());
    CUDA_CHECK(cudaMalloc(&d_samples, sizeof(Sample<T>) * size_t(n)));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(T) * poison.size()));
    CUDA_CHECK(cudaMalloc(&d_poison, sizeof(T) * poison.size()));
    CUDA_CHECK(cudaMemcpy(d_samples, samples.data(), sizeof(Sample<T>) * size_t(n), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_poison, poison.data(), sizeof(T) * poison.size(), cudaMemcpyHostToDevice));
    std::vector<T> got(poison.size());
    auto fetch = [&]() {
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(got.data(), d_out, sizeof(T) * got.size(), cudaMemcpyDeviceToHost));
    };
    auto reset = [&]() { CUDA_CHECK(cudaMemcpy(d_out, d_poison, sizeof(T) * poison.size(), cudaMemcpyDeviceToDevice)); };

    const size_t block_smem = sizeof(T) * size_t(kSampleWords + kOut);
    const dim3 blocks[] = {dim3(1),   dim3(2),   dim3(3),   dim3(5),    dim3(6),   dim3(7),
                           dim3(10),  dim3(13),  dim3(31),  dim3(32),   dim3(33),  dim3(36),
                           dim3(37),  dim3(64),  dim3(100), dim3(255),  dim3(256), dim3(1024),
                           dim3(5, 3), dim3(7, 5), dim3(32, 2), dim3(13, 13, 1)};
    for (const dim3& b : blocks) {
        const std::string shape = std::to_string(b.x) + "x" + std::to_string(b.y);
        reset();
        block_kernel<glass_test::BlockApi<true>, T><<<n, b, block_smem>>>(d_samples, d_poison, d_out);
        fetch();
        compare(std::string(type) + "/block " + shape, got, want, n);
        reset();
        block_kernel<glass_test::BlockApi<false>, T><<<n, b, block_smem>>>(d_samples, d_poison, d_out);
        fetch();
        compare(std::string(type) + "/block(no trailing sync) " + shape, got, want, n);
    }
    for (int warps : {1, 2, 4}) {
        reset();
        const int threads = 32 * warps;
        const int grid = (n + warps - 1) / warps;
        warp_kernel<T><<<grid, threads, block_smem * size_t(warps)>>>(d_samples, d_poison, d_out, n);
        fetch();
        compare(std::string(type) + "/warp x" + std::to_string(warps), got, want, n);
    }
    for (int threads : {1, 7, 32, 64}) {
        reset();
        thread_kernel<T><<<(n + threads - 1) / threads, threads>>>(d_samples, d_poison, d_out, n);
        fetch();
        compare(std::string(type) + "/thread " + std::to_string(threads), got, want, n);
    }
    CUDA_CHECK(cudaFree(d_samples));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_poison));
}

}  // namespace

int main() {
    run_type<double>("double");
    run_type<float>("float");
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
