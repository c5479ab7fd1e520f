// Inverse dynamics by the recursive Newton-Euler algorithm:
//     τ = M(q)·qdd + C(q, qd)·qd + g(q)
// and its special cases bias_forces (qdd = 0) and gravity_forces (qd = qdd = 0). One forward sweep (body
// velocities, accelerations and forces in body coordinates), one backward sweep (subtree forces and their
// projections on the joint axes).
#pragma once

#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

// RNEA's forward sweep: every body's pose, velocity and acceleration (the joint-torque regressor's state).
template <class R, typename T>
struct RneaMotionState {
    JointPose<T> pose[R::NB];
    Spatial<T> v[R::NB];  // body velocities
    Spatial<T> a[R::NB];  // body accelerations (gravity entered as a base acceleration)
};

template <class R, typename T>
struct RneaState : RneaMotionState<R, T> {
    Spatial<T> f[R::NB];     // body forces I·a + v ×* I·v, then subtree forces
    Spatial<T> f_up[R::NB];  // subtree force a body passes to its parent, in parent coordinates
};

// RNEA's forward step for body i: its pose, velocity and acceleration from its parent's.
template <class R, typename T, class I>
GLASS_HD void rnea_body_motion(I i, const T* q, const T* qd, const T* qdd, RneaMotionState<R, T>& st,
                               Vec3<T> gravity) {
    const auto j = joint<R>(i);
    using J = decltype(j);
    st.pose[i] = joint_pose(j, q + j.q);
    Spatial<T> v, a;
    if constexpr (J::is_root) {
        Spatial<T> a0 = zero_spatial<T>();
        a0.lin = Vec<T>{{-gravity.x, -gravity.y, -gravity.z}};
        a = joint_motion_to_body(j, st.pose[i], a0);
        v = zero_spatial<T>();
    } else {
        v = joint_motion_to_body(j, st.pose[i], st.v[j.parent]);
        a = joint_motion_to_body(j, st.pose[i], st.a[j.parent]);
    }
    if (qd != nullptr) {
        const Spatial<T> vj = subspace_apply(j, qd + j.v);
        v = v + vj;
        a = velocity_product_add(j, a, velocity_product(j, v, qd + j.v));
    }
    if (qdd != nullptr) a = a + subspace_apply(j, qdd + j.v);
    st.v[i] = v;
    st.a[i] = a;
}

// tau (NV) from q (NQ), qd (NV; nullptr: zero) and qdd (NV; nullptr: zero).
template <class R, typename T, class S>
GLASS_HD void rnea(const S& scope, T* tau, const T* q, const T* qd, const T* qdd, RneaState<R, T>& st,
                   Vec3<T> gravity) {
    forward_sweep<R>(scope, [&](auto i) {
        rnea_body_motion<R>(i, q, qd, qdd, st, gravity);
        const auto j = joint<R>(i);
        st.f[i] = inertia_apply(j, st.a[i]) + force_cross(st.v[i], inertia_apply(j, st.v[i]));
    });
    backward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        Spatial<T> f = st.f[i];
        for_each_child<R>(i, [&](auto c) { f = f + st.f_up[c]; });
        subspace_project(j, f, tau + j.v);
        if constexpr (!J::is_root) st.f_up[i] = joint_force_to_parent(j, st.pose[i], f);
    });
}

template <class R, typename T, class S>
GLASS_HD void inverse_dynamics(const S& scope, T* tau, const T* q, const T* qd, const T* qdd,
                               RneaState<R, T>& st, Vec3<T> gravity) {
    rnea<R>(scope, tau, q, qd, qdd, st, gravity);
}

template <class R, typename T, class S>
GLASS_HD void bias_forces(const S& scope, T* tau, const T* q, const T* qd, RneaState<R, T>& st,
                          Vec3<T> gravity) {
    rnea<R>(scope, tau, q, qd, static_cast<const T*>(nullptr), st, gravity);
}

template <class R, typename T, class S>
GLASS_HD void gravity_forces(const S& scope, T* tau, const T* q, RneaState<R, T>& st, Vec3<T> gravity) {
    rnea<R>(scope, tau, q, static_cast<const T*>(nullptr), static_cast<const T*>(nullptr), st, gravity);
}

}  // namespace algorithms
}  // namespace grid
