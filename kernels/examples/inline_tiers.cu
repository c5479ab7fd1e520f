// An inline user's kernel at each resource tier: grid.cuh included in a kernel of one's own, which computes
// forward dynamics and its first derivatives for every sample of a batch with aba_inner and
// forward_dynamics_gradient_inner, its shared memory and global workspace sized from the inners' constants.
// Build it against any robot's generated header (go tool mage gen URDF -out=DIR):
//   nvcc -std=c++17 -arch=sm_90 -DGRID_SEPARATE_ENTRIES -I kernels -I DIR kernels/examples/inline_tiers.cu
//   c++ -std=c++17 -x c++ -DGRID_SEPARATE_ENTRIES -I kernels -I DIR kernels/examples/inline_tiers.cu
// (GRID_SEPARATE_ENTRIES: the header's own batched entry points are not compiled, only what this file uses).
// On the host a sample group is one thread and the "kernel" a loop. It runs every tier on random states,
// checks each against the one-thread entry points (aba_thread, forward_dynamics_gradient_thread) and prints
// what each tier reserved; on the GPU it also launches the header's own aba_kernel<T, TIER> at each tier. It
// exits non-zero on a mismatch, or where TIER_LITE or TIER_MINIMAL needs more shared memory than
// TIER_LITE_SMEM_BYTES.
#include "grid.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using T = double;
constexpr int NQ = grid::NQ, NV = grid::NV;

// One sample's needs at tier TIER: its inputs in shared memory, its outputs there too unless the tier's spill
// level writes them straight to global memory, and one scratch region that the two inners use one after the
// other, in shared memory or in the workspace as the tier resolves each inner.
template <int TIER>
struct Budget {
    static constexpr bool aba_in_smem = grid::ABA_TEMP_IN_SMEM<T, TIER>();
    static constexpr bool fdg_in_smem = grid::FORWARD_DYNAMICS_GRADIENT_TEMP_IN_SMEM<T, TIER>();
    static constexpr bool qdd_in_smem = grid::ABA_OUTPUTS_IN_SMEM<T, TIER>();
    static constexpr bool fdg_out_in_smem = grid::FORWARD_DYNAMICS_GRADIENT_OUTPUTS_IN_SMEM<T, TIER>();
    static constexpr size_t buffer_elements =  // q, qd, tau; qdd; ∂qdd/∂q, ∂qdd/∂qd, M⁻¹
        NQ + 2 * NV + (qdd_in_smem ? NV : 0) + (fdg_out_in_smem ? 3 * NV * NV : 0);
    static constexpr size_t smem_bytes =
        buffer_elements * sizeof(T) + std::max(grid::ABA_INNER_SMEM_BYTES<T, aba_in_smem>(),
                                               grid::FORWARD_DYNAMICS_GRADIENT_INNER_SMEM_BYTES<T, fdg_in_smem>());
    static constexpr size_t workspace_bytes =
        std::max(grid::ABA_INNER_WORKSPACE_BYTES<T, aba_in_smem>(),
                 grid::FORWARD_DYNAMICS_GRADIENT_INNER_WORKSPACE_BYTES<T, fdg_in_smem>());
};

// One sample by the calling sample group: global memory in and out, s_mem shared, ws this group's workspace.
template <int TIER>
GLASS_DEVICE void dynamics_sample(T* d_qdd, T* d_dq, T* d_dqd, T* d_minv, const T* d_q, const T* d_qd, const T* d_tau,
                                  T* s_mem, T* ws, grid::Vec3<T> gravity) {
    using B = Budget<TIER>;
    T* s_q = s_mem;
    T* s_qd = s_q + NQ;
    T* s_tau = s_qd + NV;
    T* next = s_tau + NV;
    T* s_qdd = B::qdd_in_smem ? next : d_qdd;
    next += B::qdd_in_smem ? NV : 0;
    T* s_dq = B::fdg_out_in_smem ? next : d_dq;
    T* s_dqd = B::fdg_out_in_smem ? next + NV * NV : d_dqd;
    T* s_minv = B::fdg_out_in_smem ? next + 2 * NV * NV : d_minv;
    T* s_temp = next + (B::fdg_out_in_smem ? 3 * NV * NV : 0);
    grid::block_copy(s_q, d_q, NQ);
    grid::block_copy(s_qd, d_qd, NV);
    grid::block_copy(s_tau, d_tau, NV);
    grid::group_sync();
    grid::aba_inner<T, B::aba_in_smem>(s_qdd, s_q, s_qd, s_tau, s_temp, ws, gravity);
    grid::group_sync();
    grid::forward_dynamics_gradient_inner<T, B::fdg_in_smem>(s_dq, s_dqd, s_minv, s_q, s_qd, s_tau, s_temp, ws, gravity);
    grid::group_sync();
    if constexpr (B::qdd_in_smem) grid::block_copy(d_qdd, s_qdd, NV);
    if constexpr (B::fdg_out_in_smem) {
        grid::block_copy(d_dq, s_dq, NV * NV);
        grid::block_copy(d_dqd, s_dqd, NV * NV);
        grid::block_copy(d_minv, s_minv, NV * NV);
    }
    grid::group_sync();  // s_mem is reused by the next sample
}

// The batch's arrays: inputs, and outputs [qdd | ∂qdd/∂q | ∂qdd/∂qd | M⁻¹] per sample.
struct Batch {
    int n;
    std::vector<T> q, qd, tau, out;
    static constexpr size_t out_size = NV + 3 * NV * NV;
};

// Largest difference of got from want (n values), relative to want's largest magnitude; infinite where got is
// not finite.
static double relative_error(const T* got, const T* want, int n) {
    double scale = 0, diff = 0;
    for (int i = 0; i < n; ++i) {
        scale = std::max(scale, std::fabs(double(want[i])));
        const double d = std::fabs(double(got[i] - want[i]));
        diff = std::isfinite(d) ? std::max(diff, d) : INFINITY;
    }
    return scale > 0 ? diff / scale : diff;
}

#if defined(__CUDACC__)
template <int TIER>
__global__ void dynamics_kernel(T* out, const T* q, const T* qd, const T* tau, T* workspace, grid::Vec3<T> gravity,
                                int n) {
    extern __shared__ __align__(16) unsigned char smem[];
    T* ws = workspace + size_t(blockIdx.x) * (Budget<TIER>::workspace_bytes / sizeof(T));
    for (int k = blockIdx.x; k < n; k += gridDim.x) {
        T* o = out + size_t(k) * Batch::out_size;
        dynamics_sample<TIER>(o, o + NV, o + NV + NV * NV, o + NV + 2 * NV * NV, q + size_t(k) * NQ, qd + size_t(k) * NV,
                              tau + size_t(k) * NV, reinterpret_cast<T*>(smem), ws, gravity);
    }
}

static bool ok(grid::Status s, const char* what) {
    if (!s.is_ok()) fprintf(stderr, "%s: %s\n", what, s.message);
    return s.is_ok();
}
static bool ok(cudaError_t err, const char* what) { return ok(grid::Status::from(err), what); }

// The batch's inputs on the device (grid::DeviceBuffers frees them), in q, qd, tau.
struct DeviceInputs {
    grid::DeviceBuffers<T> buf;
    T *q, *qd, *tau;
    explicit DeviceInputs(const Batch& b)
        : q(buf.upload(b.q.data(), b.q.size())), qd(buf.upload(b.qd.data(), b.qd.size())),
          tau(buf.upload(b.tau.data(), b.tau.size())) {}
};

template <int TIER>
static bool run(Batch& b, grid::Vec3<T> gravity) {
    const int blocks = std::min(b.n, 64), threads = 64;
    DeviceInputs in(b);
    T* out = in.buf.alloc(b.out.size());
    T* ws = in.buf.alloc(blocks * Budget<TIER>::workspace_bytes / sizeof(T));
    if (!ok(in.buf.status(), "device buffers") ||
        !ok(cudaFuncSetAttribute(dynamics_kernel<TIER>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(Budget<TIER>::smem_bytes)),
            "shared memory attribute"))
        return false;
    dynamics_kernel<TIER><<<blocks, threads, Budget<TIER>::smem_bytes>>>(out, in.q, in.qd, in.tau, ws, gravity, b.n);
    return ok(cudaGetLastError(), "launch") && ok(cudaDeviceSynchronize(), "kernel") &&
           ok(cudaMemcpy(b.out.data(), out, b.out.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

// The next rung up: the header's own batched kernel at a tier, launched here with the shared memory and the
// workspace its sizing constants ask for. Returns the largest error of qdd against aba_thread, or -1.
template <int TIER>
static double batched_aba_error(const Batch& b, grid::Vec3<T> gravity) {
    const grid::LaunchShape shape{64, 1};
    const size_t smem = grid::ABA_LAUNCH_SMEM_BYTES<T, TIER>(shape);
    const size_t ws_bytes = grid::ABA_LAUNCH_WORKSPACE_BYTES<T, TIER>(b.n, shape);
    std::vector<T> got(size_t(b.n) * NV, T(NAN));
    DeviceInputs in(b);
    T* qdd = in.buf.alloc(got.size());
    T* ws = in.buf.alloc(ws_bytes / sizeof(T));
    if (!ok(in.buf.status(), "device buffers") ||
        !ok(cudaFuncSetAttribute(grid::aba_kernel<T, TIER>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
            "shared memory attribute"))
        return -1;
    const dim3 block(unsigned(shape.threads_per_sample), unsigned(shape.samples_per_block));
    grid::aba_kernel<T, TIER><<<grid::launch_blocks(b.n, shape.samples_per_block), block, smem>>>(qdd, in.q, in.qd, in.tau,
                                                                                                 gravity, b.n, ws);
    if (!ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "kernel") ||
        !ok(cudaMemcpy(got.data(), qdd, got.size() * sizeof(T), cudaMemcpyDeviceToHost), "download"))
        return -1;
    double worst = 0;
    T want[NV];
    for (int k = 0; k < b.n; ++k) {
        grid::aba_thread<T>(want, b.q.data() + size_t(k) * NQ, b.qd.data() + size_t(k) * NV, b.tau.data() + size_t(k) * NV,
                            gravity);
        worst = std::max(worst, relative_error(got.data() + size_t(k) * NV, want, NV));
    }
    printf("aba_kernel<double, %d> shape 64x1: shared %zu B per block, workspace %zu B, error %.2e\n", TIER, smem, ws_bytes,
           worst);
    return worst;
}

static bool batched_tiers(const Batch& b, grid::Vec3<T> gravity) {
    bool good = true;
    for (double e : {batched_aba_error<grid::TIER_SHARED>(b, gravity), batched_aba_error<grid::TIER_LITE>(b, gravity),
                     batched_aba_error<grid::TIER_MINIMAL>(b, gravity)})
        good = good && e >= 0 && e < 1e-9;
    return good;
}
#else
static bool batched_tiers(const Batch&, grid::Vec3<T>) { return true; }  // the batched kernels are CUDA's

template <int TIER>
static bool run(Batch& b, grid::Vec3<T> gravity) {
    std::vector<T> smem(Budget<TIER>::smem_bytes / sizeof(T)), ws(Budget<TIER>::workspace_bytes / sizeof(T) + 1);
    for (int k = 0; k < b.n; ++k) {
        T* o = b.out.data() + size_t(k) * Batch::out_size;
        dynamics_sample<TIER>(o, o + NV, o + NV + NV * NV, o + NV + 2 * NV * NV, b.q.data() + size_t(k) * NQ,
                              b.qd.data() + size_t(k) * NV, b.tau.data() + size_t(k) * NV, smem.data(),
                              Budget<TIER>::workspace_bytes ? ws.data() : nullptr, gravity);
    }
    return true;
}
#endif

// Largest difference from the one-thread entry points, relative to each output's largest magnitude.
static double compare(const Batch& b, grid::Vec3<T> gravity) {
    double worst = 0;
    std::vector<T> want(Batch::out_size);
    for (int k = 0; k < b.n; ++k) {
        const T* q = b.q.data() + size_t(k) * NQ;
        const T* qd = b.qd.data() + size_t(k) * NV;
        const T* tau = b.tau.data() + size_t(k) * NV;
        grid::aba_thread<T>(want.data(), q, qd, tau, gravity);
        grid::forward_dynamics_gradient_thread<T>(want.data() + NV, want.data() + NV + NV * NV,
                                                  want.data() + NV + 2 * NV * NV, q, qd, tau, gravity);
        const T* got = b.out.data() + size_t(k) * Batch::out_size;
        for (int lo : {0, NV, NV + NV * NV, NV + 2 * NV * NV})  // qdd, then the three NV × NV outputs
            worst = std::max(worst, relative_error(got + lo, want.data() + lo, lo == 0 ? NV : NV * NV));
    }
    return worst;
}

template <int TIER>
static bool check(const char* name, Batch b, grid::Vec3<T> gravity) {
    std::fill(b.out.begin(), b.out.end(), T(NAN));
    if (!run<TIER>(b, gravity)) return false;
    const double err = compare(b, gravity);
    const bool fits = TIER == grid::TIER_SHARED || Budget<TIER>::smem_bytes <= grid::TIER_LITE_SMEM_BYTES;
    printf("%-12s spill levels aba %d fdg %d: aba scratch in %-9s fdg scratch in %-9s fdg outputs in %-6s shared %6zu B  "
           "workspace %6zu B per group  error %.2e%s\n",
           name, grid::ABA_SPILL_LEVEL<T, TIER>(), grid::FORWARD_DYNAMICS_GRADIENT_SPILL_LEVEL<T, TIER>(),
           Budget<TIER>::aba_in_smem ? "shared" : "workspace", Budget<TIER>::fdg_in_smem ? "shared" : "workspace",
           Budget<TIER>::fdg_out_in_smem ? "shared" : "global", Budget<TIER>::smem_bytes, Budget<TIER>::workspace_bytes,
           err, fits ? "" : "  OVER THE 48 KiB BUDGET");
    return err < 1e-9 && fits;
}

int main() {
    Batch b{200, {}, {}, {}, {}};
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    b.q.resize(size_t(b.n) * NQ);
    b.qd.resize(size_t(b.n) * NV);
    b.tau.resize(size_t(b.n) * NV);
    b.out.resize(size_t(b.n) * Batch::out_size);
    for (int k = 0; k < b.n; ++k) {
        T* q = b.q.data() + size_t(k) * NQ;
        for (int i = 0; i < NQ; ++i) q[i] = T(u(rng));
        if (grid::FLOATING_BASE) {  // a unit quaternion (x, y, z, w) after the base position
            const double n = std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
            for (int i = 3; i < 7; ++i) q[i] /= n;
        }
    }
    for (T& x : b.qd) x = T(u(rng));
    for (T& x : b.tau) x = T(u(rng));
    const grid::Vec3<T> gravity{0, 0, -9.81};
    const bool good = check<grid::TIER_SHARED>("TIER_SHARED", b, gravity) & check<grid::TIER_LITE>("TIER_LITE", b, gravity) &
                      check<grid::TIER_MINIMAL>("TIER_MINIMAL", b, gravity) & batched_tiers(b, gravity);
    printf("%s\n", good ? "all tiers agree with the one-thread entry points" : "FAILED");
    return good ? 0 : 1;
}
