// The joint-space inertia matrix M(q) by the composite rigid-body algorithm: one backward sweep forms each
// body's composite inertia Ic (its subtree as one rigid body) and, for every column c of the body's joint,
// the force F = Ic·S_c; carried up the ancestors, F gives the column's entries M[a, c] = S_aᵀ·F.
#pragma once

#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"

namespace grid {
namespace algorithms {

template <class R, typename T>
struct CrbaState {
    JointPose<T> pose[R::NB];
    Sym6<T> Ic_up[R::NB];  // composite inertia a body passes to its parent, in parent coordinates
    Spatial<T> F[R::NB];   // Ic·S of a one-degree-of-freedom joint, for the column pass (group scope)
};

// M (NV × NV, row-major, exactly symmetric) from q (NQ). None is read back, and for an unrolled robot
// every element is written exactly once: the body of the later joint of each pair writes both (a, b) and
// (b, a), zero for joints that are not ancestor and descendant. M may be global memory.
// rows_final(Index<first>{}, Index<end>{}) says that rows [first, end) of M hold their final values (and
// every row after them already did): in thread scope on an unrolled robot as each body's rows complete, the
// last rows first; otherwise once for all rows at the end. A caller staging M can store those rows early.
template <class R, typename T, class S, class RowsFinal = IgnoreFinalRows>
GLASS_HD void mass_matrix(const S& scope, T* M, const T* q, CrbaState<R, T>& st, RowsFinal&& rows_final = {}) {
    constexpr int NV = R::NV;
    // A body's columns need the poses of all its ancestors: every pose first.
    for_each_body<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        st.pose[i] = joint_pose(j, q + j.q);
    });
    // A rolled robot zeroes M first (the blocks off each path are not known at compile time) and then
    // writes the path blocks.
    if constexpr (rolled_v<R>) {
        for_each_item<NV * NV>(scope, [&](int k) { M[k] = T(0); });
        scope.sync();
    }

    // Column col of joint i from F = Ic_i·S_i[:, col]: up the path from i, M[a, col] = S_aᵀ·F, then F
    // crosses a's joint. i's own block (a free-flyer's a relabelling of Ic, symmetric as stored) is written
    // once; every other block is mirrored, and the blocks of earlier joints off the path are zero.
    const auto columns = [&](auto i, auto k, Spatial<T> F) {
        const int col = joint<R>(i).v + k;
        for_each_ancestor<R, true>(i, [&](auto a) {
            const auto ja = joint<R>(a);
            using A = decltype(ja);
            T s[A::nv];
            subspace_project(ja, F, s);
            const bool self = int(a) == int(i);
            for (int b = 0; b < A::nv; ++b) {
                M[(ja.v + b) * NV + col] = s[b];
                if (!self) M[col * NV + ja.v + b] = s[b];
            }
            if constexpr (!A::is_root) F = joint_force_to_parent(ja, st.pose[a], F);
        });
        if constexpr (!rolled_v<R>) {
            constexpr int body = index_of<decltype(i)>;
            static_for<body>([&](auto e) {
                using E = JointAt<R, e>;
                if constexpr (!is_ancestor_or_self<R>(E::index, body)) {
                    for (int b = 0; b < E::nv; ++b) {
                        M[(E::v + b) * NV + col] = T(0);
                        M[col * NV + E::v + b] = T(0);
                    }
                }
            });
        }
    };

    // Thread scope walks each body's columns as soon as its composite inertia is complete. Group scope
    // leaves the walks, whose length grows with depth, to one pass over all bodies after the sweep, so that
    // the sweep's levels wait only for the composite inertias.
    backward_sweep<R>(scope, [&](auto i) {
        const auto j = joint<R>(i);
        using J = decltype(j);
        Sym6<T> Ic = body_inertia<T>(j);
        for_each_child<R>(i, [&](auto c) { add_to(Ic, st.Ic_up[c]); });
        if constexpr (!J::is_root) st.Ic_up[i] = joint_inertia_to_parent(j, st.pose[i], Ic);
        if constexpr (J::nv > 1 || !S::cooperative) {
            static_assert(J::nv == 1 || J::is_root, "a free-flyer joint is the root of the tree");
            static_for<J::nv>([&](auto k) { columns(i, k, inertia_subspace(j, Ic, k)); });
            // Every joint after i was walked before (thread scope runs the bodies last first): i's rows
            // are complete, from its columns and theirs.
            if constexpr (!S::cooperative && !rolled_v<R>) {
                constexpr int body = index_of<decltype(i)>;
                rows_final(Index<J::v>{}, Index<(body + 1 < R::NB ? R::joint[body + 1].v : NV)>{});
            }
        } else {
            st.F[i] = inertia_subspace(j, Ic, Index<0>{});
        }
    });
    if constexpr (S::cooperative) {
        for_each_body<R>(scope, [&](auto i) {
            if constexpr (decltype(joint<R>(i))::nv == 1) columns(i, Index<0>{}, st.F[i]);
        });
    }
    if constexpr (S::cooperative || rolled_v<R>) rows_final(Index<0>{}, Index<NV>{});
}

}  // namespace algorithms
}  // namespace grid
