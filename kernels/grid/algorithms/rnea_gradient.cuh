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
// columns: O(NB·depth) six-vector dot products after O(NB) spatial algebra. On an unrolled robot in thread
// or group scope every output element is written exactly once (zeros by the row's joint), so the outputs may
// be global memory; a rolled robot and a limb scope zero them all first, a barrier before the path entries.
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
// rows_final(Index<first>{}, Index<end>{}) says that rows [first, end) of both hold their final values (and
// every row after them already did): in thread scope on an unrolled robot as each body's rows complete, the
// last rows first; otherwise once for all rows at the end. A caller staging the outputs can store them early.
template <class R, typename T, class S, class OutQ, class OutQD, class RowsFinal = IgnoreFinalRows>
GLASS_HD void inverse_dynamics_gradient(const S& scope, OutQ dtau_dq, OutQD dtau_dqd, const T* q, const T* qd,
                                        const T* qdd, RneaGradientState<R, T>& st, Vec3<T> gravity,
                                        RowsFinal&& rows_final = {}) {
    if constexpr (directions_capable<R, S> && std::is_same_v<OutQ, T*> && std::is_same_v<OutQD, T*>) {
        if (directions_group(scope, 2 * R::NV)) {  // a direction per thread
            inverse_dynamics_gradient_by_directions<R>(scope, dtau_dq, dtau_dqd, q, qd, qdd, gravity);
            return;
        }
    }
    // One thread on an unrolled robot keeps each array an object of its own (ScopeArray) and adds a body's
    // composites to its parent's as soon as they are complete, so that fewer values stay live; a limb keeps
    // those of its own bodies, but for what other limbs read.
    constexpr bool own = own_arrays<R, S>;
    auto Wb = scope_array<R, S>(st.W);
    auto vb = scope_array<R, S>(st.v);
    auto ab = scope_array<R, S>(st.a);
    auto Sc = scope_array<R, S, LimbColumns>(st.S);
    auto wc = scope_array<R, S, LimbColumns>(st.w);
    auto cc = scope_array<R, S, LimbColumns>(st.c);
    auto dc = scope_array<R, S, LimbColumns>(st.d);
    auto Yb = scope_array<R, S>(st.Y);
    auto Bb = scope_array<R, S>(st.B);
    auto Fb = scope_array<R, S>(st.F);
    // A rolled robot zeroes the outputs first (the columns off each body's path are not known at compile
    // time) and then writes the path entries; so does a limb scope, with the lanes that would otherwise idle
    // while lane 0 runs the limb (each limb's lane 0 had streamed a store per zero).
    constexpr bool zeros_first = rolled_v<R> || is_limb_scope_v<S>;
    if constexpr (zeros_first) {
        for_each_item<R::NV * R::NV>(scope, [&](int k) {
            dtau_dq[k] = T(0);
            dtau_dqd[k] = T(0);
        });
        if constexpr (is_limb_scope_v<S>) scope.sync();
    }
    forward_sweep<R>(scope, [&](auto i) GLASS_INLINE_LAMBDA {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        const JointPose<T> pose = joint_pose(jt, q + jt.q);
        Spatial<T> vp = zero_spatial<T>(), ap = zero_spatial<T>();
        if constexpr (J::is_root) {
            Wb[i] = world_pose(jt, pose, WorldPose<T>{});
            ap.lin = Vec<T>{{-gravity.x, -gravity.y, -gravity.z}};
        } else {
            const auto parent = parent_of<R>(i);
            Wb[i] = world_pose(jt, pose, Wb[parent]);
            vp = vb[parent];
            ap = ab[parent];
        }
        Spatial<T> vj = zero_spatial<T>(), aj = zero_spatial<T>();
        static_for<J::nv>([&](auto k) {
            const auto col = coordinate(jt, k);
            const Spatial<T> s = world_subspace(jt, Wb[i], k);
            Sc[col] = s;
            vj = vj + qd[col] * s;
            aj = aj + qdd[col] * s;
        });
        const Spatial<T> v = vp + vj;
        vb[i] = v;
        ab[i] = ap + aj + motion_cross(v, vj);
        static_for<J::nv>([&](auto k) {
            const auto col = coordinate(jt, k);
            const Spatial<T>& s = Sc[col];
            const Spatial<T> w = motion_cross(s, vp);
            wc[col] = w;
            cc[col] = motion_cross(s, ap) - motion_cross(w, vp);
            dc[col] = motion_cross(v, s) - w;
        });
        const RigidInertia<T> Y = inertia_to_world(jt, Wb[i]);
        const Coriolis<T> B = coriolis(Y, v);
        Yb[i] = Y;
        Bb[i] = B;
        Fb[i] = apply(Y, ab[i]) + force_cross(v, B.momentum);
    });

    backward_sweep<R>(scope, [&](auto i) GLASS_INLINE_LAMBDA {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        RigidInertia<T> Y = Yb[i];
        Coriolis<T> B = Bb[i];
        Spatial<T> F = Fb[i];
        // the children on this thread added their composites to this body's as they were complete
        for_each_child<R>(i, [&](auto c) {
            if constexpr (!same_thread<R, S, decltype(c), decltype(i)>) {
                add_to(Y, Yb[c]);
                add_to(B, Bb[c]);
                F = F + Fb[c];
            }
        });
        // an unrolled robot's zeros: this joint's rows against the columns of earlier joints on other branches,
        // and their rows against its columns (the later joint of each pair writes both)
        if constexpr (!zeros_first) {
            constexpr int body = index_of<decltype(i)>;
            static_for<body>([&](auto e) {
                using E = JointAt<R, e>;
                if constexpr (!is_ancestor_or_self<R>(E::index, body)) {
                    static_for<J::nv>([&](auto k) {
                        static_for<E::nv>([&](auto m) {
                            const int row = J::v + k, col = E::v + m;
                            dtau_dq[row * R::NV + col] = T(0);
                            dtau_dqd[row * R::NV + col] = T(0);
                            dtau_dq[col * R::NV + row] = T(0);
                            dtau_dqd[col * R::NV + row] = T(0);
                        });
                    });
                }
            });
        }
        // rows of this joint against the columns of its ancestors and itself (its descendants' steps filled
        // the columns below it)
        static_for<J::nv>([&](auto k) {
            const auto row = coordinate(jt, k);
            const Spatial<T> u = apply(Y, Sc[row]);
            const Spatial<T> beta = apply_t(B, Sc[row]);
            for_each_ancestor<R, true>(i, [&](auto j) {
                const auto ja = joint<R>(j);
                static_for<decltype(ja)::nv>([&](auto m) {
                    const auto col = coordinate(ja, m);
                    dtau_dq[row * R::NV + col] = -(dot(u, cc[col]) + dot(beta, wc[col]));
                    dtau_dqd[row * R::NV + col] = dot(u, dc[col]) + dot(beta, Sc[col]);
                });
            });
        });
        // rows of its strict ancestors against this joint's columns
        static_for<J::nv>([&](auto m) {
            const auto col = coordinate(jt, m);
            const Spatial<T>& s = Sc[col];
            const Spatial<T> yq = force_cross(s, F) - apply(Y, cc[col]) - apply(B, wc[col]);
            const Spatial<T> yqd = apply(Y, dc[col]) + apply(B, s);
            for_each_ancestor<R, false>(i, [&](auto j) {
                const auto ja = joint<R>(j);
                static_for<decltype(ja)::nv>([&](auto k) {
                    const auto row = coordinate(ja, k);
                    dtau_dq[row * R::NV + col] = dot(Sc[row], yq);
                    dtau_dqd[row * R::NV + col] = dot(Sc[row], yqd);
                });
            });
        });
        // the composites go to the parent's where it runs on this thread, else where its thread reads them
        if constexpr (J::is_root) {
            if constexpr (!own) {
                Yb[i] = Y;
                Bb[i] = B;
                Fb[i] = F;
            }
        } else if constexpr (same_thread<R, S, decltype(i), decltype(parent_of<R>(i))>) {
            const auto parent = parent_of<R>(i);
            add_to(Yb[parent], Y);
            add_to(Bb[parent], B);
            Fb[parent] = Fb[parent] + F;
        } else {
            Yb[i] = Y;
            Bb[i] = B;
            Fb[i] = F;
        }
        if constexpr (own) {
            constexpr int body = index_of<decltype(i)>;
            rows_final(Index<J::v>{}, Index<(body + 1 < R::NB ? R::joint[body + 1].v : R::NV)>{});
        }
    });
    if constexpr (!own) rows_final(Index<0>{}, Index<R::NV>{});
}

}  // namespace algorithms
}  // namespace grid
