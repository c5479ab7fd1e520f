// First derivatives of inverse dynamics, ∂τ/∂q and ∂τ/∂qd, analytically in world coordinates.
//
// In world coordinates a change of q_j (a tangent direction: a joint angle, or one component of a
// free-flyer's body twist) moves the subtree of its joint J rigidly along the joint's world axis σ_j, so
// every world quantity attached to that subtree varies by σ_j × (·), and what does not rotate with it (the
// parent's velocity v_p and acceleration a_p) gives the rest. Working that through RNEA gives, with
//     w_j = σ_j × v_p,   c_j = σ_j × a_p − w_j × v_p,   d_j = v_J × σ_j − w_j
// and, for each joint K, its subtree's composite rigid-body inertia Y_K, Coriolis operator B_K
// (grid/world.cuh) and force F_K:
//     k in the subtree of j (k ⪰ j):   ∂τ_k/∂q_j = −(Y_K S_k)·c_j − (B_Kᵀ S_k)·w_j
//                                      ∂τ_k/∂qd_j = (Y_K S_k)·d_j + (B_Kᵀ S_k)·σ_j
//     k a strict ancestor of j:        ∂τ_k/∂q_j = S_k·(σ_j ×* F_J − Y_J c_j − B_J w_j)
//                                      ∂τ_k/∂qd_j = S_k·(Y_J d_j + B_J σ_j)
// and zero otherwise. Composites are plain sums in world coordinates, so the backward sweep only adds;
// each body then fills its own rows against its ancestors' columns and its ancestors' rows against its own
// columns: O(NB·depth) six-vector dot products after O(NB) spatial algebra. Every output element is
// written exactly once (zeros by the row's joint), so the outputs may be global memory.
#pragma once

#include "grid/algorithms/directions.cuh"
#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"
#include "grid/world.cuh"

#include <type_traits>

namespace grid {
namespace algorithms {

template <class R, typename T>
struct RneaGradientState {
    WorldPose<T> W[R::NB];
    Spatial<T> v[R::NB];     // body velocities (world)
    Spatial<T> a[R::NB];     // body accelerations (world; gravity as a base acceleration)
    Spatial<T> S[R::NV];     // motion subspace columns (world)
    Spatial<T> w[R::NV];     // σ_j × v_p
    Spatial<T> c[R::NV];     // σ_j × a_p − w_j × v_p
    Spatial<T> d[R::NV];     // v_J × σ_j − w_j
    RigidInertia<T> Y[R::NB];  // body inertias (world), then subtree composites
    Coriolis<T> B[R::NB];      // body Coriolis operators, then subtree sums
    Spatial<T> F[R::NB];       // body forces, then subtree forces
};

// dtau_dq and dtau_dqd: [NV, NV] row-major, row = τ index, column = tangent direction. Each is T* or any
// type whose out[k] = x stores entry k (the second-order algorithms pass sinks that keep a derivative part).
template <class R, typename T, class S, class OutQ, class OutQD>
GLASS_HD void inverse_dynamics_gradient(const S& scope, OutQ dtau_dq, OutQD dtau_dqd, const T* q, const T* qd,
                                        const T* qdd, RneaGradientState<R, T>& st, Vec3<T> gravity) {
    if constexpr (directions_capable<R, S> && std::is_same_v<OutQ, T*> && std::is_same_v<OutQD, T*>) {
        if (directions_group(scope, 2 * R::NV)) {  // a direction per thread
            inverse_dynamics_gradient_by_directions<R>(scope, dtau_dq, dtau_dqd, q, qd, qdd, gravity);
            return;
        }
    }
    // A rolled robot zeroes the outputs first (the columns off each body's path are not known at compile
    // time) and then writes the path entries.
    if constexpr (rolled_v<R>) {
        for_each_item<R::NV * R::NV>(scope, [&](int k) {
            dtau_dq[k] = T(0);
            dtau_dqd[k] = T(0);
        });
    }
    forward_sweep<R>(scope, [&](auto i) {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        const JointPose<T> pose = joint_pose(jt, q + jt.q);
        Spatial<T> vp = zero_spatial<T>(), ap = zero_spatial<T>();
        if constexpr (J::is_root) {
            st.W[i] = world_pose(jt, pose, WorldPose<T>{});
            ap.lin = Vec<T>{{-gravity.x, -gravity.y, -gravity.z}};
        } else {
            st.W[i] = world_pose(jt, pose, st.W[jt.parent]);
            vp = st.v[jt.parent];
            ap = st.a[jt.parent];
        }
        Spatial<T> vj = zero_spatial<T>(), aj = zero_spatial<T>();
        static_for<J::nv>([&](auto k) {
            const Spatial<T> s = world_subspace(jt, st.W[i], k);
            st.S[jt.v + k] = s;
            vj = vj + qd[jt.v + k] * s;
            aj = aj + qdd[jt.v + k] * s;
        });
        const Spatial<T> v = vp + vj;
        st.v[i] = v;
        st.a[i] = ap + aj + motion_cross(v, vj);
        static_for<J::nv>([&](auto k) {
            const Spatial<T>& s = st.S[jt.v + k];
            const Spatial<T> w = motion_cross(s, vp);
            st.w[jt.v + k] = w;
            st.c[jt.v + k] = motion_cross(s, ap) - motion_cross(w, vp);
            st.d[jt.v + k] = motion_cross(v, s) - w;
        });
        const RigidInertia<T> Y = inertia_to_world(jt, st.W[i]);
        const Coriolis<T> B = coriolis(Y, v);
        st.Y[i] = Y;
        st.B[i] = B;
        st.F[i] = apply(Y, st.a[i]) + force_cross(v, B.momentum);
    });

    backward_sweep<R>(scope, [&](auto i) {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        RigidInertia<T> Y = st.Y[i];
        Coriolis<T> B = st.B[i];
        Spatial<T> F = st.F[i];
        for_each_child<R>(i, [&](auto c) {
            add_to(Y, st.Y[c]);
            add_to(B, st.B[c]);
            F = F + st.F[c];
        });
        // rows of this joint: zeros against the columns of joints on other branches (its descendants'
        // steps fill the columns below it), then the columns of its ancestors and itself
        static_for<J::nv>([&](auto k) {
            const int row = jt.v + k;
            if constexpr (!rolled_v<R>) {
                static_for<R::NB>([&](auto j) {
                    constexpr int body = index_of<decltype(i)>;
                    if constexpr (!is_ancestor_or_self<R>(j, body) && !is_ancestor_or_self<R>(body, j)) {
                        static_for<JointAt<R, j>::nv>([&](auto m) {
                            dtau_dq[row * R::NV + JointAt<R, j>::v + m] = T(0);
                            dtau_dqd[row * R::NV + JointAt<R, j>::v + m] = T(0);
                        });
                    }
                });
            }
            const Spatial<T> u = apply(Y, st.S[row]);
            const Spatial<T> beta = apply_t(B, st.S[row]);
            for_each_ancestor<R, true>(i, [&](auto j) {
                const auto ja = joint<R>(j);
                static_for<decltype(ja)::nv>([&](auto m) {
                    const int col = ja.v + m;
                    dtau_dq[row * R::NV + col] = -(dot(u, st.c[col]) + dot(beta, st.w[col]));
                    dtau_dqd[row * R::NV + col] = dot(u, st.d[col]) + dot(beta, st.S[col]);
                });
            });
        });
        // rows of its strict ancestors against this joint's columns
        static_for<J::nv>([&](auto m) {
            const int col = jt.v + m;
            const Spatial<T>& s = st.S[col];
            const Spatial<T> yq = force_cross(s, F) - apply(Y, st.c[col]) - apply(B, st.w[col]);
            const Spatial<T> yqd = apply(Y, st.d[col]) + apply(B, s);
            for_each_ancestor<R, false>(i, [&](auto j) {
                const auto ja = joint<R>(j);
                static_for<decltype(ja)::nv>([&](auto k) {
                    const int row = ja.v + k;
                    dtau_dq[row * R::NV + col] = dot(st.S[row], yq);
                    dtau_dqd[row * R::NV + col] = dot(st.S[row], yqd);
                });
            });
        });
        st.Y[i] = Y;
        st.B[i] = B;
        st.F[i] = F;
    });
}

}  // namespace algorithms
}  // namespace grid
