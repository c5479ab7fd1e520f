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

// M (NV × NV, row-major, exactly symmetric) from q (NQ). Every element is written exactly once and none is
// read back: the body of the later joint of each pair writes both (a, b) and (b, a), zero for joints that
// are not ancestor and descendant. M may be global memory.
template <class R, typename T, class S>
GLASS_HD void mass_matrix(const S& scope, T* M, const T* q, CrbaState<R, T>& st) {
    constexpr int NV = R::NV;
    // A body's columns need the poses of all its ancestors: every pose first.
    for_each_body<R>(scope, [&](auto i) {
        using J = JointAt<R, i>;
        st.pose[i] = joint_pose<J>(q + J::q);
    });

    // Column col of joint i from F = Ic_i·S_i[:, col]: up the path from i, M[a, col] = S_aᵀ·F, then F
    // crosses a's joint. i's own block (a free-flyer's a relabelling of Ic, symmetric as stored) is written
    // once; every other block is mirrored, and the blocks of earlier joints off the path are zero.
    const auto columns = [&](auto i, auto k, Spatial<T> F) {
        using J = JointAt<R, i>;
        constexpr int col = J::v + k;
        for_each_ancestor<R, J::index, true>([&](auto a) {
            using A = JointAt<R, a>;
            T s[A::nv];
            subspace_project<A>(F, s);
            for (int b = 0; b < A::nv; ++b) {
                M[(A::v + b) * NV + col] = s[b];
                if constexpr (A::index != J::index) M[col * NV + A::v + b] = s[b];
            }
            if constexpr (!A::is_root) F = joint_force_to_parent<A>(st.pose[a], F);
        });
        static_for<J::index>([&](auto e) {
            using E = JointAt<R, e>;
            if constexpr (!is_ancestor_or_self<R>(E::index, J::index)) {
                for (int b = 0; b < E::nv; ++b) {
                    M[(E::v + b) * NV + col] = T(0);
                    M[col * NV + E::v + b] = T(0);
                }
            }
        });
    };

    // Thread scope walks each body's columns as soon as its composite inertia is complete. Group scope
    // leaves the walks, whose length grows with depth, to one pass over all bodies after the sweep, so that
    // the sweep's levels wait only for the composite inertias.
    backward_sweep<R>(scope, [&](auto i) {
        using J = JointAt<R, i>;
        Sym6<T> Ic = body_inertia<J, T>();
        for_each_child<R, i>([&](auto c) { add_to(Ic, st.Ic_up[c]); });
        if constexpr (!J::is_root) st.Ic_up[i] = joint_inertia_to_parent<J>(st.pose[i], Ic);
        if constexpr (J::nv > 1 || !S::cooperative) {
            static_assert(J::nv == 1 || J::is_root, "a free-flyer joint is the root of the tree");
            static_for<J::nv>([&](auto k) { columns(i, k, inertia_subspace<J>(Ic, k)); });
        } else {
            st.F[i] = inertia_subspace<J>(Ic, Index<0>{});
        }
    });
    if constexpr (S::cooperative) {
        for_each_body<R>(scope, [&](auto i) {
            if constexpr (JointAt<R, i>::nv == 1) columns(i, Index<0>{}, st.F[i]);
        });
    }
}

}  // namespace algorithms
}  // namespace grid
