// First derivatives of forward dynamics qdd = FD(q, qd, τ). Differentiating M(q)·qdd + b(q, qd) = τ at the
// solution gives
//     ∂qdd/∂q = −M⁻¹·∂τ/∂q,   ∂qdd/∂qd = −M⁻¹·∂τ/∂qd,   ∂qdd/∂τ = M⁻¹,
// with ∂τ the inverse-dynamics derivatives at (q, qd, qdd). qdd comes from the articulated-body algorithm,
// which stays accurate where M is ill-conditioned (M⁻¹·(τ − b) does not).
#pragma once

#include "grid/algorithms/aba.cuh"
#include "grid/algorithms/minv.cuh"
#include "grid/algorithms/rnea_gradient.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

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

// dqdd_dq, dqdd_dqd, Minv: [NV, NV] row-major (row = qdd index, column = tangent direction, velocity
// coordinate or effort). The outputs double as scratch (∂τ is formed in place), so they must not alias.
template <class R, typename T, class S>
GLASS_HD void forward_dynamics_gradient(const S& scope, T* dqdd_dq, T* dqdd_dqd, T* Minv, const T* q, const T* qd,
                                        const T* tau, FdGradientState<R, T>& st, Vec3<T> gravity) {
    aba<R>(scope, st.qdd, q, qd, tau, st.aba, gravity);
    scope.sync();
    inverse_dynamics_gradient<R>(scope, dqdd_dq, dqdd_dqd, q, qd, st.qdd, st.gradient, gravity);
    scope.sync();
    minv<R>(scope, Minv, q, st.minv);
    scope.sync();
    // column by column: ∂qdd[:, c] = −M⁻¹·∂τ[:, c], in place (each column belongs to one thread)
    for_each_item<2 * R::NV>(scope, [&](int item) {
        T* d = item < R::NV ? dqdd_dq : dqdd_dqd;
        const int c = item < R::NV ? item : item - R::NV;
        T col[R::NV];
        for (int k = 0; k < R::NV; ++k) col[k] = d[k * R::NV + c];
        for (int r = 0; r < R::NV; ++r) {
            T s = T(0);
            for (int k = 0; k < R::NV; ++k) s += Minv[r * R::NV + k] * col[k];
            d[r * R::NV + c] = -s;
        }
    });
    scope.sync();
}

}  // namespace algorithms
}  // namespace grid
