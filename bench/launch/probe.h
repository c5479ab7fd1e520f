// What the batch-1 probes of bench/launch (spread/probe.cu, limbs/probe.cu) share: seeded inputs of the robot
// of the grid.cuh included before this, errors against a reference and, under nvcc, device copies of the
// inputs and the time per launch replayed from a CUDA graph.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace probe {

// n samples of (q, qd, tau) in [-1, 1], a free-flyer's quaternion normalised.
struct Inputs {
    int n;
    std::vector<double> q, qd, tau;
};

inline Inputs make_inputs(int n, unsigned seed) {
    using grid::NQ;
    using grid::NV;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Inputs in{n, std::vector<double>(size_t(n) * NQ), std::vector<double>(size_t(n) * NV),
              std::vector<double>(size_t(n) * NV)};
    for (auto& x : in.q) x = u(rng);
    for (auto& x : in.qd) x = u(rng);
    for (auto& x : in.tau) x = u(rng);
    if (grid::FLOATING_BASE)
        for (int k = 0; k < n; ++k) {
            double* quat = &in.q[size_t(k) * NQ + 3];
            const double s = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
            for (int i = 0; i < 4; ++i) quat[i] /= s;
        }
    return in;
}

template <typename T>
std::vector<T> cast(const std::vector<double>& x) {
    return std::vector<T>(x.begin(), x.end());
}

// Largest |a − b| / (1 + |b|); NaN counts as infinite.
template <typename A, typename B>
double max_err(const std::vector<A>& a, const std::vector<B>& b) {
    double e = 0;
    for (size_t k = 0; k < a.size(); ++k) {
        const double d = std::fabs(double(a[k]) - double(b[k])) / (1.0 + std::fabs(double(b[k])));
        e = std::isnan(d) ? INFINITY : (d > e ? d : e);
    }
    return e;
}

#if defined(__CUDACC__)
#define PROBE_CHECK(x)                                                                                \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);       \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

// n values from device memory.
template <typename T>
std::vector<T> download(const T* p, size_t n) {
    std::vector<T> h(n);
    PROBE_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// The inputs in device memory and room for qdd.
template <typename T>
struct Device {
    T *q, *qd, *tau, *qdd;
    int n;
    explicit Device(const Inputs& in) : n(in.n) {
        const auto hq = cast<T>(in.q), hqd = cast<T>(in.qd), htau = cast<T>(in.tau);
        PROBE_CHECK(cudaMalloc(&q, hq.size() * sizeof(T)));
        PROBE_CHECK(cudaMalloc(&qd, hqd.size() * sizeof(T)));
        PROBE_CHECK(cudaMalloc(&tau, htau.size() * sizeof(T)));
        PROBE_CHECK(cudaMalloc(&qdd, hqd.size() * sizeof(T)));
        PROBE_CHECK(cudaMemcpy(q, hq.data(), hq.size() * sizeof(T), cudaMemcpyHostToDevice));
        PROBE_CHECK(cudaMemcpy(qd, hqd.data(), hqd.size() * sizeof(T), cudaMemcpyHostToDevice));
        PROBE_CHECK(cudaMemcpy(tau, htau.data(), htau.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> out() const { return download(qdd, size_t(n) * grid::NV); }
};

// Median over reps of the time work() takes on stream s, in µs, by a pair of events.
template <class F>
double median_us(cudaStream_t s, int reps, F&& work) {
    cudaEvent_t a, b;
    PROBE_CHECK(cudaEventCreate(&a));
    PROBE_CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int r = 0; r < reps; ++r) {
        PROBE_CHECK(cudaEventRecord(a, s));
        work();
        PROBE_CHECK(cudaEventRecord(b, s));
        PROBE_CHECK(cudaEventSynchronize(b));
        float ms;
        PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
        times.push_back(ms);
    }
    PROBE_CHECK(cudaEventDestroy(a));
    PROBE_CHECK(cudaEventDestroy(b));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2] * 1000.0;
}

// Time per launch of launch(stream): 20 launches captured in a CUDA graph, the median of 31 replays, in µs.
template <class Launch>
double graph_us(Launch&& launch) {
    cudaStream_t s;
    PROBE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    launch(s);  // sets attributes outside the capture
    PROBE_CHECK(cudaStreamSynchronize(s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    PROBE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < 20; ++k) launch(s);
    PROBE_CHECK(cudaStreamEndCapture(s, &graph));
    PROBE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const double us = median_us(s, 31, [&] { PROBE_CHECK(cudaGraphLaunch(exec, s)); }) / 20.0;
    PROBE_CHECK(cudaGraphExecDestroy(exec));
    PROBE_CHECK(cudaGraphDestroy(graph));
    PROBE_CHECK(cudaStreamDestroy(s));
    return us;
}
#endif

}  // namespace probe
