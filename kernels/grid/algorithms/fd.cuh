// Forward dynamics through the inverse mass matrix:
//     qdd = M(q)⁻¹·(τ − C(q, qd)·qd − g(q))
// the bias forces by RNEA (qdd = 0), M⁻¹ by the analytical algorithm (minv.cuh), then one matrix-vector
// product. ABA (aba.cuh) gives the same accelerations without forming M⁻¹.
#pragma once

#include "grid/algorithms/minv.cuh"
#include "grid/algorithms/rnea.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

// The algorithm's state but M⁻¹'s F-region...
template <class R, typename T>
struct ForwardDynamicsBodies {
    T Minv[R::NV * R::NV];
    T u[R::NV];  // bias forces, then τ − bias
    // RNEA runs to completion before M⁻¹ starts: one region for both.
    union {
        RneaState<R, T> rnea;
        MinvBodies<R, T> minv;
    };
};

// ... and with it (minv_f_region_columns<R>() entries; an inline caller short of shared memory moves it to
// global memory first: forward_dynamics_inner's MINV_F_IN_SMEM).
template <class R, typename T>
struct ForwardDynamicsState : ForwardDynamicsBodies<R, T> {
    Spatial<T> minv_FP[minv_f_region_columns<R>()];
};

// qdd (NV) from q (NQ), qd (NV), tau (NV) and the gravitational acceleration in world coordinates; M⁻¹'s
// F-region at FP (group-visible).
template <class R, typename T, class S>
GLASS_HD void forward_dynamics(const S& scope, T* qdd, const T* q, const T* qd, const T* tau,
                               ForwardDynamicsBodies<R, T>& st, Spatial<T>* FP, Vec3<T> gravity) {
    constexpr int NV = R::NV;
    bias_forces<R>(scope, st.u, q, qd, st.rnea, gravity);
    for_each_item<NV>(scope, [&](int k) { st.u[k] = tau[k] - st.u[k]; });
    // minv reads neither u nor the RNEA state, and its barriers order the loop above before the product.
    algorithms::minv<R>(scope, st.Minv, q, st.minv, FP);
    // Row k of the exactly symmetric M⁻¹ read as column k: adjacent threads of a group read adjacent entries.
    for_each_item<NV>(scope, [&](int k) {
        T s = T(0);
        for (int j = 0; j < NV; ++j) s += st.Minv[j * NV + k] * st.u[j];
        qdd[k] = s;
    });
    scope.sync();
}

// The same with the whole state in one place.
template <class R, typename T, class S>
GLASS_HD void forward_dynamics(const S& scope, T* qdd, const T* q, const T* qd, const T* tau,
                               ForwardDynamicsState<R, T>& st, Vec3<T> gravity) {
    forward_dynamics<R>(scope, qdd, q, qd, tau, static_cast<ForwardDynamicsBodies<R, T>&>(st), st.minv_FP, gravity);
}

}  // namespace algorithms
}  // namespace grid
