// Probe of aba_spread.cuh (an experiment) against the generated ABA of one robot. Build with -I kernels
// -I bench/launch -I bench/launch/spread -I <robot folder made by `go tool mage gen`> (go2 and g1_29dof with
// -floating):
// with a C++17 compiler (-x c++) it checks aba_spread and aba_segments against aba_thread in float64 and
// float32 on the host; under nvcc it checks them on the GPU (NaN-poisoned outputs) and times them and the
// generated kernels at batch 1 (a CUDA graph of 20 launches, replayed) and ABA at batch 65536.
// Options: PROBE_FLOAT_ONLY (skip float64), PROBE_MASS_MATRIX (also M at batch 65536, checked against the
// sample-group kernel first; with GRID_DIRECT_THREAD_STORES its thread kernel stores directly, with
// GRID_THREAD_STORES_AT_END it stages all of M before storing), SPREAD_CLOCK (clock64 at every barrier),
// GRID_SPREAD_SHUFFLES (aba_segments' warp-shuffle variant).
#include "grid.cuh"

#if defined(__CUDACC__) && defined(SPREAD_CLOCK)
// clock64 at each of aba_spread's barriers, by thread 0 of block 0.
__device__ long long spread_clock[256];
__device__ int spread_marks;
__host__ __device__ inline long long spread_now() {
#if defined(__CUDA_ARCH__)
    return clock64();
#else
    return 0;
#endif
}
__host__ __device__ inline void spread_record(int n, long long t0) {
#if defined(__CUDA_ARCH__)
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        spread_clock[n] = clock64() - t0;
        spread_marks = n + 1;
    }
#endif
}
#define GRID_SPREAD_MARK_BEGIN()              \
    const long long spread_t0 = spread_now(); \
    int spread_n = 0
#define GRID_SPREAD_MARK() spread_record(spread_n++, spread_t0)
#endif
#include "aba_spread.cuh"
#include "probe.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

namespace grid {
// The robot's run-time tables as aba_spread reads them.
struct RobotTables {
    static constexpr int NB = grid::NB, NQ = grid::NQ, NV = grid::NV, NLEVELS = grid::NLEVELS;

    GLASS_DEVICE static int parent(int k) { return robot::parent[k]; }
    GLASS_DEVICE static int kind(int k) { return robot::kind[k]; }
    GLASS_DEVICE static int q_index(int k) { return robot::q_index[k]; }
    GLASS_DEVICE static int v_index(int k) { return robot::v_index[k]; }
    GLASS_DEVICE static int level_start(int k) { return robot::level_start[k]; }
    GLASS_DEVICE static int level_order(int k) { return robot::level_order[k]; }
    GLASS_DEVICE static int child_start(int k) { return robot::child_start[k]; }
    GLASS_DEVICE static int children(int k) { return robot::children[k]; }
    template <typename T> GLASS_DEVICE static const T* axis(int k) { return robot::axis<T>() + 3 * k; }
    template <typename T> GLASS_DEVICE static const T* placement_E(int k) { return robot::placement_E<T>() + 9 * k; }
    template <typename T> GLASS_DEVICE static const T* placement_r(int k) { return robot::placement_r<T>() + 3 * k; }
    template <typename T> GLASS_DEVICE static const T* inertia(int k) { return robot::inertia<T>() + 10 * k; }
};
}  // namespace grid

using namespace grid;
using Schedule = algorithms::SegmentSchedule<NB>;

// The robot's segment schedule, from the parents of its description.
static Schedule schedule() {
    int parent[NB];
    for (int b = 0; b < NB; ++b) parent[b] = Robot::joint[b].parent;
    return algorithms::make_segment_schedule<NB>(parent);
}

using State64 = algorithms::AbaSpreadState<RobotTables, double>;

using probe::Inputs;
using probe::cast;
using probe::max_err;
using probe::make_inputs;

#if !defined(__CUDACC__)
template <typename T>
static double host_check(const Inputs& in) {
    const auto q = cast<T>(in.q), qd = cast<T>(in.qd), tau = cast<T>(in.tau);
    std::vector<T> ref(size_t(in.n) * NV), got(size_t(in.n) * NV);
    std::vector<T> seg(got.size());
    auto st = std::make_unique<algorithms::AbaSpreadState<RobotTables, T>>();
    const auto sched = schedule();
    const Vec3<T> g = default_gravity<T>();
    for (int k = 0; k < in.n; ++k) {
        aba_thread<T>(&ref[size_t(k) * NV], &q[size_t(k) * NQ], &qd[size_t(k) * NV], &tau[size_t(k) * NV], g);
        algorithms::aba_spread<RobotTables>(GroupScope{}, &got[size_t(k) * NV], &q[size_t(k) * NQ], &qd[size_t(k) * NV],
                                            &tau[size_t(k) * NV], *st, g);
        algorithms::aba_segments<RobotTables>(GroupScope{}, &seg[size_t(k) * NV], &q[size_t(k) * NQ],
                                              &qd[size_t(k) * NV], &tau[size_t(k) * NV], *st, sched, g);
    }
    const double e1 = max_err(got, ref), e2 = max_err(seg, ref);
    return e1 > e2 ? e1 : e2;
}
#endif

#if defined(__CUDACC__)
#define CHECK(x) PROBE_CHECK(x)
using probe::Device;
using probe::median_us;

template <typename T>
__global__ void aba_spread_kernel(T* qdd, const T* q, const T* qd, const T* tau, Vec3<T> g, int n) {
    extern __shared__ __align__(16) unsigned char smem[];
    auto& st = *reinterpret_cast<algorithms::AbaSpreadState<RobotTables, T>*>(smem);
    const int k = blockIdx.x;
    if (k >= n) return;
    algorithms::aba_spread<RobotTables>(GroupScope{}, qdd + size_t(k) * NV, q + size_t(k) * NQ, qd + size_t(k) * NV,
                                        tau + size_t(k) * NV, st, g);
}

template <typename T>
__global__ void aba_segments_kernel(T* qdd, const T* q, const T* qd, const T* tau, Vec3<T> g, int n,
                                    const Schedule* sched) {
    extern __shared__ __align__(16) unsigned char smem[];
    auto& st = *reinterpret_cast<algorithms::AbaSpreadState<RobotTables, T>*>(smem);
    __shared__ Schedule s_sched;
    const int k = blockIdx.x;
    if (k >= n) return;
    for (uint32_t i = threadIdx.x; i < sizeof(Schedule) / sizeof(int); i += blockDim.x)
        reinterpret_cast<int*>(&s_sched)[i] = reinterpret_cast<const int*>(sched)[i];
    algorithms::aba_segments<RobotTables>(GroupScope{}, qdd + size_t(k) * NV, q + size_t(k) * NQ, qd + size_t(k) * NV,
                                          tau + size_t(k) * NV, st, s_sched, g);
}

static const Schedule* device_schedule() {
    static Schedule* d = nullptr;
    if (!d) {
        const Schedule h = schedule();
        CHECK(cudaMalloc(&d, sizeof(Schedule)));
        CHECK(cudaMemcpy(d, &h, sizeof(Schedule), cudaMemcpyHostToDevice));
    }
    return d;
}

// A launch of one of the compared kernels on stream s: shape.threads_per_sample 0 is the spread kernel with
// shape.samples_per_block threads.
template <typename T>
static void launch(const Device<T>& d, LaunchShape shape, cudaStream_t s, int n) {
    const Vec3<T> g = default_gravity<T>();
    if (shape.threads_per_sample == 0) {
        const size_t smem = sizeof(algorithms::AbaSpreadState<RobotTables, T>);
        aba_spread_kernel<T><<<n, unsigned(shape.samples_per_block), smem, s>>>(d.qdd, d.q, d.qd, d.tau, g, n);
        CHECK(cudaGetLastError());
    } else if (shape.threads_per_sample < 0) {
        const size_t smem = sizeof(algorithms::AbaSpreadState<RobotTables, T>);
        aba_segments_kernel<T><<<n, unsigned(shape.samples_per_block), smem, s>>>(d.qdd, d.q, d.qd, d.tau, g, n,
                                                                                  device_schedule());
        CHECK(cudaGetLastError());
    } else {
        static T* workspace = nullptr;
        if (!workspace) CHECK(cudaMalloc(&workspace, size_t(64) << 20));
        CHECK(aba_launch<T>(d.qdd, d.q, d.qd, d.tau, g, n, s, shape, workspace));
    }
}

// Time per launch of one of the compared kernels, replayed from a CUDA graph (probe::graph_us).
template <typename T>
static double graph_us(const Device<T>& d, LaunchShape shape, int n) {
    return probe::graph_us([&](cudaStream_t s) { launch(d, shape, s, n); });
}

template <typename T>
static void gpu_run(const char* robot, const char* precision, const Inputs& check, const Inputs& one) {
    const size_t smem = sizeof(algorithms::AbaSpreadState<RobotTables, T>);
    CHECK(cudaFuncSetAttribute(aba_spread_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    CHECK(cudaFuncSetAttribute(aba_segments_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    Device<T> d(check);
    launch(d, LaunchShape{1, 64}, 0, check.n);
    CHECK(cudaDeviceSynchronize());
    const auto ref = d.out();
    for (int threads : {64, 128, 256}) {
        CHECK(cudaMemset(d.qdd, 0xff, ref.size() * sizeof(T)));  // NaN-poisoned
        launch(d, LaunchShape{0, threads}, 0, check.n);
        CHECK(cudaDeviceSynchronize());
        std::printf("%s %s check spread %d threads: max err %.3g against aba (one thread), %d samples\n", robot,
                    precision, threads, max_err(d.out(), ref), check.n);
        CHECK(cudaMemset(d.qdd, 0xff, ref.size() * sizeof(T)));
        launch(d, LaunchShape{-1, threads}, 0, check.n);
        CHECK(cudaDeviceSynchronize());
        std::printf("%s %s check segments %d threads: max err %.3g against aba (one thread), %d samples\n", robot,
                    precision, threads, max_err(d.out(), ref), check.n);
    }
    Device<T> d1(one);
#if defined(SPREAD_CLOCK)
    for (int rep = 0; rep < 3; ++rep) launch(d1, LaunchShape{0, 256}, 0, 1);
    CHECK(cudaDeviceSynchronize());
    long long clocks[256];
    int marks = 0;
    CHECK(cudaMemcpyFromSymbol(clocks, spread_clock, sizeof(clocks)));
    CHECK(cudaMemcpyFromSymbol(&marks, spread_marks, sizeof(int)));
    std::printf("%s %s clock64 at each barrier (256 threads):", robot, precision);
    for (int k = 0; k < marks; ++k) std::printf(" %lld", clocks[k] - (k ? clocks[k - 1] : 0));
    std::printf("\n");
#endif
    const LaunchShape shapes[] = {{1, 32}, {32, 1}, {64, 1}, {128, 1}, {256, 1}, {0, 64}, {0, 128}, {0, 256},
                                  {-1, 32}, {-1, 64}, {-1, 128}, {-1, 192}, {-1, 256}};
    {
        const Inputs many = make_inputs(65536, 13);
        Device<T> dn(many);
        for (const LaunchShape shape : {LaunchShape{1, 64}, LaunchShape{1, 128}})
            std::printf("%s aba %s batch65536 aba %dx%d %.3f us\n", robot, precision, shape.threads_per_sample,
                        shape.samples_per_block, graph_us(dn, shape, many.n));
#if defined(PROBE_MASS_MATRIX)
        // M at batch 65536, one sample per thread: its NV×NV outputs staged through the warp (WarpStores) or,
        // built with GRID_DIRECT_THREAD_STORES, stored by each thread.
        T* M = nullptr;
        CHECK(cudaMalloc(&M, size_t(many.n) * NV * NV * sizeof(T)));
        // one shape's median time per launch, printed as "<robot> mass_matrix <precision> batch65536 <how> GxS"
        const auto time_shape = [&](const char* how, LaunchShape shape) {
            cudaStream_t st;
            CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
            const auto once = [&] { CHECK(mass_matrix_launch<T>(M, dn.q, many.n, st, shape)); };
            once();
            CHECK(cudaStreamSynchronize(st));
            std::printf("%s mass_matrix %s batch65536 %s %dx%d %.3f us\n", robot, precision, how,
                        shape.threads_per_sample, shape.samples_per_block, median_us(st, 21, once));
            CHECK(cudaStreamDestroy(st));
        };
        // The one-thread kernel against the sample-group kernel (another code path) on the check batch, whose
        // 333 samples end in a part warp, every output NaN-poisoned first.
        {
            Device<T> dc(check);
            std::vector<T> by_thread(size_t(check.n) * NV * NV), by_group(by_thread.size());
            const auto run = [&](LaunchShape shape, std::vector<T>& out) {
                CHECK(cudaMemset(M, 0xff, out.size() * sizeof(T)));
                CHECK(mass_matrix_launch<T>(M, dc.q, check.n, 0, shape));
                CHECK(cudaDeviceSynchronize());
                CHECK(cudaMemcpy(out.data(), M, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
            };
            run(LaunchShape{8, 16}, by_group);
            for (const int block : {64, 96, 256}) {
                run(LaunchShape{1, block}, by_thread);
                std::printf("%s %s check mass_matrix 1x%d: max err %.3g against the 8x16 sample groups, %d samples\n",
                            robot, precision, block, max_err(by_thread, by_group), check.n);
            }
        }
#if defined(GRID_DIRECT_THREAD_STORES)
        const char* stores = "direct";
#elif defined(GRID_THREAD_STORES_AT_END)
        const char* stores = "warp-at-end";
#else
        const char* stores = "warp-rows";
#endif
        for (const int block : {64, 128, 256}) time_shape(stores, LaunchShape{1, block});
        // sample groups beside it (the generated mass_matrix_kernel at TIER_SHARED)
        for (const LaunchShape shape : {LaunchShape{4, 32}, LaunchShape{8, 16}, LaunchShape{16, 8}, LaunchShape{32, 4}}) {
            if (valid_launch_shape(shape, tier_max_threads(TIER_SHARED, MASS_MATRIX_MAX_THREADS<T>())) &&
                MASS_MATRIX_LAUNCH_SMEM_BYTES<T, TIER_SHARED>(shape) <= 227 * 1024)
                time_shape("group", shape);
        }
        CHECK(cudaFree(M));
#endif
    }
    for (const auto& shape : shapes) {
        if (shape.threads_per_sample > 0 && !valid_launch_shape(shape, tier_max_threads(TIER_SHARED, ABA_MAX_THREADS<T>())))
            continue;
        const double us = graph_us(d1, shape, 1);
        const bool ours = shape.threads_per_sample <= 0;
        std::printf("%s aba %s batch1 %s %dx%d %.3f us\n", robot, precision,
                    shape.threads_per_sample == 0 ? "spread" : (ours ? "segments" : "aba"),
                    ours ? shape.samples_per_block : shape.threads_per_sample, ours ? 1 : shape.samples_per_block, us);
    }
}
#endif

int main(int argc, char** argv) {
    const char* robot = argc > 1 ? argv[1] : "robot";
    const Inputs check = make_inputs(333, 7);
#if !defined(__CUDACC__)
    // Under nvcc the tables are device memory, so the host checks are the C++ compiler's build.
    std::printf("%s host check: float64 max err %.3g, float32 max err %.3g (spread and segments against aba_thread)\n", robot,
                host_check<double>(check), host_check<float>(check));
#else
    const Inputs one = make_inputs(1, 11);
    gpu_run<float>(robot, "float", check, one);
#if !defined(PROBE_FLOAT_ONLY)
    gpu_run<double>(robot, "double", check, one);
#endif
#endif
    return 0;
}
