// ∇FD's limb kernel (forward_dynamics_gradient_limbs_kernel) alone: the only kernel of its translation unit, so
// that a build takes a minute where the probe's takes several, and kernels of one robot's headers from two
// generator versions time side by side. Checks it in float and double against forward_dynamics_gradient_thread
// in float64 on the host (333 samples, NaN-poisoned outputs) and times it at batch 1 (20 launches captured in a
// CUDA graph, the median of 31 replays; not with PROBE_CHECK_ONLY=1 in the environment). Build with nvcc
// -I kernels -I bench/launch -I <robot folder made by `go tool mage gen`>, and -DLIMB_TEAMS=1 for a header whose
// limb kernel runs one team of limb warps (ABA, ∇ID and M⁻¹ one after the other; FdGradientState) rather than
// two (FdGradientTeamsState); PROBE_FLOAT_ONLY skips double.
#include "grid.cuh"
#include "probe.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#if !defined(LIMB_TEAMS)
#define LIMB_TEAMS 2
#endif

using namespace grid;
using probe::Inputs;

#if LIMB_TEAMS == 2
template <typename T>
using State = algorithms::FdGradientTeamsState<Robot, T>;
#else
template <typename T>
using State = algorithms::FdGradientState<Robot, T>;
#endif

template <typename T>
static void run(const char* robot, const Inputs& check, const Inputs& one, const std::vector<double>& ref,
                const char* precision) {
    const size_t nn = size_t(NV) * NV;
    const unsigned threads = 32u * LIMB_TEAMS * limb_count<Robot>();
    const size_t smem = sizeof(State<T>);
    PROBE_CHECK(cudaFuncSetAttribute(forward_dynamics_gradient_limbs_kernel<T>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const auto launch = [&](T* out, const probe::Device<T>& d, int n, cudaStream_t s) {
        forward_dynamics_gradient_limbs_kernel<T><<<unsigned(n), threads, smem, s>>>(
            out, out + size_t(n) * nn, out + 2 * size_t(n) * nn, d.q, d.qd, d.tau, default_gravity<T>(), n);
    };
    probe::Device<T> d(check);
    T* out;
    const size_t count = 3 * nn * size_t(check.n);
    PROBE_CHECK(cudaMalloc(&out, count * sizeof(T)));
    PROBE_CHECK(cudaMemset(out, 0xff, count * sizeof(T)));
    launch(out, d, check.n, 0);
    PROBE_CHECK(cudaGetLastError());
    PROBE_CHECK(cudaDeviceSynchronize());
    // the kernel's layout: all samples' ∂qdd/∂q, then all ∂qdd/∂qd, then all M⁻¹; the reference's is by sample
    const std::vector<T> got = probe::download(out, count);
    std::vector<T> by_sample(count);
    for (int k = 0; k < check.n; ++k)
        for (int m = 0; m < 3; ++m)
            for (size_t e = 0; e < nn; ++e)
                by_sample[(3 * size_t(k) + m) * nn + e] = got[(size_t(m) * check.n + k) * nn + e];
    const double err = probe::max_err(by_sample, ref);
    double us = 0;  // not timed under compute-sanitizer (PROBE_CHECK_ONLY)
    if (!std::getenv("PROBE_CHECK_ONLY")) {
        probe::Device<T> d1(one);
        us = probe::graph_us([&](cudaStream_t s) { launch(out, d1, 1, s); });
    }
    std::printf("%s fdg %s limbs teams %d (%u threads, %zu B shared): max err %.3g on %d samples, batch1 %.3f us\n",
                robot, precision, LIMB_TEAMS, threads, smem, err, check.n, us);
    PROBE_CHECK(cudaFree(out));
}

int main(int argc, char** argv) {
    const char* robot = argc > 1 ? argv[1] : "robot";
    const Inputs check = probe::make_inputs(333, 7), one = probe::make_inputs(1, 11);
    const size_t nn = size_t(NV) * NV;
    std::vector<double> ref(3 * nn * size_t(check.n));
    for (int k = 0; k < check.n; ++k) {
        double* r = &ref[3 * nn * size_t(k)];
        forward_dynamics_gradient_thread<double>(r, r + nn, r + 2 * nn, &check.q[size_t(k) * NQ],
                                                 &check.qd[size_t(k) * NV], &check.tau[size_t(k) * NV],
                                                 default_gravity<double>());
    }
    run<float>(robot, check, one, ref, "float");
#if !defined(PROBE_FLOAT_ONLY)
    run<double>(robot, check, one, ref, "double");
#endif
    return 0;
}
