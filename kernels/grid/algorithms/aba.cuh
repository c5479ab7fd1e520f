// Forward dynamics by Featherstone's articulated-body algorithm:
//     qdd = M(q)⁻¹·(τ − C(q, qd)·qd − g(q))
// in three sweeps over the tree, O(NB) work, every body's joint and inertia folded in at compile time.
#pragma once

#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"
#include "grid/solve.cuh"

namespace grid {
namespace algorithms {

// The algorithm's state: the group's scratch (shared memory) in GroupScope; in ThreadScope on an unrolled
// robot `aba` keeps these arrays as objects of its own (ScopeArray), in registers, and in a LimbScope all but
// the entries other limbs read (LimbArray).
template <class R, typename T>
struct AbaState {
    JointPose<T> pose[R::NB];
    Spatial<T> v[R::NB];     // body velocities, then body accelerations
    Spatial<T> c[R::NB];     // velocity-product accelerations v × S·qd (velocity_product)
    Spatial<T> pA[R::NB];    // bias forces v ×* I·v, then articulated
    Sym6<T> IA_up[R::NB];    // articulated inertia a body passes to its parent, in parent coordinates
    Spatial<T> pA_up[R::NB]; // articulated bias force it passes to its parent, in parent coordinates
    Spatial<T> U[R::NB];     // IA·S of one-degree-of-freedom joints
    T dinv[R::NB];           // (Sᵀ·IA·S)⁻¹
    T u[R::NB];              // τ − Sᵀ·pA
    Sym6<T> root_IA;         // a free-flyer root's articulated inertia
};

// qdd (NV) from q (NQ), qd (NV), tau (NV) and the gravitational acceleration in world coordinates.
// A free-flyer's qdd and tau are [a_lin; α] and [f; n] in its body frame. A joint whose articulated
// inertia is not positive definite yields NaN.
template <class R, typename T, class S>
GLASS_HD void aba(const S& scope, T* qdd, const T* q, const T* qd, const T* tau, AbaState<R, T>& st,
                  Vec3<T> gravity) {
    auto pose = scope_array<R, S>(st.pose);
    auto vel = scope_array<R, S>(st.v);
    auto c = scope_array<R, S>(st.c);
    auto pA = scope_array<R, S>(st.pA);
    auto IA_up = scope_array<R, S>(st.IA_up);
    auto pA_up = scope_array<R, S>(st.pA_up);
    auto U = scope_array<R, S>(st.U);
    auto dinv = scope_array<R, S>(st.dinv);
    auto u = scope_array<R, S>(st.u);
    Sym6<T>& root_IA = st.root_IA;

    forward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        pose[i] = joint_pose(j, q + j.q);
        const Spatial<T> vj = subspace_apply(j, qd + j.v);
        Spatial<T> v = vj;
        if constexpr (!J::is_root) v = joint_motion_to_body(j, pose[i], vel[parent_of<R>(i)]) + vj;
        c[i] = velocity_product(j, v, qd + j.v);
        pA[i] = force_cross(v, inertia_apply(j, v));
        vel[i] = v;
    });

    backward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        // The children on this thread added theirs to IA_up[i] and pA[i] as they finished; the others left
        // theirs in IA_up and pA_up.
        Sym6<T> IA;
        Spatial<T> p = pA[i];
        if constexpr (children_on_thread_v<R, S, decltype(i)> > 0) {
            IA = IA_up[i];
        } else {
            IA = body_inertia<T>(j);
        }
        for_each_child<R>(i, [&](auto ch) {
            if constexpr (!same_thread<R, S, decltype(ch), decltype(i)>) {
                add_to(IA, IA_up[ch]);
                p = p + pA_up[ch];
            }
        });
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            static_assert(J::is_root, "a free-flyer joint is the root of the tree");
            root_IA = IA;
            pA[i] = p;
        } else {
            U[i] = inertia_subspace(j, IA, Index<0>{});
            dinv[i] = T(1) / subspace_project1(j, U[i]);
            u[i] = tau[j.v] - subspace_project1(j, p);
            if constexpr (!J::is_root) {
                const Sym6<T> Ia = rank1_remove(IA, U[i], dinv[i]);
                const Spatial<T> pa = velocity_product_apply_add(j, p + (dinv[i] * u[i]) * U[i], Ia, c[i]);
                const auto parent = parent_of<R>(i);
                if constexpr (same_thread<R, S, decltype(i), decltype(parent)>) {
                    if constexpr (last_child_on_thread<R, S>(J::parent) == index_of<decltype(i)>)  // first to run
                        IA_up[parent] = body_inertia<T>(joint<R>(parent));
                    add_to(IA_up[parent], joint_inertia_to_parent(j, pose[i], Ia));
                    pA[parent] = pA[parent] + joint_force_to_parent(j, pose[i], pa);
                } else {
                    IA_up[i] = joint_inertia_to_parent(j, pose[i], Ia);
                    pA_up[i] = joint_force_to_parent(j, pose[i], pa);
                }
            }
        }
    });

    forward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        Spatial<T> a;
        if constexpr (J::is_root) {
            Spatial<T> a0 = zero_spatial<T>();
            a0.lin = Vec<T>{{-gravity.x, -gravity.y, -gravity.z}};
            a = joint_motion_to_body(j, pose[i], a0);
        } else {
            a = velocity_product_add(j, joint_motion_to_body(j, pose[i], vel[parent_of<R>(i)]), c[i]);
        }
        if constexpr (J::kind == JOINT_FREE_FLYER) {
            // x = IA⁻¹·(S·τ − pA − IA·a'), qdd = Sᵀ·x, a = a' + x
            const Spatial<T> rhs = subspace_apply(j, tau + j.v) - pA[i] - apply(root_IA, a);
            const Spatial<T> x = solve_spd(root_IA, rhs);
            subspace_project(j, x, qdd + j.v);
            a = a + x;
        } else {
            const T x = dinv[i] * (u[i] - dot(U[i], a));
            qdd[j.v] = x;
            a = a + subspace_apply(j, &x);
        }
        vel[i] = a;
    });
}

}  // namespace algorithms
}  // namespace grid
