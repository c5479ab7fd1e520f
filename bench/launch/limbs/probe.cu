// Probe of the limb scope (grid/schedule.cuh LimbScope): ABA and ∇ID of one sample with each limb of the tree on
// a warp of its own (the generated aba_limbs_kernel and inverse_dynamics_gradient_limbs_kernel), against the
// generated kernels of the same robot. Build with -I kernels -I bench/launch -I <robot folder made by
// `go tool mage gen`> (go2 and g1_29dof with -floating):
//   * a C++17 compiler (-x c++ -pthread): checks the limb scope against aba_thread and
//     inverse_dynamics_gradient_thread on the host in float64 and float32, one std::thread per limb meeting at
//     a host barrier;
//   * nvcc: checks it on the GPU (NaN-poisoned outputs, 333 samples, one per block) and times it and the
//     generated kernels at batch 1 (20 launches captured in a CUDA graph and replayed, median of 31 replays).
// PROBE_FLOAT_ONLY skips float64 on the GPU; PROBE_CHECK_ONLY=1 (environment) skips the timings.
#include "grid.cuh"
#include "probe.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#if !defined(__CUDACC__)
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

using namespace grid;
using probe::Inputs;
using probe::max_err;
constexpr int NLIMBS = limb_count<Robot>();

// Limb L's part of one sample: its own copies of the inputs (the compiler keeps the entries its bodies read),
// the algorithm in LimbScope<L>, then its joints' accelerations stored by the limb's running lane.
template <int L, typename T, class Barrier>
GLASS_HD void aba_limb(const LimbScope<L, Barrier>& scope, T* qdd, const T* q, const T* qd, const T* tau,
                       algorithms::AbaState<Robot, T>& st, Vec3<T> g) {
    T l_q[NQ], l_qd[NV], l_tau[NV], l_qdd[NV];
    for (int k = 0; k < NQ; ++k) l_q[k] = q[k];
    for (int k = 0; k < NV; ++k) {
        l_qd[k] = qd[k];
        l_tau[k] = tau[k];
    }
    algorithms::aba<Robot>(scope, l_qdd, l_q, l_qd, l_tau, st, g);
    if (scope.runs())
        static_for<NB>([&](auto b) {
            using J = JointAt<Robot, index_of<decltype(b)>>;
            if constexpr (limb_of<Robot>(J::index) == L)
                for (int k = 0; k < J::nv; ++k) qdd[J::v + k] = l_qdd[J::v + k];
        });
}

#if !defined(__CUDACC__)
// The limbs' meeting point on the host: each limb's thread waits until all have arrived.
struct HostBarrier {
    std::mutex m;
    std::condition_variable cv;
    int parties, arrived = 0;
    long generation = 0;
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lock(m);
        const long g = generation;
        if (++arrived == parties) {
            arrived = 0;
            ++generation;
            cv.notify_all();
        } else {
            cv.wait(lock, [&] { return generation != g; });
        }
    }
};
struct HostBarrierRef {
    HostBarrier* b;
    void arrive_and_wait() const { b->arrive_and_wait(); }
};

// Runs f(scope) for every limb of one sample, each on a thread of its own with the barrier they share.
template <class F>
static void host_limbs(F&& f) {
    HostBarrier barrier{};
    barrier.parties = NLIMBS;
    std::vector<std::thread> limbs;
    static_for<NLIMBS>([&](auto L) {
        limbs.emplace_back([&, L] { f(LimbScope<index_of<decltype(L)>, HostBarrierRef>{HostBarrierRef{&barrier}}); });
    });
    for (auto& t : limbs) t.join();
}

template <typename T>
static double host_check_aba(const Inputs& in) {
    const auto q = probe::cast<T>(in.q), qd = probe::cast<T>(in.qd), tau = probe::cast<T>(in.tau);
    std::vector<T> ref(size_t(in.n) * NV), got(size_t(in.n) * NV, T(NAN));
    const Vec3<T> g = default_gravity<T>();
    auto st = std::make_unique<algorithms::AbaState<Robot, T>>();
    for (int k = 0; k < in.n; ++k) {
        const T *qk = &q[size_t(k) * NQ], *qdk = &qd[size_t(k) * NV], *tk = &tau[size_t(k) * NV];
        aba_thread<T>(&ref[size_t(k) * NV], qk, qdk, tk, g);
        host_limbs([&](const auto& scope) { aba_limb(scope, &got[size_t(k) * NV], qk, qdk, tk, *st, g); });
    }
    return max_err(got, ref);
}

// ∇ID at (q, qd, qdd = the inputs' tau): each limb writes its elements of both outputs itself.
template <typename T>
static double host_check_idg(const Inputs& in) {
    const auto q = probe::cast<T>(in.q), qd = probe::cast<T>(in.qd), qdd = probe::cast<T>(in.tau);
    const size_t nn = size_t(NV) * NV;
    std::vector<T> ref(2 * size_t(in.n) * nn), got(2 * size_t(in.n) * nn, T(NAN));
    const Vec3<T> g = default_gravity<T>();
    auto st = std::make_unique<algorithms::RneaGradientState<Robot, T>>();
    for (int k = 0; k < in.n; ++k) {
        const T *qk = &q[size_t(k) * NQ], *qdk = &qd[size_t(k) * NV], *ak = &qdd[size_t(k) * NV];
        T* r = &ref[2 * size_t(k) * nn];
        T* o = &got[2 * size_t(k) * nn];
        inverse_dynamics_gradient_thread<T>(r, r + nn, qk, qdk, ak, g);
        host_limbs([&](const auto& scope) {
            algorithms::inverse_dynamics_gradient<Robot>(scope, o, o + nn, qk, qdk, ak, *st, g);
        });
    }
    return max_err(got, ref);
}
#endif

#if defined(__CUDACC__)
using probe::Device;

// A launch of the generated ABA or ∇ID on stream s at the given shape (LIMBS_LAUNCH_SHAPE: their limb kernels).
template <typename T>
static T* workspace() {
    static T* w = nullptr;
    if (!w) PROBE_CHECK(cudaMalloc(&w, size_t(64) << 20));
    return w;
}
template <typename T>
static void launch(const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    PROBE_CHECK(aba_launch<T>(d.qdd, d.q, d.qd, d.tau, default_gravity<T>(), n, s, shape, workspace<T>()));
}
template <typename T>
static void launch_idg(T* out, const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    PROBE_CHECK(inverse_dynamics_gradient_launch<T>(out, out + size_t(n) * NV * NV, d.q, d.qd, d.tau, default_gravity<T>(),
                                                    n, s, shape, workspace<T>()));
}

template <typename T>
static void gpu_run(const char* robot, const char* precision, const Inputs& check, const Inputs& one) {
    Device<T> d(check);
    launch(d, LaunchShape{1, 64}, 0, check.n);
    PROBE_CHECK(cudaDeviceSynchronize());
    const auto ref = d.out();
    PROBE_CHECK(cudaMemset(d.qdd, 0xff, ref.size() * sizeof(T)));  // NaN-poisoned
    launch(d, LIMBS_LAUNCH_SHAPE, 0, check.n);
    PROBE_CHECK(cudaDeviceSynchronize());
    std::printf("%s %s check limbs (%d warps): max err %.3g against aba (one thread), %d samples\n", robot, precision,
                NLIMBS, max_err(d.out(), ref), check.n);
    const size_t nidg = 2 * size_t(check.n) * NV * NV;
    T* idg = nullptr;
    PROBE_CHECK(cudaMalloc(&idg, nidg * sizeof(T)));
    launch_idg(idg, d, LaunchShape{1, 64}, 0, check.n);
    PROBE_CHECK(cudaDeviceSynchronize());
    const auto idg_ref = probe::download(idg, nidg);
    PROBE_CHECK(cudaMemset(idg, 0xff, nidg * sizeof(T)));
    launch_idg(idg, d, LIMBS_LAUNCH_SHAPE, 0, check.n);
    PROBE_CHECK(cudaDeviceSynchronize());
    std::printf("%s %s check idg limbs (%d warps): max err %.3g against inverse_dynamics_gradient (one thread), %d samples\n",
                robot, precision, NLIMBS, max_err(probe::download(idg, nidg), idg_ref), check.n);
    if (std::getenv("PROBE_CHECK_ONLY")) {  // under compute-sanitizer: the checks' launches only
        PROBE_CHECK(cudaFree(idg));
        return;
    }
    Device<T> d1(one);
    // batch-1 time of one entry point (name) at every shape its bounds allow, and at its limb kernel's
    const auto time_shapes = [&](const char* name, int max_threads, auto&& launch_at) {
        const LaunchShape shapes[] = {{1, 32}, {32, 1}, {64, 1}, {128, 1}, {256, 1}, LIMBS_LAUNCH_SHAPE};
        for (const auto& shape : shapes) {
            if (!is_limbs_shape(shape) && !valid_launch_shape(shape, tier_max_threads(TIER_SHARED, max_threads))) continue;
            const double us = probe::graph_us([&](cudaStream_t st) { launch_at(shape, st); });
            if (is_limbs_shape(shape))
                std::printf("%s %s %s batch1 limbs %dx1 %.3f us\n", robot, name, precision, 32 * NLIMBS, us);
            else
                std::printf("%s %s %s batch1 %s %dx%d %.3f us\n", robot, name, precision, name,
                            shape.threads_per_sample, shape.samples_per_block, us);
        }
    };
    time_shapes("aba", ABA_MAX_THREADS<T>(), [&](LaunchShape shape, cudaStream_t st) { launch(d1, shape, st, 1); });
    time_shapes("idg", INVERSE_DYNAMICS_GRADIENT_MAX_THREADS<T>(),
                [&](LaunchShape shape, cudaStream_t st) { launch_idg(idg, d1, shape, st, 1); });
    PROBE_CHECK(cudaFree(idg));
}
#endif

#if !defined(__CUDACC__)  // (nvcc would also compile the constexpr helpers it calls at run time for the device)
// The limbs' structure as LimbScope relies on it: each limb a run of consecutive bodies, each body but the
// first the child of the one before and its parent's only child; a limb's first body a root or a child of a
// body with several children; a limb one round below the limb above it going down the tree and above it going
// up. Returns the number of violations, printed.
static int check_limbs() {
    int bad = 0;
    const auto fail = [&](const char* what, int b) {
        std::printf("limb structure: %s (body %d, limb %d)\n", what, b, limb_of<Robot>(b));
        ++bad;
    };
    for (int b = 0; b < NB; ++b) {
        const int p = Robot::joint[b].parent, l = limb_of<Robot>(b);
        if (b > 0 && l != limb_of<Robot>(b - 1) && l != limb_of<Robot>(b - 1) + 1) fail("limbs out of order", b);
        if (b > 0 && l == limb_of<Robot>(b - 1) && (p != b - 1 || child_count<Robot>(p) != 1))
            fail("a limb's body is not the only child of the one before", b);
        if (limb_first_body<Robot>(l) == b && p >= 0 && child_count<Robot>(p) == 1) fail("a limb starts at an only child", b);
    }
    for (int l = 0; l < NLIMBS; ++l) {
        const int up = limb_parent<Robot>(l);
        if (up < 0) continue;
        if (limb_round_down<Robot>(l) != limb_round_down<Robot>(up) + 1) fail("round going down", limb_first_body<Robot>(l));
        if (limb_round_up<Robot>(up) <= limb_round_up<Robot>(l)) fail("round going up", limb_first_body<Robot>(l));
    }
    return bad;
}
#endif

int main(int argc, char** argv) {
    const char* robot = argc > 1 ? argv[1] : "robot";
    const Inputs check = probe::make_inputs(333, 7);
    std::printf("%s: %d bodies, %d limbs, %d rounds\n", robot, NB, NLIMBS, limb_rounds<Robot>());
#if !defined(__CUDACC__)
    if (check_limbs() > 0) return 1;
    // float64 to 1e-11 (the sums of a body's children run in another order), float32 to 1e-3
    const double e64 = host_check_aba<double>(check), e32 = host_check_aba<float>(check);
    std::printf("%s host check: float64 max err %.3g, float32 max err %.3g (ABA limbs against aba_thread)\n", robot,
                e64, e32);
    const double g64 = host_check_idg<double>(check), g32 = host_check_idg<float>(check);
    std::printf("%s host check: float64 max err %.3g, float32 max err %.3g (∇ID limbs against "
                "inverse_dynamics_gradient_thread)\n",
                robot, g64, g32);
    if (!(e64 <= 1e-11 && e32 <= 1e-3 && g64 <= 1e-11 && g32 <= 1e-3)) return 1;
#else
    const Inputs one = probe::make_inputs(1, 11);
    gpu_run<float>(robot, "float", check, one);
#if !defined(PROBE_FLOAT_ONLY)
    gpu_run<double>(robot, "double", check, one);
#endif
#endif
    return 0;
}
