// Probe of the limb scope (grid/schedule.cuh LimbScope): ABA of one sample with each limb of the tree on a
// warp of its own (the generated aba_limbs_kernel), against the generated ABA kernels of the same robot.
// Build with -I kernels -I <robot folder made by `go tool mage gen`> (go2 and g1_29dof with -floating):
//   * a C++17 compiler (-x c++ -pthread): checks the limb scope against aba_thread on the host in float64 and
//     float32, one std::thread per limb meeting at a host barrier;
//   * nvcc: checks it on the GPU (NaN-poisoned outputs, 333 samples, one per block) and times it and the
//     generated kernels at batch 1 (20 launches captured in a CUDA graph and replayed, median of 31 replays).
// PROBE_FLOAT_ONLY skips float64 on the GPU.
#include "grid.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#if !defined(__CUDACC__)
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

using namespace grid;
constexpr int NLIMBS = limb_count<Robot>();

struct Inputs {
    int n;
    std::vector<double> q, qd, tau;
};

static Inputs make_inputs(int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Inputs in{n, std::vector<double>(size_t(n) * NQ), std::vector<double>(size_t(n) * NV),
              std::vector<double>(size_t(n) * NV)};
    for (auto& x : in.q) x = u(rng);
    for (auto& x : in.qd) x = u(rng);
    for (auto& x : in.tau) x = u(rng);
    if (FLOATING_BASE)
        for (int k = 0; k < n; ++k) {
            double* quat = &in.q[size_t(k) * NQ + 3];
            const double s = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
            for (int i = 0; i < 4; ++i) quat[i] /= s;
        }
    return in;
}

template <typename T>
static std::vector<T> cast(const std::vector<double>& x) {
    return std::vector<T>(x.begin(), x.end());
}

// Largest |a − b| / (1 + |b|); NaN counts as infinite.
template <typename T>
static double max_err(const std::vector<T>& a, const std::vector<T>& b) {
    double e = 0;
    for (size_t k = 0; k < a.size(); ++k) {
        const double d = std::fabs(double(a[k]) - double(b[k])) / (1.0 + std::fabs(double(b[k])));
        e = std::isnan(d) ? INFINITY : (d > e ? d : e);
    }
    return e;
}

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

template <typename T>
static double host_check(const Inputs& in) {
    const auto q = cast<T>(in.q), qd = cast<T>(in.qd), tau = cast<T>(in.tau);
    std::vector<T> ref(size_t(in.n) * NV), got(size_t(in.n) * NV, T(NAN));
    const Vec3<T> g = default_gravity<T>();
    auto st = std::make_unique<algorithms::AbaState<Robot, T>>();
    for (int k = 0; k < in.n; ++k) {
        const T *qk = &q[size_t(k) * NQ], *qdk = &qd[size_t(k) * NV], *tk = &tau[size_t(k) * NV];
        aba_thread<T>(&ref[size_t(k) * NV], qk, qdk, tk, g);
        HostBarrier barrier{};
        barrier.parties = NLIMBS;
        std::vector<std::thread> limbs;
        static_for<NLIMBS>([&](auto L) {
            limbs.emplace_back([&, L] {
                const LimbScope<index_of<decltype(L)>, HostBarrierRef> scope{HostBarrierRef{&barrier}};
                aba_limb(scope, &got[size_t(k) * NV], qk, qdk, tk, *st, g);
            });
        });
        for (auto& t : limbs) t.join();
    }
    return max_err(got, ref);
}
#endif

#if defined(__CUDACC__)
#define CHECK(x)                                                                                      \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);       \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

template <typename T>
struct Device {
    T *q, *qd, *tau, *qdd;
    int n;
    explicit Device(const Inputs& in) : n(in.n) {
        const auto hq = cast<T>(in.q), hqd = cast<T>(in.qd), htau = cast<T>(in.tau);
        CHECK(cudaMalloc(&q, hq.size() * sizeof(T)));
        CHECK(cudaMalloc(&qd, hqd.size() * sizeof(T)));
        CHECK(cudaMalloc(&tau, htau.size() * sizeof(T)));
        CHECK(cudaMalloc(&qdd, hqd.size() * sizeof(T)));
        CHECK(cudaMemcpy(q, hq.data(), hq.size() * sizeof(T), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(qd, hqd.data(), hqd.size() * sizeof(T), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(tau, htau.data(), htau.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> out() const {
        std::vector<T> h(size_t(n) * NV);
        CHECK(cudaMemcpy(h.data(), qdd, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

// A launch of the generated ABA on stream s at the given shape (LIMBS_LAUNCH_SHAPE: aba_limbs_kernel).
template <typename T>
static void launch(const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    static T* workspace = nullptr;
    if (!workspace) CHECK(cudaMalloc(&workspace, size_t(64) << 20));
    CHECK(aba_launch<T>(d.qdd, d.q, d.qd, d.tau, default_gravity<T>(), n, s, shape, workspace));
}

// Median over 31 replays of the time per launch of 20 launches captured in a graph, in µs.
template <typename T>
static double graph_us(const Device<T>& d, LaunchShape shape, int n) {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    launch(d, shape, s, n);  // sets attributes outside the capture
    CHECK(cudaStreamSynchronize(s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < 20; ++k) launch(d, shape, s, n);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int r = 0; r < 31; ++r) {
        CHECK(cudaEventRecord(a, s));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s));
    return times[times.size() / 2] * 1000.0 / 20.0;
}

template <typename T>
static void gpu_run(const char* robot, const char* precision, const Inputs& check, const Inputs& one) {
    Device<T> d(check);
    launch(d, LaunchShape{1, 64}, 0, check.n);
    CHECK(cudaDeviceSynchronize());
    const auto ref = d.out();
    CHECK(cudaMemset(d.qdd, 0xff, ref.size() * sizeof(T)));  // NaN-poisoned
    launch(d, LIMBS_LAUNCH_SHAPE, 0, check.n);
    CHECK(cudaDeviceSynchronize());
    std::printf("%s %s check limbs (%d warps): max err %.3g against aba (one thread), %d samples\n", robot, precision,
                NLIMBS, max_err(d.out(), ref), check.n);
    Device<T> d1(one);
    const LaunchShape shapes[] = {{1, 32}, {32, 1}, {64, 1}, {128, 1}, {256, 1}, LIMBS_LAUNCH_SHAPE};
    for (const auto& shape : shapes) {
        if (!is_limbs_shape(shape) && !valid_launch_shape(shape, tier_max_threads(TIER_SHARED, ABA_MAX_THREADS<T>())))
            continue;
        const double us = graph_us(d1, shape, 1);
        if (is_limbs_shape(shape))
            std::printf("%s aba %s batch1 limbs %dx1 %.3f us\n", robot, precision, 32 * NLIMBS, us);
        else
            std::printf("%s aba %s batch1 aba %dx%d %.3f us\n", robot, precision, shape.threads_per_sample,
                        shape.samples_per_block, us);
    }
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
    const Inputs check = make_inputs(333, 7);
    std::printf("%s: %d bodies, %d limbs, %d rounds\n", robot, NB, NLIMBS, limb_rounds<Robot>());
#if !defined(__CUDACC__)
    if (check_limbs() > 0) return 1;
    // float64 to 1e-11 (the sums of a body's children run in another order), float32 to 1e-3
    const double e64 = host_check<double>(check), e32 = host_check<float>(check);
    std::printf("%s host check: float64 max err %.3g, float32 max err %.3g (limbs against aba_thread)\n", robot, e64,
                e32);
    if (!(e64 <= 1e-11 && e32 <= 1e-3)) return 1;
#else
    const Inputs one = make_inputs(1, 11);
    gpu_run<float>(robot, "float", check, one);
#if !defined(PROBE_FLOAT_ONLY)
    gpu_run<double>(robot, "double", check, one);
#endif
#endif
    return 0;
}
