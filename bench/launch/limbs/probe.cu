// Probe of the limb scope (grid/schedule.cuh LimbScope): ABA, ∇ID, M⁻¹ and ∇FD of one sample with each limb of
// the tree on a warp of its own (the generated <entry>_limbs_kernel of aba, inverse_dynamics_gradient, minv and
// forward_dynamics_gradient), against the generated kernels of the same robot. Build with -I kernels -I bench/launch
// -I <robot folder made by `go tool mage gen`> (go2 and g1_29dof with -floating):
//   * a C++17 compiler (-x c++ -pthread): checks the limb scope against aba_thread,
//     inverse_dynamics_gradient_thread, minv_thread and forward_dynamics_gradient_thread on the host in float64 and float32, one std::thread per
//     limb meeting at a host barrier;
//   * nvcc: checks it and the generated kernels at every shape it times on the GPU (NaN-poisoned outputs, 333
//     samples, against the one-thread kernels) and times them at batch 1 (20 launches captured in a CUDA graph
//     and replayed, median of 31 replays).
// PROBE_FLOAT_ONLY skips float64 on the GPU; PROBE_CHECK_ONLY=1 (environment) skips the timings.
#include "grid.cuh"
#include "probe.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
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
// A limb's barriers: its team's and every team's (LimbScope's BlockBarrier on the GPU).
template <int TEAM, int TEAMS>
struct HostBarrierRef {
    static constexpr int team = TEAM, teams = TEAMS;
    HostBarrier* mine;
    HostBarrier* all;
    void arrive_and_wait() const { mine->arrive_and_wait(); }
    void arrive_and_wait_all() const { all->arrive_and_wait(); }
    uint32_t parties() const { return uint32_t(mine->parties); }
};

// Runs f(scope) for every limb of one sample in each of TEAMS teams (see run_limbs), each limb on a thread of
// its own with the barriers it shares.
template <int TEAMS = 1, class F>
static void host_limbs(F&& f) {
    HostBarrier team[TEAMS], all{};
    for (auto& b : team) b.parties = NLIMBS;
    all.parties = TEAMS * NLIMBS;
    std::vector<std::thread> limbs;
    static_for<TEAMS>([&](auto t) {
        static_for<NLIMBS>([&](auto L) {
            using Barrier = HostBarrierRef<index_of<decltype(t)>, TEAMS>;
            limbs.emplace_back([&, t, L] { f(LimbScope<index_of<decltype(L)>, Barrier>{Barrier{&team[t], &all}}); });
        });
    });
    for (auto& th : limbs) th.join();
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

// M⁻¹ at q: the limbs write its rows and mirrored columns into one matrix they share.
template <typename T>
static double host_check_minv(const Inputs& in) {
    const auto q = probe::cast<T>(in.q);
    const size_t nn = size_t(NV) * NV;
    std::vector<T> ref(size_t(in.n) * nn), got(size_t(in.n) * nn, T(NAN));
    auto st = std::make_unique<algorithms::MinvState<Robot, T>>();
    for (int k = 0; k < in.n; ++k) {
        const T* qk = &q[size_t(k) * NQ];
        minv_thread<T>(&ref[size_t(k) * nn], qk);
        host_limbs([&](const auto& scope) { algorithms::minv<Robot>(scope, &got[size_t(k) * nn], qk, *st); });
    }
    return max_err(got, ref);
}

// ∇FD at (q, qd, tau) as its limb kernel runs it: M⁻¹ on one team of limbs' threads beside ABA and ∇ID on the
// other, the column solve over both teams' threads. Its errors in precision T against
// forward_dynamics_gradient_thread in float64: the limbs' (first) and the one thread's (second). ∇FD
// multiplies the rounding of ∇ID, whose sums the limbs take in another order, by M⁻¹.
template <typename T>
static std::pair<double, double> host_check_fdg(const Inputs& in) {
    const auto q = probe::cast<T>(in.q), qd = probe::cast<T>(in.qd), tau = probe::cast<T>(in.tau);
    const size_t nn = size_t(NV) * NV;
    std::vector<double> ref(3 * size_t(in.n) * nn);
    std::vector<T> thread(3 * size_t(in.n) * nn), got(3 * size_t(in.n) * nn, T(NAN));
    auto st = std::make_unique<algorithms::FdGradientTeamsState<Robot, T>>();
    for (int k = 0; k < in.n; ++k) {
        const size_t a = size_t(k) * NQ, b = size_t(k) * NV;
        double* r = &ref[3 * size_t(k) * nn];
        forward_dynamics_gradient_thread<double>(r, r + nn, r + 2 * nn, &in.q[a], &in.qd[b], &in.tau[b],
                                                 default_gravity<double>());
        T* t = &thread[3 * size_t(k) * nn];
        forward_dynamics_gradient_thread<T>(t, t + nn, t + 2 * nn, &q[a], &qd[b], &tau[b], default_gravity<T>());
        T* o = &got[3 * size_t(k) * nn];
        host_limbs<2>([&](const auto& scope) {
            algorithms::forward_dynamics_gradient<Robot>(scope, o, o + nn, o + 2 * nn, &q[a], &qd[b], &tau[b], *st,
                                                         default_gravity<T>());
        });
    }
    return {max_err(got, ref), max_err(thread, ref)};
}
#endif

#if defined(__CUDACC__)
using probe::Device;

// Launches of the generated ABA, ∇ID, M⁻¹ and ∇FD on stream s at the given shape (LIMBS_LAUNCH_SHAPE: their
// limb kernels), writing n samples' outputs (their arrays one after another) to out.
template <typename T>
static T* workspace() {
    static T* w = nullptr;
    if (!w) PROBE_CHECK(cudaMalloc(&w, size_t(64) << 20));
    return w;
}
template <typename T>
static void launch_aba(T* out, const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    PROBE_CHECK(aba_launch<T>(out, d.q, d.qd, d.tau, default_gravity<T>(), n, s, shape, workspace<T>()));
}
template <typename T>
static void launch_idg(T* out, const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    PROBE_CHECK(inverse_dynamics_gradient_launch<T>(out, out + size_t(n) * NV * NV, d.q, d.qd, d.tau, default_gravity<T>(),
                                                    n, s, shape, workspace<T>()));
}
template <typename T>
static void launch_minv(T* out, const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    PROBE_CHECK(minv_launch<T>(out, d.q, n, s, shape, workspace<T>()));
}
template <typename T>
static void launch_fdg(T* out, const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    const size_t nn = size_t(n) * NV * NV;
    PROBE_CHECK(forward_dynamics_gradient_launch<T>(out, out + nn, out + 2 * nn, d.q, d.qd, d.tau, default_gravity<T>(), n,
                                                    s, shape, workspace<T>()));
}

// One entry point on the GPU: its outputs (per_sample values a sample) for the check samples, its reference
// (the one-thread kernel's, or the phases' for ∇FD, at 1x64), and how to launch it (launch_* above).
template <typename T>
struct Entry {
    const char* name;
    int max_threads;
    size_t per_sample;
    void (*launch)(T*, const Device<T>&, LaunchShape, cudaStream_t, int);
    int limb_teams = 1;  // teams of limb warps in its limb kernel
    T* out = nullptr;
    std::vector<T> ref;
};

template <typename T>
static void gpu_run(const char* robot, const char* precision, const Inputs& check, const Inputs& one) {
    Device<T> d(check);
    const size_t nn = size_t(NV) * NV;
    Entry<T> entries[] = {{"aba", ABA_MAX_THREADS<T>(), size_t(NV), launch_aba<T>},
                          {"idg", INVERSE_DYNAMICS_GRADIENT_MAX_THREADS<T>(), 2 * nn, launch_idg<T>},
                          {"minv", MINV_MAX_THREADS<T>(), nn, launch_minv<T>},
                          {"fdg", FORWARD_DYNAMICS_GRADIENT_MAX_THREADS<T>(), 3 * nn, launch_fdg<T>, 2}};
    // e's outputs at shape on the check samples, NaN-poisoned first; their largest error against e.ref
    const auto check_at = [&](Entry<T>& e, LaunchShape shape) {
        const size_t count = e.per_sample * size_t(check.n);
        PROBE_CHECK(cudaMemset(e.out, 0xff, count * sizeof(T)));
        e.launch(e.out, d, shape, 0, check.n);
        PROBE_CHECK(cudaDeviceSynchronize());
        return max_err(probe::download(e.out, count), e.ref);
    };
    for (auto& e : entries) {
        const size_t count = e.per_sample * size_t(check.n);
        PROBE_CHECK(cudaMalloc(&e.out, count * sizeof(T)));
        e.launch(e.out, d, LaunchShape{1, 64}, 0, check.n);
        PROBE_CHECK(cudaDeviceSynchronize());
        e.ref = probe::download(e.out, count);
        std::printf("%s %s check %s limbs (%d warps): max err %.3g against the %s, %d samples\n", robot, precision,
                    e.name, e.limb_teams * NLIMBS, check_at(e, LIMBS_LAUNCH_SHAPE), e.per_sample == 3 * nn ? "phases" : "one thread",
                    check.n);
    }
    // batch-1 time of each entry point at every shape its bounds allow and at its limb kernel's, each shape first
    // checked on the check samples (not under compute-sanitizer: PROBE_CHECK_ONLY, the checks' launches only)
    if (!std::getenv("PROBE_CHECK_ONLY")) {
        Device<T> d1(one);
        const LaunchShape shapes[] = {{1, 32}, {32, 1}, {64, 1}, {128, 1}, {256, 1}, LIMBS_LAUNCH_SHAPE};
        for (auto& e : entries)
            for (const auto& shape : shapes) {
                const bool limbs = is_limbs_shape(shape);
                if (!limbs && !valid_launch_shape(shape, tier_max_threads(TIER_SHARED, e.max_threads))) continue;
                const double err = check_at(e, shape);
                const double us = probe::graph_us([&](cudaStream_t st) { e.launch(e.out, d1, shape, st, 1); });
                std::printf("%s %s %s batch1 %s %dx%d %.3f us (max err %.3g on %d samples)\n", robot, e.name, precision,
                            limbs ? "limbs" : e.name, limbs ? 32 * e.limb_teams * NLIMBS : shape.threads_per_sample,
                            limbs ? 1 : shape.samples_per_block, us, err, check.n);
            }
    }
    for (auto& e : entries) PROBE_CHECK(cudaFree(e.out));
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
    bool ok = true;
    const auto report = [&](const char* what, const char* against, double e64, double e32, double tol64, double tol32) {
        std::printf("%s host check: float64 max err %.3g, float32 max err %.3g (%s limbs against %s)\n", robot, e64, e32,
                    what, against);
        ok = ok && e64 <= tol64 && e32 <= tol32;
    };
    report("ABA", "aba_thread", host_check_aba<double>(check), host_check_aba<float>(check), 1e-11, 1e-3);
    report("∇ID", "inverse_dynamics_gradient_thread", host_check_idg<double>(check), host_check_idg<float>(check), 1e-11,
           1e-3);
    report("M⁻¹", "minv_thread", host_check_minv<double>(check), host_check_minv<float>(check), 1e-11, 1e-3);
    // ∇FD: float64 within 1e-9 (M⁻¹'s norm reaches 1e3 on the humanoids), float32 no worse than the one thread's
    const auto f64 = host_check_fdg<double>(check), f32 = host_check_fdg<float>(check);
    char against[160];
    std::snprintf(against, sizeof against, "forward_dynamics_gradient_thread in float64; its own float32 error %.3g",
                  f32.second);
    report("∇FD", against, f64.first, f32.first, 1e-9, 2 * f32.second + 1e-6);
    if (!ok) return 1;
#else
    const Inputs one = probe::make_inputs(1, 11);
    gpu_run<float>(robot, "float", check, one);
#if !defined(PROBE_FLOAT_ONLY)
    gpu_run<double>(robot, "double", check, one);
#endif
#endif
    return 0;
}
