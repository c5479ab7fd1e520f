// First derivatives of forward dynamics qdd = FD(q, qd, τ). Differentiating M(q)·qdd + b(q, qd) = τ at the
// solution gives
//     ∂qdd/∂q = −M⁻¹·∂τ/∂q,   ∂qdd/∂qd = −M⁻¹·∂τ/∂qd,   ∂qdd/∂τ = M⁻¹,
// with ∂τ the inverse-dynamics derivatives at (q, qd, qdd). qdd comes from the articulated-body algorithm,
// which stays accurate where M is ill-conditioned (M⁻¹·(τ − b) does not).
#pragma once

#include "grid/algorithms/aba.cuh"
#include "grid/algorithms/directions.cuh"
#include "grid/algorithms/minv.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

#if !defined(__CUDACC_RTC__)
#include <vector>
#endif

namespace grid {
namespace algorithms {

template <class R, typename T>
struct FdGradientState {
    T qdd[R::NV];
    // the phases run one after the other
    union {
        AbaState<R, T> aba;
        MinvState<R, T> minv;
        RneaGradientState<R, T> gradient;
    };
};

// The state of ∇FD's limb kernel, whose two teams of limb warps run M⁻¹ beside ABA and ∇ID (below): M⁻¹'s
// state apart from theirs.
template <class R, typename T>
struct FdGradientTeamsState {
    T qdd[R::NV];
    union {
        AbaState<R, T> aba;
        RneaGradientState<R, T> gradient;
    };
    MinvState<R, T> minv;
};

// Column c of d ([NV, NV] row-major) set to −M⁻¹·col, Minv [NV, NV] row-major.
template <class R, typename T>
GLASS_HD void fd_gradient_store_column(T* d, const T* Minv, const T* col, int c) {
    for (int r = 0; r < R::NV; ++r) {
        T s = T(0);
        for (int k = 0; k < R::NV; ++k) s += Minv[r * R::NV + k] * col[k];
        d[r * R::NV + c] = -s;
    }
}

// Column c of a ∂τ matrix d ([NV, NV] row-major) replaced by −M⁻¹·(that column), Minv [NV, NV] row-major.
template <class R, typename T>
GLASS_HD void fd_gradient_solve_column(T* d, const T* Minv, int c) {
    T col[R::NV];
    for (int k = 0; k < R::NV; ++k) col[k] = d[k * R::NV + c];
    fd_gradient_store_column<R>(d, Minv, col, c);
}

// ∂τ/∂q and ∂τ/∂qd in dqdd_dq and dqdd_dqd replaced by −M⁻¹·∂τ, column by column in place over the scope (each
// column belongs to one thread), then a barrier.
template <class R, typename T, class S>
GLASS_HD void fd_gradient_solve_columns(const S& scope, T* dqdd_dq, T* dqdd_dqd, const T* Minv) {
    for_each_item<2 * R::NV>(scope, [&](int item) {
        fd_gradient_solve_column<R>(item < R::NV ? dqdd_dq : dqdd_dqd, Minv, item % R::NV);
    });
    scope.sync();
}

#if !defined(__CUDA_ARCH__)
// d ([NV, NV] row-major) replaced by −M⁻¹·d, the host's form of the column solve above: eight columns per
// pass over M⁻¹ (a large robot's M⁻¹ exceeds the caches), their entries interleaved so that the eight sums
// vectorise; the same products summed in the same order as column by column.
template <class R, typename T>
inline void fd_gradient_solve_blocked(T* d, const T* Minv) {
    constexpr int NV = R::NV, BLOCK = 8;
    std::vector<T> cols(size_t(BLOCK) * NV);  // cols[k·BLOCK + b] = d[k, c0 + b]
    for (int c0 = 0; c0 + BLOCK <= NV; c0 += BLOCK) {
        for (int k = 0; k < NV; ++k)
            for (int b = 0; b < BLOCK; ++b) cols[size_t(k) * BLOCK + b] = d[size_t(k) * NV + c0 + b];
        for (int r = 0; r < NV; ++r) {
            T s[BLOCK];
            for (int b = 0; b < BLOCK; ++b) s[b] = T(0);
            const T* row = Minv + size_t(r) * NV;
            for (int k = 0; k < NV; ++k) {
                const T m = row[k];
                for (int b = 0; b < BLOCK; ++b) s[b] += m * cols[size_t(k) * BLOCK + b];
            }
            for (int b = 0; b < BLOCK; ++b) d[size_t(r) * NV + c0 + b] = -s[b];
        }
    }
    for (int c = NV / BLOCK * BLOCK; c < NV; ++c) fd_gradient_solve_column<R>(d, Minv, c);
}
#endif

#if defined(GRID_FDG_DUAL_ABA)
// Column item of [∂qdd/∂q | ∂qdd/∂qd | ∂qdd/∂τ] at (q, qd, τ) into col (NV), and qdd itself into qdd (NV), by one
// dual-number run of the articulated-body algorithm: item < NV is tangent direction item of q, then the
// velocity coordinates, then the efforts (whose column is one of M⁻¹).
template <class R, typename T>
GLASS_HD void forward_dynamics_direction(T* col, T* qdd, int item, const T* q, const T* qd, const T* tau,
                                         Vec3<T> gravity) {
    const int along = item / R::NV, b = item % R::NV;  // 0: q, 1: qd, 2: τ
    Dual<T> dq[R::NQ], dqd[R::NV], dtau[R::NV], dqdd[R::NV];
    seed_direction<R>(dq, dqd, dtau, q, qd, tau, along == 0, b);
    if (along == 2) {
        dqd[b].d = T(0);
        dtau[b].d = T(1);
    }
    AbaState<R, Dual<T>> st;
    aba<R>(ThreadScope{}, dqdd, dq, dqd, dtau, st, dual_gravity(gravity));
    for (int k = 0; k < R::NV; ++k) {
        col[k] = dqdd[k].d;
        qdd[k] = dqdd[k].v;
    }
}

// forward_dynamics_gradient by directions, the comparison build (GRID_FDG_DUAL_ABA): one dual-number ABA per
// column of the three outputs, in one phase. qdd_out (NV) receives qdd.
template <class R, typename T, class S>
GLASS_HD void forward_dynamics_gradient_by_directions(const S& scope, T* dqdd_dq, T* dqdd_dqd, T* Minv, T* qdd_out,
                                                      const T* q, const T* qd, const T* tau, Vec3<T> gravity) {
    constexpr int NV = R::NV;
    for_each_item<3 * NV>(scope, [&](int item) {
        T col[NV], qdd[NV];
        forward_dynamics_direction<R>(col, qdd, item, q, qd, tau, gravity);
        T* out = item < NV ? dqdd_dq : item < 2 * NV ? dqdd_dqd : Minv;
        for (int k = 0; k < NV; ++k) out[k * NV + item % NV] = col[k];
        if (item == 0)
            for (int k = 0; k < NV; ++k) qdd_out[k] = qdd[k];
    });
    scope.sync();
}
#else
// Item 0: qdd at (q, qd, τ); item 1 + k: column k of M⁻¹, the acceleration a unit effort k gives from rest
// without gravity (ABA is affine in τ). One run of the articulated-body algorithm each, into out (NV).
template <class R, typename T>
GLASS_HD void forward_dynamics_or_minv_column(T* out, int item, const T* q, const T* qd, const T* tau,
                                              Vec3<T> gravity) {
    const bool dynamics = item == 0;
    T v[R::NV], effort[R::NV];
    for (int k = 0; k < R::NV; ++k) {
        v[k] = dynamics ? qd[k] : T(0);
        effort[k] = dynamics ? tau[k] : T(k == item - 1 ? 1 : 0);
    }
    const Vec3<T> g = dynamics ? gravity : Vec3<T>{T(0), T(0), T(0)};
    AbaState<R, T> st;
    aba<R>(ThreadScope{}, out, q, v, effort, st, g);
}

// forward_dynamics_gradient by directions (directions_capable, directions_group), in two phases whose threads
// all run the same instructions: qdd and the NV columns of M⁻¹ by plain ABA runs; then per column of ∂τ/∂q and
// ∂τ/∂qd at (q, qd, qdd) a dual-number inverse dynamics, the column times −M⁻¹ stored straight away. One
// dual-number ABA per column instead (GRID_FDG_DUAL_ABA) needs no phases but runs code about four ABAs long on
// every thread. qdd_out (NV, group-visible) receives qdd.
template <class R, typename T, class S>
GLASS_HD void forward_dynamics_gradient_by_directions(const S& scope, T* dqdd_dq, T* dqdd_dqd, T* Minv, T* qdd_out,
                                                      const T* q, const T* qd, const T* tau, Vec3<T> gravity) {
    constexpr int NV = R::NV;
    for_each_item<NV + 1>(scope, [&](int item) {
        T out[NV];
        forward_dynamics_or_minv_column<R>(out, item, q, qd, tau, gravity);
        if (item == 0) {
            for (int k = 0; k < NV; ++k) qdd_out[k] = out[k];
        } else {
            for (int k = 0; k < NV; ++k) Minv[k * NV + item - 1] = out[k];
        }
    });
    scope.sync();
    for_each_item<2 * NV>(scope, [&](int item) {
        T col[NV];
        inverse_dynamics_direction<R>(col, item, q, qd, qdd_out, gravity);
        fd_gradient_store_column<R>(item < NV ? dqdd_dq : dqdd_dqd, Minv, col, item % NV);
    });
    scope.sync();
}
#endif

// dqdd_dq, dqdd_dqd, Minv: [NV, NV] row-major (row = qdd index, column = tangent direction, velocity
// coordinate or effort). The outputs double as scratch (∂τ is formed in place), so they must not alias.
template <class R, typename T, class S>
GLASS_HD void forward_dynamics_gradient(const S& scope, T* dqdd_dq, T* dqdd_dqd, T* Minv, const T* q, const T* qd,
                                        const T* tau, FdGradientState<R, T>& st, Vec3<T> gravity) {
    if constexpr (directions_capable<R, S>) {
        if (directions_group(scope, 3 * R::NV)) {  // a direction per thread
            forward_dynamics_gradient_by_directions<R>(scope, dqdd_dq, dqdd_dqd, Minv, st.qdd, q, qd, tau, gravity);
            return;
        }
    }
    if constexpr (is_limb_scope_v<S>) static_assert(S::teams == 1, "two teams of limb warps take FdGradientTeamsState");
    aba<R>(scope, st.qdd, q, qd, tau, st.aba, gravity);
    scope.sync();
    inverse_dynamics_gradient<R>(scope, dqdd_dq, dqdd_dqd, q, qd, st.qdd, st.gradient, gravity);
    scope.sync();
    minv<R>(scope, Minv, q, st.minv);
    scope.sync();
#if !defined(__CUDA_ARCH__)
    if constexpr (!S::cooperative) {
        // the host: columns in blocks, one pass over M⁻¹ per block (a large robot's M⁻¹ exceeds the caches)
        fd_gradient_solve_blocked<R>(dqdd_dq, Minv);
        fd_gradient_solve_blocked<R>(dqdd_dqd, Minv);
        return;
    }
#endif
    fd_gradient_solve_columns<R>(scope, dqdd_dq, dqdd_dqd, Minv);
}

// ∇FD in the limb scope with two teams of limb warps (the limb kernel, run_limbs<R, 2>): M⁻¹ needs only q, so
// team 1 runs it while team 0 runs ABA and then ∇ID at ABA's qdd; one sample's latency is then the longer of
// the two rather than their sum. The column solve runs on the whole block once both are done.
template <class R, typename T, int L, class B>
GLASS_HD void forward_dynamics_gradient(const LimbScope<L, B>& scope, T* dqdd_dq, T* dqdd_dqd, T* Minv, const T* q,
                                        const T* qd, const T* tau, FdGradientTeamsState<R, T>& st, Vec3<T> gravity) {
    static_assert(B::teams == 2, "FdGradientTeamsState is the state of two teams");
    if constexpr (B::team == 0) {
        aba<R>(scope, st.qdd, q, qd, tau, st.aba, gravity);
        scope.sync();
        inverse_dynamics_gradient<R>(scope, dqdd_dq, dqdd_dqd, q, qd, st.qdd, st.gradient, gravity);
    } else {
        minv<R>(scope, Minv, q, st.minv);
    }
    const auto block = scope.block();
    block.sync();
    fd_gradient_solve_columns<R>(block, dqdd_dq, dqdd_dqd, Minv);
}

#if defined(__CUDACC__)
// The last phase of forward_dynamics_gradient for a batch whose phases run as separate launches: ∂τ/∂q and
// ∂τ/∂qd in dqdd_dq and dqdd_dqd (num_samples × [NV, NV] each) become −M⁻¹·∂τ in place. One thread per
// column; the threads of a sample read the same M⁻¹, so its loads are shared in L1.
template <class R, typename T>
__global__ void forward_dynamics_gradient_solve_kernel(T* dqdd_dq, T* dqdd_dqd, const T* Minv, int num_samples) {
    constexpr size_t items = 2 * R::NV, stride = size_t(R::NV) * R::NV;
    const size_t total = size_t(num_samples) * items;
    for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += size_t(gridDim.x) * blockDim.x) {
        const size_t k = t / items;
        const int item = int(t % items);
        fd_gradient_solve_column<R>((item < R::NV ? dqdd_dq : dqdd_dqd) + k * stride, Minv + k * stride, item % R::NV);
    }
}
#endif

}  // namespace algorithms
}  // namespace grid
