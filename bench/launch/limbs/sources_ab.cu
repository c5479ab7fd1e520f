// Two kernel source trees side by side: the limb kernels of ABA, ∇ID, M⁻¹ and ∇FD at batch 1 (20 launches
// captured in a CUDA graph, the median of 31 replays) and the one-thread ABA kernel at 65536 samples (and
// ∇FD's at 16384 with -DAB_FDG_THREAD), float32, each checked first against the float64 thread functions on
// the host (333 samples, NaN-poisoned outputs; largest |a − b| / (1 + |b|)). One object per robot and source
// tree: nvcc -c -O3 -arch=sm_90 -std=c++17 -I <kernels tree> -I bench/launch -I <robot folder made by
// `go tool mage gen`> -DAB_TAG='"name"'; ab.sh links and runs them and prints the table.
#include "grid.cuh"
#include "probe.h"
#include <cmath>
#include <cstdio>
#include <vector>
using namespace grid;
using probe::Inputs;

#ifndef AB_TAG
#define AB_TAG "?"
#endif
static const char* robot_name = "robot";

// The error of a kernel's m matrix outputs of nn entries each (all samples' first output, then all samples'
// second, ...) against a reference laid out by sample.
static double matrices_err(const std::vector<float>& got, int m, int n, size_t nn, const std::vector<double>& ref) {
    std::vector<float> by_sample(got.size());
    for (int k = 0; k < n; ++k)
        for (int o = 0; o < m; ++o)
            for (size_t e = 0; e < nn; ++e) by_sample[(size_t(m) * k + o) * nn + e] = got[(size_t(o) * n + k) * nn + e];
    return probe::max_err(by_sample, ref);
}

static void report(const char* what, double err, double us) {
    std::printf("AB %s %s %s err %.3g us %.3f\n", robot_name, AB_TAG, what, err, us);
}

int main(int argc, char** argv) {
    using T = float;
    robot_name = argc > 1 ? argv[1] : "robot";
    const Inputs check = probe::make_inputs(333, 7), one = probe::make_inputs(1, 11);
    const int n = check.n;
    const size_t nn = size_t(NV) * NV;
    const Vec3<T> g = default_gravity<T>();
    probe::Device<T> d(check), d1(one);
    constexpr unsigned NLT = 32u * unsigned(limb_count<Robot>());
    // ABA limbs
    {
        std::vector<double> ref(size_t(n) * NV);
        for (int k = 0; k < n; ++k)
            aba_thread<double>(&ref[size_t(k) * NV], &check.q[size_t(k) * NQ], &check.qd[size_t(k) * NV],
                               &check.tau[size_t(k) * NV], default_gravity<double>());
        const size_t smem = sizeof(algorithms::AbaState<Robot, T>);
        PROBE_CHECK(cudaFuncSetAttribute(aba_limbs_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        PROBE_CHECK(cudaMemset(d.qdd, 0xff, size_t(n) * NV * sizeof(T)));
        aba_limbs_kernel<T><<<n, NLT, smem>>>(d.qdd, d.q, d.qd, d.tau, g, n);
        PROBE_CHECK(cudaDeviceSynchronize());
        const double e = probe::max_err(d.out(), ref);
        const double us = probe::graph_us([&](cudaStream_t s) { aba_limbs_kernel<T><<<1, NLT, smem, s>>>(d1.qdd, d1.q, d1.qd, d1.tau, g, 1); });
        report("aba_limbs_b1", e, us);
        // one thread per sample, batch 65536, 128 per block
        const int big = 65536;
        const Inputs bigin = probe::make_inputs(big, 5);
        probe::Device<T> db(bigin);
        const size_t tsm = thread_store_smem_bytes<T>(128);
        PROBE_CHECK(cudaFuncSetAttribute(aba_thread_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(tsm)));
        aba_thread_kernel<T><<<n / 128 + 1, 128, tsm>>>(d.qdd, d.q, d.qd, d.tau, g, n);
        PROBE_CHECK(cudaDeviceSynchronize());
        const double e2 = probe::max_err(d.out(), ref);
        const double us2 = probe::median_us(0, 21, [&] { aba_thread_kernel<T><<<big / 128, 128, tsm>>>(db.qdd, db.q, db.qd, db.tau, g, big); });
        report("aba_thread_65536", e2, us2);
    }
    // ∇ID limbs (qdd := tau)
    {
        std::vector<double> ref(2 * nn * n);
        for (int k = 0; k < n; ++k)
            inverse_dynamics_gradient_thread<double>(&ref[2 * nn * k], &ref[2 * nn * k + nn], &check.q[size_t(k) * NQ],
                                                     &check.qd[size_t(k) * NV], &check.tau[size_t(k) * NV], default_gravity<double>());
        const size_t smem = sizeof(algorithms::RneaGradientState<Robot, T>);
        PROBE_CHECK(cudaFuncSetAttribute(inverse_dynamics_gradient_limbs_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        T* out;
        PROBE_CHECK(cudaMalloc(&out, 2 * nn * n * sizeof(T)));
        PROBE_CHECK(cudaMemset(out, 0xff, 2 * nn * n * sizeof(T)));
        inverse_dynamics_gradient_limbs_kernel<T><<<n, NLT, smem>>>(out, out + nn * n, d.q, d.qd, d.tau, g, n);
        PROBE_CHECK(cudaDeviceSynchronize());
        const double e = matrices_err(probe::download(out, 2 * nn * n), 2, n, nn, ref);
        const double us = probe::graph_us([&](cudaStream_t s) { inverse_dynamics_gradient_limbs_kernel<T><<<1, NLT, smem, s>>>(out, out + nn, d1.q, d1.qd, d1.tau, g, 1); });
        report("idg_limbs_b1", e, us);
        PROBE_CHECK(cudaFree(out));
    }
    // M⁻¹ limbs
    {
        std::vector<double> ref(nn * n);
        for (int k = 0; k < n; ++k) minv_thread<double>(&ref[nn * k], &check.q[size_t(k) * NQ]);
        const size_t smem = (sizeof(algorithms::MinvState<Robot, T>) + 15) / 16 * 16 + nn * sizeof(T);
        PROBE_CHECK(cudaFuncSetAttribute(minv_limbs_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        T* out;
        PROBE_CHECK(cudaMalloc(&out, nn * n * sizeof(T)));
        PROBE_CHECK(cudaMemset(out, 0xff, nn * n * sizeof(T)));
        minv_limbs_kernel<T><<<n, NLT, smem>>>(out, d.q, n);
        PROBE_CHECK(cudaDeviceSynchronize());
        const double e = probe::max_err(probe::download(out, nn * n), ref);
        const double us = probe::graph_us([&](cudaStream_t s) { minv_limbs_kernel<T><<<1, NLT, smem, s>>>(out, d1.q, 1); });
        report("minv_limbs_b1", e, us);
        PROBE_CHECK(cudaFree(out));
    }
    // ∇FD limbs (two teams)
    {
        std::vector<double> ref(3 * nn * n);
        for (int k = 0; k < n; ++k) {
            double* r = &ref[3 * nn * k];
            forward_dynamics_gradient_thread<double>(r, r + nn, r + 2 * nn, &check.q[size_t(k) * NQ], &check.qd[size_t(k) * NV],
                                                     &check.tau[size_t(k) * NV], default_gravity<double>());
        }
        const size_t smem = sizeof(algorithms::FdGradientTeamsState<Robot, T>);
        PROBE_CHECK(cudaFuncSetAttribute(forward_dynamics_gradient_limbs_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        T* out;
        PROBE_CHECK(cudaMalloc(&out, 3 * nn * n * sizeof(T)));
        PROBE_CHECK(cudaMemset(out, 0xff, 3 * nn * n * sizeof(T)));
        forward_dynamics_gradient_limbs_kernel<T><<<n, 2 * NLT, smem>>>(out, out + nn * n, out + 2 * nn * n, d.q, d.qd, d.tau, g, n);
        PROBE_CHECK(cudaDeviceSynchronize());
        const double e = matrices_err(probe::download(out, 3 * nn * n), 3, n, nn, ref);
        const double us = probe::graph_us([&](cudaStream_t s) {
            forward_dynamics_gradient_limbs_kernel<T><<<1, 2 * NLT, smem, s>>>(out, out + nn, out + 2 * nn, d1.q, d1.qd, d1.tau, g, 1); });
        report("fdg_limbs_b1", e, us);
#if defined(AB_FDG_THREAD)
        const int big = 16384;
        const Inputs bigin = probe::make_inputs(big, 5);
        probe::Device<T> db(bigin);
        T* bo;
        PROBE_CHECK(cudaMalloc(&bo, 3 * nn * big * sizeof(T)));
        const size_t tsm = thread_store_smem_bytes<T>(64);
        PROBE_CHECK(cudaFuncSetAttribute(forward_dynamics_gradient_thread_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(tsm)));
        const double us2 = probe::median_us(0, 11, [&] {
            forward_dynamics_gradient_thread_kernel<T><<<big / 64, 64, tsm>>>(bo, bo + nn * big, bo + 2 * nn * big, db.q, db.qd, db.tau, g, big); });
        PROBE_CHECK(cudaGetLastError());
        report("fdg_thread_16384", NAN, us2);  // timed only
#endif
        PROBE_CHECK(cudaFree(out));
    }
    return 0;
}
