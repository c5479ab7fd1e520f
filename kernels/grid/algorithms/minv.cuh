// The inverse of the joint-space inertia matrix, M(q)⁻¹, by the analytical algorithm (the articulated-body
// algorithm on unit efforts at qd = 0 and zero gravity, every column at once), without forming or
// factorising M:
//   backward, children first:  IA_i = I_i + Σ_c X_cᵀ·IA_c^A·X_c,  U_i = IA_i·S_i,  D_i = S_iᵀ·U_i,
//                              M⁻¹[i, i] = D_i⁻¹,  M⁻¹[i, j] = −D_i⁻¹·S_iᵀ·F_i[:, j] (j below i),
//                              F_p[:, j] = X_iᵀ·(F_i[:, j] + U_i·M⁻¹[i, j]) (j in i's subtree),
//                              IA_i^A = IA_i − U_i·D_i⁻¹·U_iᵀ
//   forward, parents first:    a = X_i·P_p[:, j],  M⁻¹[i, j] −= D_i⁻¹·U_iᵀ·a,  P_i[:, j] = a + S_i·M⁻¹[i, j]
// for the columns j from the body's first coordinate on; the lower triangle is the mirror of the upper, so
// M⁻¹ is exactly symmetric.
#pragma once

#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/schedule.cuh"
#include "grid/solve.cuh"

namespace grid {
namespace algorithms {

namespace minv_detail {

// f(j) for the columns j in [begin, end): unrolled on the GPU where UNROLL (one thread, or a limb, on an
// unrolled robot, whose bounds are then constants), so that the F-region and M⁻¹ are indexed by constants and
// can stay in registers.
template <bool UNROLL, class F>
GLASS_HD void for_columns(int begin, int end, F&& f) {
    if constexpr (UNROLL) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int j = begin; j < end; ++j) f(j);
    } else {
        for (int j = begin; j < end; ++j) f(j);
    }
}

// The column blocks F_i (backward) and P_i (forward) of a body with children. In depth-first joint order a
// subtree's columns are contiguous, so F_i needs the columns of i's descendants and P_i those after i's
// own, both starting at v_i + nv_i: one block per body, F dead before P is written. A leaf has none.
template <class R>
GLASS_HD constexpr int block_columns(int i) {
    return child_count<R>(i) > 0 ? R::NV - R::joint[i].v - kind_nv(R::joint[i].kind) : 0;
}

template <class R>
GLASS_HD constexpr int depth_max_columns(int d) {
    int n = 0;
    for (int i = 0; i < R::NB; ++i)
        if (joint_depth<R>(i) == d && block_columns<R>(i) > n) n = block_columns<R>(i);
    return n;
}

template <class R>
GLASS_HD constexpr int depth_total_columns(int d) {
    int n = 0;
    for (int i = 0; i < R::NB; ++i)
        if (joint_depth<R>(i) == d) n += block_columns<R>(i);
    return n;
}

// A block lives from the first write of a child (backward) or of the body (forward) to the last read by
// the body (backward) or a child (forward). Bodies in joint order (thread scope) keep only the blocks of
// the current body's ancestors alive, one per depth: a slot per depth. Bodies level by level (group scope)
// keep two adjacent levels alive: even levels in one region, odd levels after it.
template <class R>
GLASS_HD constexpr int stack_columns() {
    int n = 0;
    for (int d = 0; d < R::NB; ++d) n += depth_max_columns<R>(d);
    return n;
}

template <class R>
GLASS_HD constexpr int parity_region(int parity) {
    int n = 0;
    for (int d = parity; d < R::NB; d += 2)
        if (depth_total_columns<R>(d) > n) n = depth_total_columns<R>(d);
    return n;
}

// In a LimbScope a body with several children (each of which heads a limb of its own, limb_head) keeps its
// block in the caller's F-region, where those limbs write (backward) and read (forward) its columns; the
// blocks of the other bodies stay with their limb, in the stack layout. The crossing blocks each have a slot
// of their own there: limbs of one round run side by side, and a round spans several depths.
template <class R>
GLASS_HD constexpr bool block_crosses_limbs(int i) {
    return child_count<R>(i) > 1;
}

template <class R>
GLASS_HD constexpr int limb_block_offset(int i) {
    int off = 0;
    for (int b = 0; b < i; ++b)
        if (block_crosses_limbs<R>(b)) off += block_columns<R>(b);
    return off;
}

template <class R>
GLASS_HD constexpr int storage_columns() {
    const int stack = stack_columns<R>(), levels = parity_region<R>(0) + parity_region<R>(1);
    const int limbs = limb_block_offset<R>(R::NB);
    int n = stack > levels ? stack : levels;
    n = n > limbs ? n : limbs;
    return n > 0 ? n : 1;
}

template <class R, bool BY_LEVELS>
GLASS_HD constexpr int block_offset(int i) {
    const int d = joint_depth<R>(i);
    int off = 0;
    if (BY_LEVELS) {
        if (d % 2 == 1) off = parity_region<R>(0);
        for (int j = 0; j < i; ++j)
            if (joint_depth<R>(j) == d) off += block_columns<R>(j);
    } else {
        for (int e = 0; e < d; ++e) off += depth_max_columns<R>(e);
    }
    return off;
}

// Where column j of body i's block is: FP[column_base(i) + j].
template <class R, bool BY_LEVELS>
GLASS_HD constexpr int column_base(int i) {
    return block_offset<R, BY_LEVELS>(i) - R::joint[i].v - kind_nv(R::joint[i].kind);
}

// The same for a body index: computed at compile time for an unrolled robot; a rolled robot runs its bodies
// level by level in both scopes and carries the level layout in its tables (minv_column_base,
// MINV_STORAGE_COLUMNS).
template <class R, bool BY_LEVELS, int I>
GLASS_HD constexpr int column_base(Index<I>) {
    constexpr int base = column_base<R, BY_LEVELS>(I);
    return base;
}
template <class R, bool BY_LEVELS, int C>
GLASS_HD int column_base(RolledIndex<C> i) {
    return R::minv_column_base(i);
}

template <class R, int I>
GLASS_HD constexpr bool has_block(Index<I>) {
    constexpr bool block = block_columns<R>(I) > 0;
    return block;
}
template <class R, int C>
GLASS_HD bool has_block(RolledIndex<C> i) {
    return R::child_start(i + 1) > R::child_start(i);
}

// Where column j of body i's block is in a LimbScope: own[limb_column_base(i) + j] in the limb's own blocks
// (the stack layout), caller[limb_column_base(i) + j] where block_crosses_limbs(i).
template <class R, int I>
GLASS_HD constexpr int limb_column_base(Index<I>) {
    constexpr int base = block_crosses_limbs<R>(I)
                             ? limb_block_offset<R>(I) - R::joint[I].v - kind_nv(R::joint[I].kind)
                             : column_base<R, false>(I);
    return base;
}

// The column base of body i's parent's block.
template <class R, bool BY_LEVELS, int I>
GLASS_HD constexpr int parent_column_base(Index<I>) {
    constexpr int base = column_base<R, BY_LEVELS>(R::joint[I].parent);
    return base;
}
template <class R, bool BY_LEVELS, int C>
GLASS_HD int parent_column_base(RolledIndex<C> i) {
    return R::minv_column_base(R::parent(i));
}

template <class R>
GLASS_HD constexpr int state_columns() {
    if constexpr (rolled_v<R>) {
        return R::MINV_STORAGE_COLUMNS;
    } else {
        return storage_columns<R>();
    }
}

}  // namespace minv_detail

// The algorithm's per-body state...
template <class R, typename T>
struct MinvBodies {
    JointPose<T> pose[R::NB];
    Sym6<T> IA_up[R::NB];  // IA − U·D⁻¹·Uᵀ a body passes to its parent, in parent coordinates
    Spatial<T> U[R::NB];   // IA·S of a non-root joint (one degree of freedom)
    T dinv[R::NB];         // its (Sᵀ·IA·S)⁻¹
};

// ... and its F-region, the F, then P, column blocks (minv_detail::block_offset): most of the state, and what
// an inline caller short of shared memory moves to global memory first (minv_inner's F_IN_SMEM).
template <class R>
constexpr int minv_f_region_columns() {
    return minv_detail::state_columns<R>();
}

template <class R, typename T>
struct MinvState : MinvBodies<R, T> {
    Spatial<T> FP[minv_f_region_columns<R>()];
};

// Minv (NV × NV, row-major, exactly symmetric) from q (NQ), the F-region at FP (minv_f_region_columns<R>()
// entries, group-visible). A free-flyer whose articulated inertia is not positive definite yields NaN.
template <class R, typename T, class S>
GLASS_HD void minv(const S& scope, T* Minv, const T* q, MinvBodies<R, T>& st, Spatial<T>* caller_FP) {
    constexpr int NV = R::NV;
    constexpr bool limbs = is_limb_scope_v<S>;
    [[maybe_unused]] constexpr bool BY_LEVELS = (S::cooperative && !limbs) || rolled_v<R>;
    // One thread keeps each array an object of its own (ScopeArray), a limb all but what other limbs read.
    constexpr bool own = own_arrays<R, S>, unroll = own || limbs;
    auto pose = scope_array<R, S>(st.pose);
    auto IA_up = scope_array<R, S>(st.IA_up);
    auto Ub = scope_array<R, S>(st.U);
    auto dinvb = scope_array<R, S>(st.dinv);
    [[maybe_unused]] Spatial<T> own_FP[unroll ? minv_detail::state_columns<R>() : 1];
    Spatial<T>* const FP = own ? own_FP : caller_FP;
    // Column j of body i's block, and of its parent's: FP at column_base, in a LimbScope the limb's own or the
    // caller's (limb_column_base).
    const auto block = [&](auto i, int j) -> Spatial<T>& {
        if constexpr (limbs) {
            const int at = minv_detail::limb_column_base<R>(i) + j;
            return minv_detail::block_crosses_limbs<R>(index_of<decltype(i)>) ? caller_FP[at] : own_FP[at];
        } else {
            return FP[minv_detail::column_base<R, BY_LEVELS>(i) + j];
        }
    };
    const auto parent_block = [&](auto i, int j) -> Spatial<T>& {
        if constexpr (limbs) {
            return block(parent_of<R>(i), j);
        } else {
            return FP[minv_detail::parent_column_base<R, BY_LEVELS>(i) + j];
        }
    };

    backward_sweep<R>(scope, [&](auto i) {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        const int v = jt.v, end = jt.v + subtree_nv_of<R>(i);
        if constexpr (!J::is_root) pose[i] = joint_pose(jt, q + jt.q);
        Sym6<T> IA = body_inertia<T>(jt);
        for_each_child<R>(i, [&](auto c) { add_to(IA, IA_up[c]); });

        if constexpr (J::kind == JOINT_FREE_FLYER) {
            static_assert(J::is_root, "a free-flyer joint is the root of the tree");
            // S is a permutation: D⁻¹ = (Sᵀ·IA·S)⁻¹ = Sᵀ·IA⁻¹·S and D⁻¹·Sᵀ·F = Sᵀ·IA⁻¹·F.
            const Cholesky6<T> L = cholesky(IA);
            static_for<6>([&](auto b) {
                T e[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
                e[b] = T(1);
                T x[6];
                subspace_project(jt, cholesky_solve(L, subspace_apply(jt, e)), x);
                // the upper triangle of D⁻¹, mirrored
                for (int a = 0; a <= int(b); ++a) {
                    Minv[(v + a) * NV + v + b] = x[a];
                    Minv[(v + b) * NV + v + a] = x[a];
                }
            });
            minv_detail::for_columns<unroll>(v + 6, end, [&](int j) {
                T x[6];
                subspace_project(jt, cholesky_solve(L, block(i, j)), x);
                for (int a = 0; a < 6; ++a) Minv[(v + a) * NV + j] = -x[a];
            });
        } else {
            const Spatial<T> U = inertia_subspace(jt, IA, Index<0>{});
            const T dinv = T(1) / subspace_project1(jt, U);
            Minv[v * NV + v] = dinv;
            if constexpr (J::is_root) {
                minv_detail::for_columns<unroll>(v + 1, end, [&](int j) {
                    Minv[v * NV + j] = -dinv * subspace_project1(jt, block(i, j));
                });
            } else {
                // The parent's F over this subtree's columns (F_i is zero on i's own column); the children
                // of one parent fill disjoint columns.
                parent_block(i, v) = joint_force_to_parent(jt, pose[i], dinv * U);
                minv_detail::for_columns<unroll>(v + 1, end, [&](int j) {
                    const Spatial<T> F = block(i, j);
                    const T x = -dinv * subspace_project1(jt, F);
                    Minv[v * NV + j] = x;
                    parent_block(i, j) = joint_force_to_parent(jt, pose[i], F + x * U);
                });
                Ub[i] = U;
                dinvb[i] = dinv;
                IA_up[i] = joint_inertia_to_parent(jt, pose[i], rank1_remove(IA, U, dinv));
            }
        }
    });

    // Row i from column v_i on: M⁻¹[i, j] as the backward sweep left it below i (zero past i's subtree),
    // less the parent's contribution; each value is mirrored into column i.
    forward_sweep<R>(scope, [&](auto i) {
        const auto jt = joint<R>(i);
        using J = decltype(jt);
        const int v = jt.v, end = jt.v + subtree_nv_of<R>(i);
        const bool has_block = minv_detail::has_block<R>(i);

        if constexpr (J::kind == JOINT_FREE_FLYER) {
            // A root: its rows are final.
            minv_detail::for_columns<unroll>(v + 6, NV, [&](int j) {
                T x[6];
                for (int a = 0; a < 6; ++a) {
                    if (j < end) {
                        x[a] = Minv[(v + a) * NV + j];
                    } else {
                        x[a] = T(0);
                        Minv[(v + a) * NV + j] = T(0);
                    }
                    Minv[j * NV + v + a] = x[a];
                }
                if (has_block) block(i, j) = subspace_apply(jt, x);
            });
        } else {
            const auto column = [&](int j, T x) {
                if constexpr (J::is_root) {
                    Minv[v * NV + j] = x;
                    if (j > v) {
                        Minv[j * NV + v] = x;
                        if (has_block) block(i, j) = subspace_apply(jt, &x);
                    }
                } else {
                    const Spatial<T> a = joint_motion_to_body(jt, pose[i], parent_block(i, j));
                    x -= dinvb[i] * dot(Ub[i], a);
                    Minv[v * NV + j] = x;
                    if (j > v) {
                        Minv[j * NV + v] = x;
                        if (has_block) block(i, j) = subspace_add(jt, a, &x);
                    }
                }
            };
            minv_detail::for_columns<unroll>(v, end, [&](int j) { column(j, Minv[v * NV + j]); });
            minv_detail::for_columns<unroll>(end, NV, [&](int j) { column(j, T(0)); });
        }
    });
}

// The same with the whole state in one place.
template <class R, typename T, class S>
GLASS_HD void minv(const S& scope, T* Minv, const T* q, MinvState<R, T>& st) {
    minv<R>(scope, Minv, q, static_cast<MinvBodies<R, T>&>(st), st.FP);
}

}  // namespace algorithms
}  // namespace grid
