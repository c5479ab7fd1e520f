// GPU inverse kinematics for the robot whose grid.cuh is on the include path: grid_ik_solve with the C ABI of
// ik_cpu.cc, in libgrid_rbd_ik_cuda.so, whose candidates run on the current CUDA device. Every restart of
// every goal descends (PO-CCD) on a thread of its own; each goal's best restarts are then polished by
// Levenberg-Marquardt, one candidate per warp with its state in shared memory. The host driver
// (ik_driver.h) picks the candidates to polish between the two kernels and scores and chooses the solutions
// after them, as on the CPU; the same solver source runs on both, in double precision.
#include <cuda_runtime.h>

#include <mutex>
#include <string>

#include "ik_driver.h"

namespace {

using grid_ik::R;
namespace ga = grid::algorithms;

// A goal's row on the device: position (3) then quaternion (4).
constexpr int GOAL_ROW = 7;

// Where the goals start in the uploaded row, after the limits and the rest configuration.
constexpr int GOALS_AT = 3 * R::NQ;

// Threads per block of the descent kernel (one restart each).
constexpr int DESCEND_THREADS = 128;

// Candidates (warps) per block of the polishing kernel: as many as fit 40 KiB of static shared memory, up to 4.
template <int B>
constexpr int polish_warps() {
    constexpr size_t bytes = sizeof(ga::IkCandidate<R, B, double>);
    return bytes * 4 <= 40960 ? 4 : (bytes * 2 <= 40960 ? 2 : 1);
}

// Goal g's problem on the device: base (frame placement, device limits) with the goal's row of goals.
__device__ ga::IkProblem<double> goal_problem(const ga::IkProblem<double>& base, const double* goals, long g) {
    ga::IkProblem<double> pb = base;
    for (int k = 0; k < 3; ++k) pb.pos[k] = goals[GOAL_ROW * g + k];
    for (int k = 0; k < 4; ++k) pb.quat[k] = goals[GOAL_ROW * g + 3 + k];
    return pb;
}

template <int B>
__global__ void __launch_bounds__(DESCEND_THREADS) descend_kernel(ga::IkProblem<double> base, const double* goals,
                                                                  ga::IkSettings<double> s, uint64_t seed,
                                                                  int num_goals, int restarts, double* q,
                                                                  double* cost) {
    const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= long(num_goals) * restarts) return;
    const long g = i / restarts, b = i % restarts;
    const ga::IkProblem<double> pb = goal_problem(base, goals, g);
    ga::IkCandidate<R, B, double> c;
    ga::ik_random_start<R, B>(pb, seed, uint64_t(g), uint64_t(b), c.q);
    ga::ik_descend(pb, s, c);
    for (int k = 0; k < R::NQ; ++k) q[i * R::NQ + k] = c.q[k];
    cost[i] = c.cost;
}

template <int B, int WARPS>
__global__ void __launch_bounds__(32 * WARPS) polish_kernel(ga::IkProblem<double> base, const double* goals,
                                                            ga::IkSettings<double> s, int per_goal, long count,
                                                            double* q, double* cost, double* pos_err,
                                                            double* ang_err) {
    using Cand = ga::IkCandidate<R, B, double>;
    __shared__ alignas(Cand) unsigned char storage[WARPS * sizeof(Cand)];
    const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
    const long i = long(blockIdx.x) * WARPS + warp;
    if (i >= count) return;  // the whole warp
    Cand& c = reinterpret_cast<Cand*>(storage)[warp];
    const ga::IkProblem<double> pb = goal_problem(base, goals, i / per_goal);
    for (int k = lane; k < R::NQ; k += 32) c.q[k] = q[i * R::NQ + k];
    __syncwarp();
    ga::ik_polish(pb, s, c);
    for (int k = lane; k < R::NQ; k += 32) q[i * R::NQ + k] = c.q[k];
    if (lane == 0) {
        cost[i] = c.cost;
        pos_err[i] = c.pos_err;
        ang_err[i] = c.ang_err;
    }
}

// Doubles kept between calls and grown when a call needs more, allocated and freed by Alloc and Free: device
// memory (cudaMalloc), or page-locked host memory (cudaMallocHost), the staging of every transfer, so that each
// phase moves its data in one copy each way at the bus's small-copy latency.
template <cudaError_t (*Alloc)(void**, size_t), cudaError_t (*Free)(void*)>
class Buffer {
   public:
    double* data() const { return p_; }
    cudaError_t reserve(size_t count) {
        if (count <= count_) return cudaSuccess;
        if (p_ != nullptr) Free(p_);
        p_ = nullptr;
        count_ = 0;
        void* p = nullptr;
        const cudaError_t e = Alloc(&p, count * sizeof(double));
        if (e == cudaSuccess) {
            p_ = static_cast<double*>(p);
            count_ = count;
        }
        return e;
    }

   private:
    double* p_ = nullptr;
    size_t count_ = 0;
};
using DeviceBuffer = Buffer<cudaMalloc, cudaFree>;
using PinnedBuffer = Buffer<cudaMallocHost, cudaFreeHost>;

// The message of the last failed call (grid_ik_last_error).
std::string last_error;

// Runs the candidates on the current device. Not thread-safe: grid_ik_solve holds a lock around it.
class CudaBackend {
   public:
    template <int B>
    int descend(const grid_ik::Batch& bt, int restarts, double* q, double* cost) {
        if (const int e = upload(bt)) return e;
        const long n = long(bt.num_goals) * restarts;
        // the restarts' rows, then their costs: one copy back
        const size_t count = size_t(n) * (R::NQ + 1);
        if (!ok(rows_.reserve(count), "cudaMalloc") || !ok(staging_.reserve(count), "cudaMallocHost"))
            return grid_ik::IK_DEVICE_ERROR;
        const long blocks = (n + DESCEND_THREADS - 1) / DESCEND_THREADS;
        descend_kernel<B><<<unsigned(blocks), DESCEND_THREADS>>>(base_, goals_.data() + GOALS_AT, bt.settings,
                                                                   bt.seed, bt.num_goals, restarts, rows_.data(),
                                                                   rows_.data() + n * R::NQ);
        if (!ok(cudaGetLastError(), "launching the descent kernel") ||
            !ok(cudaMemcpy(staging_.data(), rows_.data(), sizeof(double) * count, cudaMemcpyDeviceToHost),
                "the descent kernel"))
            return grid_ik::IK_DEVICE_ERROR;
        std::copy(staging_.data(), staging_.data() + n * R::NQ, q);
        std::copy(staging_.data() + n * R::NQ, staging_.data() + count, cost);
        return grid_ik::IK_OK;
    }

    template <int B>
    int polish(const grid_ik::Batch& bt, int per_goal, double* q, double* cost, double* pos_err, double* ang_err) {
        constexpr int WARPS = polish_warps<B>();
        const long n = long(bt.num_goals) * per_goal;
        // the candidates' rows, then their costs, position and angle errors: one copy each way
        const size_t count = size_t(n) * (R::NQ + 3);
        if (!ok(rows_.reserve(count), "cudaMalloc") || !ok(staging_.reserve(count), "cudaMallocHost"))
            return grid_ik::IK_DEVICE_ERROR;
        std::copy(q, q + n * R::NQ, staging_.data());
        if (!ok(cudaMemcpy(rows_.data(), staging_.data(), sizeof(double) * n * R::NQ, cudaMemcpyHostToDevice),
                "cudaMemcpy"))
            return grid_ik::IK_DEVICE_ERROR;
        double* scores = rows_.data() + n * R::NQ;
        polish_kernel<B, WARPS><<<unsigned((n + WARPS - 1) / WARPS), 32 * WARPS>>>(
            base_, goals_.data() + GOALS_AT, bt.settings, per_goal, n, rows_.data(), scores, scores + n, scores + 2 * n);
        if (!ok(cudaGetLastError(), "launching the polishing kernel") ||
            !ok(cudaMemcpy(staging_.data(), rows_.data(), sizeof(double) * count, cudaMemcpyDeviceToHost),
                "the polishing kernel"))
            return grid_ik::IK_DEVICE_ERROR;
        const double* out = staging_.data();
        std::copy(out, out + n * R::NQ, q);
        out += n * R::NQ;
        std::copy(out, out + n, cost);
        std::copy(out + n, out + 2 * n, pos_err);
        std::copy(out + 2 * n, out + 3 * n, ang_err);
        return grid_ik::IK_OK;
    }

   private:
    // The call's joint limits, rest configuration and goals, as one row [lower (NQ), upper (NQ), rest (NQ),
    // goals (G × GOAL_ROW)] on the device, and base_ pointing at its first three parts.
    int upload(const grid_ik::Batch& bt) {
        const size_t count = GOALS_AT + size_t(GOAL_ROW) * bt.num_goals;
        if (!ok(goals_.reserve(count), "cudaMalloc") || !ok(staging_.reserve(count), "cudaMallocHost"))
            return grid_ik::IK_DEVICE_ERROR;
        double* row = staging_.data();
        std::copy(bt.base.lower, bt.base.lower + R::NQ, row);
        std::copy(bt.base.upper, bt.base.upper + R::NQ, row + R::NQ);
        std::copy(bt.base.rest, bt.base.rest + R::NQ, row + 2 * R::NQ);
        for (int g = 0; g < bt.num_goals; ++g) {
            std::copy(bt.pos + 3 * g, bt.pos + 3 * g + 3, row + GOALS_AT + GOAL_ROW * g);
            std::copy(bt.quat + 4 * g, bt.quat + 4 * g + 4, row + GOALS_AT + GOAL_ROW * g + 3);
        }
        if (!ok(cudaMemcpy(goals_.data(), row, sizeof(double) * count, cudaMemcpyHostToDevice), "cudaMemcpy"))
            return grid_ik::IK_DEVICE_ERROR;
        base_ = bt.base;
        base_.lower = goals_.data();
        base_.upper = goals_.data() + R::NQ;
        base_.rest = goals_.data() + 2 * R::NQ;
        return grid_ik::IK_OK;
    }

    static bool ok(cudaError_t e, const char* what) {
        if (e == cudaSuccess) return true;
        last_error = std::string(what) + ": " + cudaGetErrorString(e);
        return false;
    }

    DeviceBuffer goals_, rows_;  // the call's limits, rest and goals; the candidates' rows and scores
    PinnedBuffer staging_;
    ga::IkProblem<double> base_{};
};

std::mutex backend_lock;
CudaBackend backend;

}  // namespace

extern "C" {

// CUDA devices this process sees (0 when there is no usable driver or device).
__attribute__((visibility("default"))) int grid_ik_cuda_devices() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // clear it, so that later calls start clean
        return 0;
    }
    return n;
}

// The message of the last call that returned -4 (a CUDA error).
__attribute__((visibility("default"))) const char* grid_ik_last_error() { return last_error.c_str(); }

}  // extern "C"

template <class F>
int grid_ik::with_backend(F&& f) {
    std::lock_guard<std::mutex> hold(backend_lock);
    return f(backend);
}
