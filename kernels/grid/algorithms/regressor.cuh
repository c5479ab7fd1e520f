// The joint-torque regressor Y(q, qd, qdd). Inverse dynamics is linear in the bodies' inertial parameters,
//     τ = Y·π,  π = [π_0; …; π_{NB−1}],  π_i = [m, m·cx, m·cy, m·cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]
// (Pinocchio's dynamic parameters: the first moment and the rotational inertia about the body origin, in body
// axes; Pinocchio's computeJointTorqueRegressor has the same layout). Body i's wrench is
// f_i = I_i·a_i + v_i ×* I_i·v_i = A(v_i, a_i)·π_i; each of A's ten columns, carried up i's ancestors as
// RNEA carries subtree forces, gives column 10·i + k of Y: S_aᵀ·F in the rows of every ancestor a (i
// included), zero in the rows of the other joints. RNEA's forward sweep, then one walk per body and column.
#pragma once

#include "grid/algorithms/rnea.cuh"

namespace grid {
namespace algorithms {

// I(e_K)·m: the inertia whose parameters are the K-th unit vector, applied to motion m.
template <int K, typename T>
GLASS_HD Spatial<T> unit_inertia_apply(const Spatial<T>& m) {
    Spatial<T> f = zero_spatial<T>();
    if constexpr (K == 0) {  // mass: [0; m·v]
        f.lin = m.lin;
    } else if constexpr (K <= 3) {  // first moment h = e_x: [h × v; −h × ω]
        constexpr int x = K - 1, y = (x + 1) % 3, z = (x + 2) % 3;
        f.ang[y] = -m.lin[z];
        f.ang[z] = m.lin[y];
        f.lin[y] = m.ang[z];
        f.lin[z] = -m.ang[y];
    } else {  // rotational inertia entry (r, c) and (c, r), Pinocchio's order xx, xy, yy, xz, yz, zz
        constexpr int rows[6] = {0, 0, 1, 0, 1, 2}, cols[6] = {0, 1, 1, 2, 2, 2};
        constexpr int r = rows[K - 4], c = cols[K - 4];
        f.ang[r] = m.ang[c];
        if constexpr (r != c) f.ang[c] = m.ang[r];
    }
    return f;
}

// Y (NV × 10·NB, row-major) from q (NQ), qd (NV) and qdd (NV). Y may be global memory; for an unrolled
// robot every element is written exactly once and none is read back.
template <class R, typename T, class S>
GLASS_HD void joint_torque_regressor(const S& scope, T* Y, const T* q, const T* qd, const T* qdd,
                                     RneaMotionState<R, T>& st, Vec3<T> gravity) {
    constexpr int NP = 10 * R::NB;
    // a rolled robot zeroes Y first (which rows are off a body's path is not known at compile time)
    if constexpr (rolled_v<R>) for_each_item<R::NV * NP>(scope, [&](int k) { Y[k] = T(0); });
    forward_sweep<R>(scope, [&](auto i) { rnea_body_motion<R>(i, q, qd, qdd, st, gravity); });
    for_each_body<R>(scope, [&](auto i) {
        static_for<10>([&](auto k) {
            const int col = 10 * int(i) + int(k);
            // column k of body i's wrench I·a + v ×* I·v, I the unit inertia of parameter k
            Spatial<T> F = unit_inertia_apply<int(k)>(st.a[i]) +
                           force_cross(st.v[i], unit_inertia_apply<int(k)>(st.v[i]));
            for_each_ancestor<R, true>(i, [&](auto a) {
                const auto ja = joint<R>(a);
                using A = decltype(ja);
                T s[A::nv];
                subspace_project(ja, F, s);
                for (int b = 0; b < A::nv; ++b) Y[size_t(ja.v + b) * NP + col] = s[b];
                if constexpr (!A::is_root) F = joint_force_to_parent(ja, st.pose[a], F);
            });
            if constexpr (!rolled_v<R>) {
                static_for<R::NB>([&](auto e) {
                    using E = JointAt<R, e>;
                    if constexpr (!is_ancestor_or_self<R>(E::index, index_of<decltype(i)>)) {
                        for (int b = 0; b < E::nv; ++b) Y[size_t(E::v + b) * NP + col] = T(0);
                    }
                });
            }
        });
    });
}

}  // namespace algorithms
}  // namespace grid
