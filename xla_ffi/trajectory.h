// XLA FFI handlers of whole rollouts (grid/algorithms/integrator.cuh) for the robot whose grid.cuh is included:
// grid_rollout_<platform>, grid_rollout_tangent_<platform>, grid_rollout_adjoint_<platform> and
// grid_rollout_adjoint_jacobians_<platform>, one sample per thread over T steps inside one call. Include after
// grid.cuh and handlers.h, in a translation unit of its own (trajectory_cpu.cc, trajectory_cuda.cu): the
// rollouts instantiate the articulated-body algorithm, its dual-number form and inverse dynamics' derivatives
// once more.
//
//   rollout          q0 [..., NQ], qd0 [..., NV], u [..., T, NV], dt [...]  ->  qs [..., T, NQ], qds [..., T, NV]
//   rollout_tangent  the same operands, then their tangents dq0, dqd0, du, ddt  ->  dqs, dqds
//   rollout_adjoint  q0, qd0, u, dt, qs, qds (rollout's results), then the cotangents gqs, gqds of (qs, qds)
//                    ->  gq0 [..., NQ], gqd0 [..., NV], gu [..., T, NV], gdt [...]
//   attributes       gravity_x, gravity_y, gravity_z (f64); method (i64: 0 semi-implicit Euler, 1 RK4)
//   rollout_adjoint_jacobians  (semi-implicit Euler, no attributes) reverse mode over a window of T steps from
//                    each step's Jacobians: q_first [..., NQ] (the configuration before the window), lq [..., NQ],
//                    lqd [..., NV] (the cotangents of the state after it), qs, qds, gqs, gqds (the window's),
//                    da_dq, da_dqd, minv [..., T, NV, NV], acc [..., T, NV], dt [...]
//                    ->  lq0 [..., NQ], lqd0 [..., NV] (the state's before the window), gu [..., T, NV], gdt [...]
//
// On the GPU every sample is one thread (blocks of 32 or 64, threads_per_block); the launches never synchronise
// and are command-buffer compatible.
// Every buffer has the same leading batch dimensions and dtype (float32 or float64); violations are
// INVALID_ARGUMENT errors naming the buffer. No workspace: the state of a sample lives in its thread.
#pragma once

#include "grid/algorithms/integrator.cuh"

namespace grid_ffi {
namespace trajectory {

using grid::algorithms::valid_integrator_method;
using R = grid::Robot;

// Stands for the number of steps T in a per-sample shape.
constexpr int64_t kSteps = -1;

struct Slot {
    const char* role;  // "operand" or "result"
    const char* name;
    int rank;          // per-sample rank: 0 (a scalar per sample), 1, 2 or 3
    int64_t dims[3];
    const ffi::AnyBuffer* buffer;
};

inline Slot state_q(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 1, {R::NQ}, &b}; }
inline Slot state_v(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 1, {R::NV}, &b}; }
inline Slot path_q(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 2, {kSteps, R::NQ}, &b}; }
inline Slot path_v(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 2, {kSteps, R::NV}, &b}; }
inline Slot path_vv(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 3, {kSteps, R::NV, R::NV}, &b}; }
inline Slot scalar(const char* role, const char* name, const ffi::AnyBuffer& b) { return {role, name, 0, {}, &b}; }

inline std::string expected(const Slot& s, int64_t steps) {
    std::string e = "[...";
    for (int d = 0; d < s.rank; ++d) {
        e += ", " + (s.dims[d] == kSteps ? (steps >= 0 ? std::to_string(steps) : std::string("T")) : std::to_string(s.dims[d]));
    }
    return e + "]";
}

// Checks a call: slots[0] is a state (its leading dimensions are the batch), slots[path] a trajectory (the
// dimension after the batch's is T). Sets the dtype, the number of samples and of steps.
template <size_t N>
ffi::Error check(const char* algo, const std::array<Slot, N>& slots, int64_t method, ffi::DataType* dtype,
                 int64_t* samples, int64_t* steps, size_t path = 2) {
    if (!valid_integrator_method(method)) {
        return invalid(algo, "method " + std::to_string(method) + " is not an integrator; expected 0 (semi-implicit Euler) or 1 (RK4)");
    }
    const ffi::DataType want = slots[0].buffer->element_type();
    if (want != ffi::DataType::F32 && want != ffi::DataType::F64) {
        return invalid(algo, std::string("operand ") + slots[0].name + " has dtype " + dtype_name(want) +
                                 "; expected float32 or float64");
    }
    const auto q0 = slots[0].buffer->dimensions();
    if (q0.size() < 1) return invalid(algo, std::string("operand ") + slots[0].name + " is a scalar; expected " + expected(slots[0], -1));
    const auto batch = q0.first(q0.size() - 1);
    const auto u = slots[path].buffer->dimensions();
    const int64_t t = u.size() == batch.size() + size_t(slots[path].rank) ? u[batch.size()] : -1;
    for (const Slot& s : slots) {
        const ffi::AnyBuffer::Dimensions dims = s.buffer->dimensions();
        const ffi::DataType got = s.buffer->element_type();
        if (got != want) {
            return invalid(algo, std::string(s.role) + " " + s.name + " has dtype " + dtype_name(got) + " but operand " + slots[0].name +
                                     " has " + dtype_name(want) + "; every operand and result must share one dtype, float32 or float64");
        }
        bool ok = dims.size() == batch.size() + size_t(s.rank) && dims.first(batch.size()) == batch;
        for (int d = 0; ok && d < s.rank; ++d) {
            const int64_t want_d = s.dims[d] == kSteps ? t : s.dims[d];
            ok = dims[batch.size() + d] == want_d;
        }
        if (!ok) {
            return invalid(algo, std::string(s.role) + " " + s.name + " has shape " + dims_string(dims.begin(), dims.size()) +
                                     "; expected " + expected(s, t) + " with " + slots[0].name + "'s batch dimensions " +
                                     dims_string(batch.begin(), batch.size()));
        }
    }
    int64_t n = 1;
    for (int64_t d : batch) n *= d;
    if (n > INT_MAX || t > INT_MAX) {
        return invalid(algo, "a batch of " + std::to_string(n) + " samples of " + std::to_string(t) + " steps exceeds the limit of " +
                                 std::to_string(INT_MAX) + " per call");
    }
    *dtype = want;
    *samples = n;
    *steps = t;
    return ffi::Error::Success();
}

template <typename T>
const T* in(const ffi::AnyBuffer& b) {
    return static_cast<const T*>(b.untyped_data());
}
template <typename T>
T* out(ffi::Result<ffi::AnyBuffer>& b) {
    return static_cast<T*>(b->untyped_data());
}

// Runs one(k) for every sample k: across the CPU workers, or as a CUDA kernel launched by launch(blocks,
// threads) on the stream.
#if defined(__CUDACC__)
// Multiprocessors of the current device, asked once per device (0 when unknown).
inline int multiprocessors() {
    static std::atomic<int> count[64] = {};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return 0;
    int n = count[device].load(std::memory_order_relaxed);
    if (n == 0 && cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) {
        count[device].store(n, std::memory_order_relaxed);
    }
    return n;
}

// A sample is one thread's whole trajectory, so a small batch is latency-bound: blocks of 64 threads, or of 32
// where 64 would leave multiprocessors idle (4096 samples are 64 blocks of 64 on a 132-multiprocessor H200).
inline int threads_per_block(int64_t samples) {
    const int sms = multiprocessors();
    return sms > 0 && samples < int64_t(64) * sms ? 32 : 64;
}

template <typename Launch>
ffi::Error run_samples(const char* algo, Stream, int64_t samples, const Launch& launch) {
    const int threads = threads_per_block(samples);
    const int blocks = int((samples + threads - 1) / threads);
    launch(blocks, threads);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return cuda_error(algo, "kernel launch failed", err);
    return ffi::Error::Success();
}
#else
template <typename One>
ffi::Error run_samples(const char* algo, Stream, int64_t samples, const One& one) {
    return run_on_workers(algo, samples, [&one](int64_t begin, int64_t count) {
        for (int64_t k = begin; k < begin + count; ++k) one(size_t(k));
        return grid::Status::ok();
    });
}
#endif

template <typename T>
grid::Vec3<T> gravity3(double x, double y, double z) {
    return grid::Vec3<T>{T(x), T(y), T(z)};
}

template <typename T>
ffi::Error rollout_typed(Stream s, int64_t samples, int64_t steps, int method, const Buf& q0, const Buf& qd0,
                         const Buf& u, const Buf& dt, Out& qs, Out& qds, grid::Vec3<T> g) {
    [[maybe_unused]] constexpr size_t NQ = R::NQ, NV = R::NV;
    [[maybe_unused]] const size_t n = size_t(steps);
#if defined(__CUDACC__)
    return run_samples("rollout", s, samples, [&](int blocks, int threads) {
        grid::algorithms::rollout_kernel<R, T><<<blocks, threads, 0, s>>>(method, int(steps), out<T>(qs), out<T>(qds), in<T>(q0),
                                                                          in<T>(qd0), in<T>(u), in<T>(dt), g, int(samples));
    });
#else
    T* pq = out<T>(qs);
    T* pqd = out<T>(qds);
    return run_samples("rollout", s, samples, [&](size_t k) {
        grid::algorithms::rollout<R>(method, int(steps), pq + k * n * NQ, pqd + k * n * NV, in<T>(q0) + k * NQ,
                                     in<T>(qd0) + k * NV, in<T>(u) + k * n * NV, in<T>(dt)[k], g);
    });
#endif
}

inline ffi::Error rollout(Stream s, Buf q0, Buf qd0, Buf u, Buf dt, Out qs, Out qds, double gx, double gy, double gz,
                          int64_t method) {
    const std::array<Slot, 6> slots{state_q("operand", "q0", q0), state_v("operand", "qd0", qd0), path_v("operand", "u", u),
                                    scalar("operand", "dt", dt), path_q("result", "qs", *qs), path_v("result", "qds", *qds)};
    ffi::DataType dtype;
    int64_t samples = 0, steps = 0;
    if (ffi::Error err = check("rollout", slots, method, &dtype, &samples, &steps); err.failure()) return err;
    if (samples == 0 || steps == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) return rollout_typed<float>(s, samples, steps, int(method), q0, qd0, u, dt, qs, qds, gravity3<float>(gx, gy, gz));
    return rollout_typed<double>(s, samples, steps, int(method), q0, qd0, u, dt, qs, qds, gravity3<double>(gx, gy, gz));
}

template <typename T>
ffi::Error rollout_tangent_typed(Stream s, int64_t samples, int64_t steps, int method, const Buf& q0, const Buf& qd0,
                                 const Buf& u, const Buf& dt, const Buf& dq0, const Buf& dqd0, const Buf& du,
                                 const Buf& ddt, Out& dqs, Out& dqds, grid::Vec3<T> g) {
    [[maybe_unused]] constexpr size_t NQ = R::NQ, NV = R::NV;
    [[maybe_unused]] const size_t n = size_t(steps);
#if defined(__CUDACC__)
    return run_samples("rollout_tangent", s, samples, [&](int blocks, int threads) {
        grid::algorithms::rollout_tangent_kernel<R, T><<<blocks, threads, 0, s>>>(
            method, int(steps), out<T>(dqs), out<T>(dqds), in<T>(q0), in<T>(qd0), in<T>(u), in<T>(dt), in<T>(dq0),
            in<T>(dqd0), in<T>(du), in<T>(ddt), g, int(samples));
    });
#else
    T* pq = out<T>(dqs);
    T* pqd = out<T>(dqds);
    return run_samples("rollout_tangent", s, samples, [&](size_t k) {
        grid::algorithms::rollout_tangent<R>(method, int(steps), pq + k * n * NQ, pqd + k * n * NV, in<T>(q0) + k * NQ,
                                             in<T>(qd0) + k * NV, in<T>(u) + k * n * NV, in<T>(dt)[k], in<T>(dq0) + k * NQ,
                                             in<T>(dqd0) + k * NV, in<T>(du) + k * n * NV, in<T>(ddt)[k], g);
    });
#endif
}

inline ffi::Error rollout_tangent(Stream s, Buf q0, Buf qd0, Buf u, Buf dt, Buf dq0, Buf dqd0, Buf du, Buf ddt,
                                  Out dqs, Out dqds, double gx, double gy, double gz, int64_t method) {
    const std::array<Slot, 10> slots{state_q("operand", "q0", q0),   state_v("operand", "qd0", qd0),
                                     path_v("operand", "u", u),       scalar("operand", "dt", dt),
                                     state_q("operand", "dq0", dq0), state_v("operand", "dqd0", dqd0),
                                     path_v("operand", "du", du),     scalar("operand", "ddt", ddt),
                                     path_q("result", "dqs", *dqs),   path_v("result", "dqds", *dqds)};
    ffi::DataType dtype;
    int64_t samples = 0, steps = 0;
    if (ffi::Error err = check("rollout_tangent", slots, method, &dtype, &samples, &steps); err.failure()) return err;
    if (samples == 0 || steps == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) {
        return rollout_tangent_typed<float>(s, samples, steps, int(method), q0, qd0, u, dt, dq0, dqd0, du, ddt, dqs, dqds,
                                            gravity3<float>(gx, gy, gz));
    }
    return rollout_tangent_typed<double>(s, samples, steps, int(method), q0, qd0, u, dt, dq0, dqd0, du, ddt, dqs, dqds,
                                         gravity3<double>(gx, gy, gz));
}

template <typename T>
ffi::Error rollout_adjoint_typed(Stream s, int64_t samples, int64_t steps, int method, const Buf& q0, const Buf& qd0,
                                 const Buf& u, const Buf& dt, const Buf& qs, const Buf& qds, const Buf& gqs,
                                 const Buf& gqds, Out& gq0, Out& gqd0, Out& gu, Out& gdt, grid::Vec3<T> g) {
    [[maybe_unused]] constexpr size_t NQ = R::NQ, NV = R::NV;
    [[maybe_unused]] const size_t n = size_t(steps);
#if defined(__CUDACC__)
    return run_samples("rollout_adjoint", s, samples, [&](int blocks, int threads) {
        grid::algorithms::rollout_adjoint_kernel<R, T><<<blocks, threads, 0, s>>>(
            method, int(steps), out<T>(gq0), out<T>(gqd0), out<T>(gu), out<T>(gdt), in<T>(q0), in<T>(qd0), in<T>(u),
            in<T>(dt), in<T>(qs), in<T>(qds), in<T>(gqs), in<T>(gqds), g, int(samples));
    });
#else
    T* pq0 = out<T>(gq0);
    T* pqd0 = out<T>(gqd0);
    T* pu = out<T>(gu);
    T* pdt = out<T>(gdt);
    return run_samples("rollout_adjoint", s, samples, [&](size_t k) {
        grid::algorithms::rollout_adjoint<R>(method, int(steps), pq0 + k * NQ, pqd0 + k * NV, pu + k * n * NV, pdt + k,
                                             in<T>(q0) + k * NQ, in<T>(qd0) + k * NV, in<T>(u) + k * n * NV, in<T>(dt)[k],
                                             in<T>(qs) + k * n * NQ, in<T>(qds) + k * n * NV, in<T>(gqs) + k * n * NQ,
                                             in<T>(gqds) + k * n * NV, g);
    });
#endif
}

inline ffi::Error rollout_adjoint(Stream s, Buf q0, Buf qd0, Buf u, Buf dt, Buf qs, Buf qds, Buf gqs, Buf gqds, Out gq0,
                                  Out gqd0, Out gu, Out gdt, double gx, double gy, double gz, int64_t method) {
    const std::array<Slot, 12> slots{state_q("operand", "q0", q0),   state_v("operand", "qd0", qd0),
                                     path_v("operand", "u", u),       scalar("operand", "dt", dt),
                                     path_q("operand", "qs", qs),     path_v("operand", "qds", qds),
                                     path_q("operand", "gqs", gqs),   path_v("operand", "gqds", gqds),
                                     state_q("result", "gq0", *gq0), state_v("result", "gqd0", *gqd0),
                                     path_v("result", "gu", *gu),     scalar("result", "gdt", *gdt)};
    ffi::DataType dtype;
    int64_t samples = 0, steps = 0;
    if (ffi::Error err = check("rollout_adjoint", slots, method, &dtype, &samples, &steps); err.failure()) return err;
    if (samples == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) {
        return rollout_adjoint_typed<float>(s, samples, steps, int(method), q0, qd0, u, dt, qs, qds, gqs, gqds, gq0, gqd0, gu,
                                            gdt, gravity3<float>(gx, gy, gz));
    }
    return rollout_adjoint_typed<double>(s, samples, steps, int(method), q0, qd0, u, dt, qs, qds, gqs, gqds, gq0, gqd0, gu,
                                         gdt, gravity3<double>(gx, gy, gz));
}

template <typename T>
ffi::Error rollout_adjoint_jacobians_typed(Stream s, int64_t samples, int64_t steps, const Buf& q_first, const Buf& lq,
                                           const Buf& lqd, const Buf& qs, const Buf& qds, const Buf& gqs, const Buf& gqds,
                                           const Buf& da_dq, const Buf& da_dqd, const Buf& minv, const Buf& acc,
                                           const Buf& dt, Out& lq0, Out& lqd0, Out& gu, Out& gdt) {
    [[maybe_unused]] constexpr size_t NQ = R::NQ, NV = R::NV, NN = NV * NV;
    [[maybe_unused]] const size_t n = size_t(steps);
#if defined(__CUDACC__)
    return run_samples("rollout_adjoint_jacobians", s, samples, [&](int blocks, int threads) {
        grid::algorithms::rollout_adjoint_jacobians_kernel<R, T><<<blocks, threads, 0, s>>>(
            int(steps), out<T>(lq0), out<T>(lqd0), out<T>(gu), out<T>(gdt), in<T>(q_first), in<T>(lq), in<T>(lqd),
            in<T>(qs), in<T>(qds), in<T>(gqs), in<T>(gqds), in<T>(da_dq), in<T>(da_dqd), in<T>(minv), in<T>(acc),
            in<T>(dt), int(samples));
    });
#else
    T* pq = out<T>(lq0);
    T* pqd = out<T>(lqd0);
    T* pu = out<T>(gu);
    T* pdt = out<T>(gdt);
    return run_samples("rollout_adjoint_jacobians", s, samples, [&](size_t k) {
        for (size_t i = 0; i < NQ; ++i) pq[k * NQ + i] = in<T>(lq)[k * NQ + i];
        for (size_t i = 0; i < NV; ++i) pqd[k * NV + i] = in<T>(lqd)[k * NV + i];
        grid::algorithms::rollout_adjoint_jacobians<R>(
            int(steps), pq + k * NQ, pqd + k * NV, pu + k * n * NV, pdt + k, in<T>(q_first) + k * NQ,
            in<T>(qs) + k * n * NQ, in<T>(qds) + k * n * NV, in<T>(gqs) + k * n * NQ, in<T>(gqds) + k * n * NV,
            in<T>(da_dq) + k * n * NN, in<T>(da_dqd) + k * n * NN, in<T>(minv) + k * n * NN, in<T>(acc) + k * n * NV,
            in<T>(dt)[k]);
    });
#endif
}

inline ffi::Error rollout_adjoint_jacobians(Stream s, Buf q_first, Buf lq, Buf lqd, Buf qs, Buf qds, Buf gqs, Buf gqds,
                                            Buf da_dq, Buf da_dqd, Buf minv, Buf acc, Buf dt, Out lq0, Out lqd0, Out gu,
                                            Out gdt) {
    const std::array<Slot, 16> slots{state_q("operand", "q_first", q_first), state_q("operand", "lq", lq),
                                     state_v("operand", "lqd", lqd),         path_q("operand", "qs", qs),
                                     path_v("operand", "qds", qds),          path_q("operand", "gqs", gqs),
                                     path_v("operand", "gqds", gqds),        path_vv("operand", "da_dq", da_dq),
                                     path_vv("operand", "da_dqd", da_dqd),   path_vv("operand", "minv", minv),
                                     path_v("operand", "acc", acc),          scalar("operand", "dt", dt),
                                     state_q("result", "lq0", *lq0),         state_v("result", "lqd0", *lqd0),
                                     path_v("result", "gu", *gu),            scalar("result", "gdt", *gdt)};
    ffi::DataType dtype;
    int64_t samples = 0, steps = 0;
    if (ffi::Error err = check("rollout_adjoint_jacobians", slots, grid::algorithms::INTEGRATOR_SEMI_IMPLICIT, &dtype,
                               &samples, &steps, 3);
        err.failure()) {
        return err;
    }
    if (samples == 0) return ffi::Error::Success();
    if (dtype == ffi::DataType::F32) {
        return rollout_adjoint_jacobians_typed<float>(s, samples, steps, q_first, lq, lqd, qs, qds, gqs, gqds, da_dq,
                                                      da_dqd, minv, acc, dt, lq0, lqd0, gu, gdt);
    }
    return rollout_adjoint_jacobians_typed<double>(s, samples, steps, q_first, lq, lqd, qs, qds, gqs, gqds, da_dq, da_dqd,
                                                   minv, acc, dt, lq0, lqd0, gu, gdt);
}

}  // namespace trajectory
}  // namespace grid_ffi

GRID_FFI_EXPORT(rollout)
GRID_FFI_EXPORT(rollout_tangent)
GRID_FFI_EXPORT(rollout_adjoint)
GRID_FFI_EXPORT(rollout_adjoint_jacobians)

#define GRID_FFI_METHOD Attr<int64_t>("method")
XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(rollout), grid_ffi::trajectory::rollout,
                              grid_ffi::bind().GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_RET
                                  .GRID_FFI_GRAVITY.GRID_FFI_METHOD,
                              GRID_FFI_TRAITS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(rollout_tangent), grid_ffi::trajectory::rollout_tangent,
                              grid_ffi::bind()
                                  .GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG
                                  .GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_RET.GRID_FFI_GRAVITY.GRID_FFI_METHOD,
                              GRID_FFI_TRAITS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(rollout_adjoint), grid_ffi::trajectory::rollout_adjoint,
                              grid_ffi::bind()
                                  .GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG
                                  .GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_RET.GRID_FFI_RET.GRID_FFI_RET.GRID_FFI_GRAVITY
                                  .GRID_FFI_METHOD,
                              GRID_FFI_TRAITS);
XLA_FFI_DEFINE_HANDLER_SYMBOL(GRID_FFI_SYMBOL(rollout_adjoint_jacobians), grid_ffi::trajectory::rollout_adjoint_jacobians,
                              grid_ffi::bind()
                                  .GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG
                                  .GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_ARG.GRID_FFI_RET.GRID_FFI_RET
                                  .GRID_FFI_RET.GRID_FFI_RET,
                              GRID_FFI_TRAITS);
