// An experiment (bench/results/launch/2026-12-06-h100-aba-spread.md), not part of the generated kernels:
// forward dynamics by the articulated-body algorithm with each body's spatial arithmetic spread over the
// threads of a block, for one sample at a time (batch 1).
//
// grid/algorithms/aba.cuh gives each body to one thread and compiles its constants into its code, so that at
// batch 1 a sample's time is one thread streaming that code. Here the bodies of a BFS level and the entries
// of their 6×6 products are work items dealt over the block, read from the robot's run-time tables (the same
// small code for every body), with a barrier between dependent steps: per level, one step of the velocity
// sweep, two of the inertia sweep (the children's Xᵀ·Ia·X summed; U = IA·S with Ia·X, the joint removed) and
// one of the acceleration sweep (aba_spread); or each chain of the tree on one warp with block barriers only
// where chains meet (aba_segments). The tables and inputs are copied to shared memory first. On the host the
// block is one thread and the loops run in order.
//
// R is the robot's run-time tables (probe.cu's RobotTables): NB, NV, NLEVELS and the accessors parent, kind,
// q_index, v_index, level_start, level_order, child_start, children, axis<T>, placement_E<T>, placement_r<T>
// and inertia<T>. Conventions as in grid/body.cuh: motions [ω; v], X = [[E, 0], [−E·[r]ₓ, E]].
// GRID_SPREAD_MARK() follows every barrier (probe.cu's SPREAD_CLOCK build records clock64 there).
#pragma once

#include "grid/body.cuh"
#include "grid/model.cuh"
#include "grid/solve.cuh"

#ifndef GRID_SPREAD_MARK
#define GRID_SPREAD_MARK_BEGIN()
#define GRID_SPREAD_MARK()
#endif

namespace grid {
namespace algorithms {

template <class R, typename T>
struct AbaSpreadState {
    T X[R::NB][36];      // parent-to-body motion transform at q, dense and column-major
    T S[R::NB][6];       // motion subspace column of a one-degree-of-freedom joint
    T v[R::NB][6];       // body velocities, then body accelerations
    T c[R::NB][6];       // velocity-product accelerations v × S·qd
    T p[R::NB][6];       // bias forces v ×* I·v, then with the children's articulated bias forces added
    T IA[R::NB][36];     // articulated inertia, dense
    T U[R::NB][6];       // IA·S
    T pa[R::NB][6];      // articulated bias force with the joint removed, body coordinates
    T IaX[R::NB][36];    // (IA − U·Uᵀ/D)·X, which the parent turns into Xᵀ·(IA − U·Uᵀ/D)·X; first E and r
    T dinv[R::NB];       // 1 / (Sᵀ·IA·S)
    T u[R::NB];          // τ − Sᵀ·p
    T inertia[R::NB][10];
    T qd[R::NV], tau[R::NV];
    // The tables every step reads, copied once: a table read from global memory costs an L2 round trip the
    // first time each step touches it, several in a row where one index leads to the next.
    int parent[R::NB], kind[R::NB], v_index[R::NB], level_order[R::NB], child_start[R::NB + 1], children[R::NB];
    int level_start[R::NLEVELS + 1];
};

namespace spread_detail {

// Entry (i, j) of body b's rigid-body inertia [[I_O, [h]ₓ], [[h]ₓᵀ, m·1]] from its ten parameters.
template <typename T>
GLASS_HD T body_inertia_entry(const T* in, int i, int j) {
    if (i < 3 && j < 3) return in[4 + Sym3<T>::index(i, j)];
    if (i >= 3 && j >= 3) return i == j ? in[0] : T(0);
    // [h]ₓ(a, k): above the diagonal (i, j) = (a, 3 + k), below it (i, j) = (3 + k, a), the transpose.
    const int a = i < 3 ? i : j, k = i < 3 ? j - 3 : i - 3;
    const T* h = in + 1;
    if (a == k) return T(0);
    const int other = 3 - a - k;
    const T sign = (k == (a + 1) % 3) ? T(-1) : T(1);  // [h]ₓ(0, 1) = −h₂, [h]ₓ(1, 0) = h₂
    return sign * h[other];
}

// The six work items of a level's velocity-coordinate steps (k < 6 per body), or the 21 upper-triangle
// entries of a symmetric 6×6: row and column of entry e.
GLASS_HD void upper_entry(int e, int& i, int& j) {
    i = 0;
    while (e >= 6 - i) {
        e -= 6 - i;
        ++i;
    }
    j = i + e;
}

// X·m for a dense column-major 6×6.
template <typename T>
GLASS_HD T row_dot(const T* X, int k, const T* m) {
    T s = X[k] * m[0];
    for (int j = 1; j < 6; ++j) s += X[k + 6 * j] * m[j];
    return s;
}

// Xᵀ·m, entry k: column k of X against m.
template <typename T>
GLASS_HD T column_dot(const T* X, int k, const T* m) {
    T s = X[6 * k] * m[0];
    for (int j = 1; j < 6; ++j) s += X[j + 6 * k] * m[j];
    return s;
}

// S·x of joint b as a spatial motion: [a·x; 0] revolute, [0; a·x] prismatic, a free-flyer's [v; ω] ↦ [ω; v].
template <class R, typename T>
GLASS_HD void subspace_motion(int b, const T* x, T* m) {
    const int kind = R::kind(b);
    if (kind == JOINT_FREE_FLYER) {
        for (int k = 0; k < 3; ++k) {
            m[k] = x[3 + k];
            m[3 + k] = x[k];
        }
        return;
    }
    const T* a = R::template axis<T>(b);
    for (int k = 0; k < 3; ++k) {
        m[k] = kind == JOINT_REVOLUTE ? a[k] * x[0] : T(0);
        m[3 + k] = kind == JOINT_REVOLUTE ? T(0) : a[k] * x[0];
    }
}

// The same from the joint's kind and its subspace column S (one degree of freedom).
template <typename T>
GLASS_HD void subspace_motion(int kind, const T* S, const T* x, T* m) {
    if (kind == JOINT_FREE_FLYER) {
        for (int k = 0; k < 3; ++k) {
            m[k] = x[3 + k];
            m[3 + k] = x[k];
        }
        return;
    }
    for (int k = 0; k < 6; ++k) m[k] = S[k] * x[0];
}

// (E, r) of body b's transform X_J(q)·X_P: E = E_J·E_P, r = r_P + E_Pᵀ·t_J (t_J: a prismatic joint's a·d, a
// free-flyer's position), E column-major.
template <class R, typename T>
GLASS_HD void body_transform(int b, const T* q, T* E, T* r) {
    const int kind = R::kind(b);
    const T* Ep = R::template placement_E<T>(b);
    const T* rp = R::template placement_r<T>(b);
    const T* qb = q + R::q_index(b);
    T Ej[9];
    T t[3] = {T(0), T(0), T(0)};
    if (kind == JOINT_REVOLUTE) {
        // E_J = R(a, q)ᵀ = c·1 + (1 − c)·a·aᵀ − s·[a]ₓ
        const T* a = R::template axis<T>(b);
        T s, c;
        sin_cos(qb[0], &s, &c);
        const T omc = T(1) - c;
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) Ej[i + 3 * j] = omc * a[i] * a[j] + (i == j ? c : T(0));
        Ej[0 + 3 * 1] += s * a[2];
        Ej[1 + 3 * 0] -= s * a[2];
        Ej[1 + 3 * 2] += s * a[0];
        Ej[2 + 3 * 1] -= s * a[0];
        Ej[2 + 3 * 0] += s * a[1];
        Ej[0 + 3 * 2] -= s * a[1];
    } else if (kind == JOINT_PRISMATIC) {
        const T* a = R::template axis<T>(b);
        for (int k = 0; k < 9; ++k) Ej[k] = (k % 4 == 0) ? T(1) : T(0);
        for (int k = 0; k < 3; ++k) t[k] = a[k] * qb[0];
    } else {
        T unit[4], rot[9];
        glass::lie_detail::quat_normalize_core<T, glass::QuatLayout::xyzw, false>(qb + 3, unit);
        glass::lie_detail::quat_to_rot_core<T, glass::QuatLayout::xyzw>(unit, rot);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) Ej[i + 3 * j] = rot[j + 3 * i];
        for (int k = 0; k < 3; ++k) t[k] = qb[k];
    }
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
            E[i + 3 * j] = Ej[i] * Ep[3 * j] + Ej[i + 3] * Ep[1 + 3 * j] + Ej[i + 6] * Ep[2 + 3 * j];
    for (int k = 0; k < 3; ++k) r[k] = rp[k] + Ep[3 * k] * t[0] + Ep[1 + 3 * k] * t[1] + Ep[2 + 3 * k] * t[2];
}

// Entry (i, j) of X = [[E, 0], [−E·[r]ₓ, E]].
template <typename T>
GLASS_HD T transform_entry(const T* E, const T* r, int i, int j) {
    if (i < 3) return j < 3 ? E[i + 3 * j] : T(0);
    if (j >= 3) return E[(i - 3) + 3 * (j - 3)];
    // −(E·[r]ₓ)(i − 3, j), with [r]ₓ column-major
    const int a = i - 3;
    const T rx[9] = {T(0), r[2], -r[1], -r[2], T(0), r[0], r[1], -r[0], T(0)};
    return -(E[a] * rx[3 * j] + E[a + 3] * rx[1 + 3 * j] + E[a + 6] * rx[2 + 3 * j]);
}


// The work of one step for one body and one item of it; each step's items are independent, and a step reads
// what earlier steps wrote (after a barrier over the threads that wrote it).

// Transforms and motion subspaces of every body, and the copies of the tables and inputs: thread `rank` of
// `size`. Then (after a barrier) transform_items.
template <class R, typename T>
GLASS_HD void setup_items(AbaSpreadState<R, T>& st, const T* q, const T* qd, const T* tau, uint32_t rank,
                          uint32_t size) {
    for (uint32_t b = rank; b < uint32_t(R::NB); b += size) {
        body_transform<R>(int(b), q, &st.IaX[b][0], &st.IaX[b][9]);
        const T one = T(1);
        if (R::kind(int(b)) != JOINT_FREE_FLYER) subspace_motion<R>(int(b), &one, st.S[b]);
    }
    for (uint32_t k = rank; k < uint32_t(R::NB * 10); k += size) st.inertia[k / 10][k % 10] = R::template inertia<T>(0)[k];
    for (uint32_t k = rank; k < uint32_t(R::NV); k += size) {
        st.qd[k] = qd[k];
        st.tau[k] = tau[k];
    }
    for (uint32_t k = rank; k < uint32_t(R::NB); k += size) {
        st.parent[k] = R::parent(int(k));
        st.kind[k] = R::kind(int(k));
        st.v_index[k] = R::v_index(int(k));
        st.level_order[k] = R::level_order(int(k));
        st.child_start[k] = R::child_start(int(k));
        st.children[k] = k < uint32_t(R::child_start(R::NB)) ? R::children(int(k)) : 0;
    }
    if (rank == 0) st.child_start[R::NB] = R::child_start(R::NB);
    for (uint32_t k = rank; k <= uint32_t(R::NLEVELS); k += size) st.level_start[k] = R::level_start(int(k));
}

// Entry e (< 36) of body b's X from its E and r.
template <class R, typename T>
GLASS_HD void transform_item(AbaSpreadState<R, T>& st, int b, int e) {
    st.X[b][e] = transform_entry(&st.IaX[b][0], &st.IaX[b][9], e % 6, e / 6);
}

// v = X·v_parent + S·qd, entry k (< 6).
template <class R, typename T>
GLASS_HD void velocity_item(AbaSpreadState<R, T>& st, int b, int k) {
    T vj[6];
    subspace_motion(st.kind[b], st.S[b], st.qd + st.v_index[b], vj);
    const int parent = st.parent[b];
    st.v[b][k] = parent < 0 ? vj[k] : row_dot(st.X[b], k, st.v[parent]) + vj[k];
}

// c = v × vj and p = v ×* I·v, entry k (< 6).
template <class R, typename T>
GLASS_HD void bias_item(AbaSpreadState<R, T>& st, int b, int k) {
    const T* v = st.v[b];
    T vj[6];
    subspace_motion(st.kind[b], st.S[b], st.qd + st.v_index[b], vj);
    const T* in = st.inertia[b];
    const T m = in[0];
    const T h[3] = {in[1], in[2], in[3]};
    // n = I_O·ω + h × v, f = m·v − h × ω
    T n[3], f[3];
    for (int a = 0; a < 3; ++a) {
        n[a] = in[4 + Sym3<T>::index(a, 0)] * v[0] + in[4 + Sym3<T>::index(a, 1)] * v[1] +
               in[4 + Sym3<T>::index(a, 2)] * v[2];
    }
    n[0] += h[1] * v[5] - h[2] * v[4];
    n[1] += h[2] * v[3] - h[0] * v[5];
    n[2] += h[0] * v[4] - h[1] * v[3];
    f[0] = m * v[3] - (h[1] * v[2] - h[2] * v[1]);
    f[1] = m * v[4] - (h[2] * v[0] - h[0] * v[2]);
    f[2] = m * v[5] - (h[0] * v[1] - h[1] * v[0]);
    const int a = k % 3, a1 = (a + 1) % 3, a2 = (a + 2) % 3;
    if (k < 3) {
        st.c[b][k] = v[a1] * vj[a2] - v[a2] * vj[a1];
        st.p[b][k] = (v[a1] * n[a2] - v[a2] * n[a1]) + (v[3 + a1] * f[a2] - v[3 + a2] * f[a1]);
    } else {
        st.c[b][k] = (v[a1] * vj[3 + a2] - v[a2] * vj[3 + a1]) + (v[3 + a1] * vj[a2] - v[3 + a2] * vj[a1]);
        st.p[b][k] = v[a1] * f[a2] - v[a2] * f[a1];
    }
}

// IA = I + Σ children's Xᵀ·(Ia·X) (entries e < 21 of the upper triangle, mirrored), p = p + Σ children's
// Xᵀ·pa (e − 21 < 6).
template <class R, typename T>
GLASS_HD void inertia_sum_item(AbaSpreadState<R, T>& st, int b, int e) {
    const int first = st.child_start[b], end = st.child_start[b + 1];
    if (e < 21) {
        int i, j;
        upper_entry(e, i, j);
        T s = body_inertia_entry(st.inertia[b], i, j);
        for (int k = first; k < end; ++k) {
            const int ch = st.children[k];
            s += column_dot(st.X[ch], i, &st.IaX[ch][6 * j]);
        }
        st.IA[b][i + 6 * j] = s;
        st.IA[b][j + 6 * i] = s;
    } else {
        T s = st.p[b][e - 21];
        for (int k = first; k < end; ++k) {
            const int ch = st.children[k];
            s += column_dot(st.X[ch], e - 21, st.pa[ch]);
        }
        st.p[b][e - 21] = s;
    }
}

// Entry e of joint_removed_item's step from U = IA·S, ui = U_i/D and u = τ − Sᵀ·p (i the entry's row).
template <class R, typename T>
GLASS_HD void joint_removed_entry(AbaSpreadState<R, T>& st, int b, int e, const T (&U)[6], T ui, T u) {
    const T* IA = st.IA[b];
    if (e < 36) {
        const int i = e % 6, j = e / 6;
        T s = T(0);
        for (int k = 0; k < 6; ++k) s += (IA[i + 6 * k] - ui * U[k]) * st.X[b][k + 6 * j];
        st.IaX[b][e] = s;
    } else {
        const int i = e - 36;
        T s = st.p[b][i] + ui * u;
        for (int k = 0; k < 6; ++k) s += (IA[i + 6 * k] - ui * U[k]) * st.c[b][k];
        st.pa[b][i] = s;
    }
}

// U = IA·S (by every item: a step of its own costs more than the repeated products), D, u, and for a body
// with a parent (IA − U·Uᵀ/D)·X (e < 36) and pa = p + (IA − U·Uᵀ/D)·c + U·u/D (e − 36 < 6); a root has one
// item.
template <class R, typename T>
GLASS_HD void joint_removed_item(AbaSpreadState<R, T>& st, int b, int e) {
    const T* Sb = st.S[b];
    T U[6];
    for (int k = 0; k < 6; ++k) U[k] = row_dot(st.IA[b], k, Sb);
    if (e == 0)
        for (int k = 0; k < 6; ++k) st.U[b][k] = U[k];
    T D = T(0), Sp = T(0);
    for (int k = 0; k < 6; ++k) {
        D += Sb[k] * U[k];
        Sp += Sb[k] * st.p[b][k];
    }
    const T dinv = T(1) / D, u = st.tau[st.v_index[b]] - Sp;
    if (e == 0) {
        st.dinv[b] = dinv;
        st.u[b] = u;
    }
    if (st.parent[b] < 0) return;
    joint_removed_entry(st, b, e, U, U[e < 36 ? e % 6 : e - 36] * dinv, u);
}

// A free-flyer root's acceleration: x = IA⁻¹·(S·τ − p − IA·a'), qdd = Sᵀ·x, a = a' + x (one thread).
template <class R, typename T>
GLASS_HD void free_root_acceleration(AbaSpreadState<R, T>& st, int b, T* qdd, const T* a0) {
    T a[6], Stau[6];
    for (int k = 0; k < 6; ++k) a[k] = row_dot(st.X[b], k, a0) + st.c[b][k];
    subspace_motion(JOINT_FREE_FLYER, st.S[b], st.tau + st.v_index[b], Stau);
    Sym6<T> IA;
    Spatial<T> rhs;
    for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
            IA.A(i, j) = st.IA[b][i + 6 * j];
            IA.C(i, j) = st.IA[b][(3 + i) + 6 * (3 + j)];
        }
        for (int j = 0; j < 3; ++j) IA.B(i, j) = st.IA[b][i + 6 * (3 + j)];
        rhs.ang[i] = Stau[i] - st.p[b][i] - row_dot(st.IA[b], i, a);
        rhs.lin[i] = Stau[3 + i] - st.p[b][3 + i] - row_dot(st.IA[b], 3 + i, a);
    }
    const Spatial<T> x = solve_spd(IA, rhs);
    const int v = st.v_index[b];
    for (int k = 0; k < 3; ++k) {
        qdd[v + k] = x.lin[k];
        qdd[v + 3 + k] = x.ang[k];
        st.v[b][k] = a[k] + x.ang[k];
        st.v[b][3 + k] = a[3 + k] + x.lin[k];
    }
}

// a = X·a_parent + c, qdd = (u − Uᵀ·a)/D, a += S·qdd: entry k (< 6) of a, and qdd by item 0. a0 is the
// root's parent acceleration (−gravity).
template <class R, typename T>
GLASS_HD void acceleration_item(AbaSpreadState<R, T>& st, int b, int k, T* qdd, const T* a0) {
    const int parent = st.parent[b];
    const T* ap = parent < 0 ? a0 : st.v[parent];
    T a[6];
    for (int i = 0; i < 6; ++i) a[i] = row_dot(st.X[b], i, ap) + st.c[b][i];
    T Ua = T(0);
    for (int i = 0; i < 6; ++i) Ua += st.U[b][i] * a[i];
    const T x = st.dinv[b] * (st.u[b] - Ua);
    if (k == 0) qdd[st.v_index[b]] = x;
    st.v[b][k] = a[k] + st.S[b][k] * x;
}


#if defined(__CUDA_ARCH__)
// joint_removed_item's step for one body by a whole warp (GRID_SPREAD_SHUFFLES): lanes 0-5 form U = IA·S and
// the warp shares it by shuffles instead of every item forming it; lane l takes entries l and l + 32.
template <class R, typename T>
__device__ void joint_removed_warp(AbaSpreadState<R, T>& st, int b, uint32_t lane) {
    const T* Sb = st.S[b];
    const T mine = lane < 6 ? row_dot(st.IA[b], int(lane), Sb) : T(0);
    T U[6];
    for (int k = 0; k < 6; ++k) U[k] = __shfl_sync(0xffffffffu, mine, k);
    T D = T(0), Sp = T(0);
    for (int k = 0; k < 6; ++k) {
        D += Sb[k] * U[k];
        Sp += Sb[k] * st.p[b][k];
    }
    const T dinv = T(1) / D, u = st.tau[st.v_index[b]] - Sp;
    if (lane < 6) st.U[b][lane] = mine;
    if (lane == 0) {
        st.dinv[b] = dinv;
        st.u[b] = u;
    }
    if (st.parent[b] < 0) return;
    const int e0 = int(lane), e1 = int(lane) + 32;
    const int i0 = e0 % 6, i1 = e1 < 36 ? e1 % 6 : (e1 < 42 ? e1 - 36 : 0);
    const T u0 = __shfl_sync(0xffffffffu, mine, i0) * dinv, u1 = __shfl_sync(0xffffffffu, mine, i1) * dinv;
    joint_removed_entry(st, b, e0, U, u0, u);
    if (e1 < 42) joint_removed_entry(st, b, e1, U, u1, u);
}

// acceleration_item's step for one body by a whole warp: lanes 0-5 form a = X·a_parent + c and reduce Uᵀ·a
// by shuffles.
template <class R, typename T>
__device__ void acceleration_warp(AbaSpreadState<R, T>& st, int b, uint32_t lane, T* qdd, const T* a0) {
    const int parent = st.parent[b];
    const T* ap = parent < 0 ? a0 : st.v[parent];
    const T a = lane < 6 ? row_dot(st.X[b], int(lane), ap) + st.c[b][lane] : T(0);
    T Ua = lane < 6 ? st.U[b][lane] * a : T(0);
    for (int offset = 4; offset > 0; offset /= 2) Ua += __shfl_xor_sync(0xffffffffu, Ua, offset);
    const T x = st.dinv[b] * (st.u[b] - Ua);
    if (lane == 0) qdd[st.v_index[b]] = x;
    if (lane < 6) st.v[b][lane] = a + st.S[b][lane] * x;
}
#endif

}  // namespace spread_detail

// qdd (NV) from q (NQ), qd (NV), tau (NV), as aba() (grid/algorithms/aba.cuh) computes them, level by level:
// every thread of the scope calls it, the state is visible to all of them.
template <class R, typename T, class S>
GLASS_HD void aba_spread(const S& scope, T* qdd, const T* q, const T* qd, const T* tau, AbaSpreadState<R, T>& st,
                         Vec3<T> gravity) {
    using namespace spread_detail;
    const uint32_t rank = scope.rank(), size = scope.size();
    // The bodies of level l with W work items each: calls f(body, item) for this thread's items.
    const auto level_items = [&](int l, int W, auto&& f) {
        const int begin = st.level_start[l], n = (st.level_start[l + 1] - begin) * W;
        for (uint32_t k = rank; k < uint32_t(n); k += size) f(st.level_order[begin + int(k) / W], int(k) % W);
    };
    const auto all_items = [&](int W, auto&& f) {
        for (uint32_t k = rank; k < uint32_t(R::NB * W); k += size) f(int(k) / W, int(k) % W);
    };
    const bool free_root = R::kind(R::level_order(0)) == JOINT_FREE_FLYER;
    GRID_SPREAD_MARK_BEGIN();

    setup_items(st, q, qd, tau, rank, size);
    scope.sync();
    GRID_SPREAD_MARK();
    all_items(36, [&](int b, int e) { transform_item(st, b, e); });
    scope.sync();
    GRID_SPREAD_MARK();

    // Velocities, parents first.
    for (int l = 0; l < R::NLEVELS; ++l) {
        level_items(l, 6, [&](int b, int k) { velocity_item(st, b, k); });
        scope.sync();
        GRID_SPREAD_MARK();
    }
    all_items(6, [&](int b, int k) { bias_item(st, b, k); });
    scope.sync();
    GRID_SPREAD_MARK();

    // Articulated inertias, children first; a free-flyer root keeps IA and p for the acceleration sweep.
    for (int l = R::NLEVELS - 1; l >= 0; --l) {
        level_items(l, 27, [&](int b, int e) { inertia_sum_item(st, b, e); });
        scope.sync();
        GRID_SPREAD_MARK();
        if (l == 0 && free_root) break;
        level_items(l, l == 0 ? 1 : 42, [&](int b, int e) { joint_removed_item(st, b, e); });
        scope.sync();
        GRID_SPREAD_MARK();
    }

    // Accelerations, parents first.
    const T a0[6] = {T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z};
    for (int l = 0; l < R::NLEVELS; ++l) {
        if (l == 0 && free_root) {
            if (rank == 0) free_root_acceleration(st, st.level_order[0], qdd, a0);
        } else {
            level_items(l, 6, [&](int b, int k) { acceleration_item(st, b, k, qdd, a0); });
        }
        scope.sync();
        GRID_SPREAD_MARK();
    }
}

// The tree cut into segments for aba_segments: a segment is a chain of bodies each of which but the last has
// exactly one child, headed by a root or by a child of a body with several children. Each segment is run by
// one warp, its bodies one after another with warp barriers only; segments wait for each other by a block
// barrier between rounds. Backward round r holds the segments whose child segments are all in rounds before
// r, forward round r those with r segments above them.
template <int NB>
struct SegmentSchedule {
    int segment_start[NB + 1];  // the bodies of segment s: body[segment_start[s] .. segment_start[s + 1]), top down
    int body[NB];
    int backward_rounds, backward_start[NB + 1], backward[NB];  // the segments of backward round r
    int forward_rounds, forward_start[NB + 1], forward[NB];
};

// The schedule of the tree given by its parents (depth-first order, parents first), host or device.
template <int NB>
GLASS_HD SegmentSchedule<NB> make_segment_schedule(const int* parent) {
    SegmentSchedule<NB> s{};
    int children[NB] = {}, only_child[NB] = {}, segment_of[NB] = {};
    for (int b = 0; b < NB; ++b)
        if (parent[b] >= 0) {
            ++children[parent[b]];
            only_child[parent[b]] = b;
        }
    int n = 0, count = 0;
    for (int b = 0; b < NB; ++b) {
        if (parent[b] >= 0 && children[parent[b]] == 1) continue;  // inside a segment
        s.segment_start[n] = count;
        for (int c = b;; c = only_child[c]) {
            s.body[count++] = c;
            segment_of[c] = n;
            if (children[c] != 1) break;
        }
        ++n;
    }
    s.segment_start[n] = count;
    // Rounds: forward by the segments above, backward by the longest path to a leaf segment (segments are
    // numbered parents first, so one pass each way settles them).
    int up[NB] = {}, down[NB] = {};
    for (int g = 0; g < n; ++g) {
        const int top = parent[s.body[s.segment_start[g]]];
        down[g] = top < 0 ? 0 : down[segment_of[top]] + 1;
    }
    for (int g = n - 1; g >= 0; --g) {
        const int top = parent[s.body[s.segment_start[g]]];
        if (top >= 0 && up[segment_of[top]] < up[g] + 1) up[segment_of[top]] = up[g] + 1;
    }
    const auto order = [&](const int* round, int& rounds, int* start, int* list) {
        rounds = 0;
        for (int g = 0; g < n; ++g) rounds = round[g] + 1 > rounds ? round[g] + 1 : rounds;
        int k = 0;
        for (int r = 0; r < rounds; ++r) {
            start[r] = k;
            for (int g = 0; g < n; ++g)
                if (round[g] == r) list[k++] = g;
        }
        start[rounds] = k;
    };
    order(up, s.backward_rounds, s.backward_start, s.backward);
    order(down, s.forward_rounds, s.forward_start, s.forward);
    return s;
}

// The same result as aba_spread, each segment of the tree on one warp (sched: make_segment_schedule of the
// robot, in memory the scope can read). Blocks of whole warps; on the host one thread runs every segment.
// GRID_SPREAD_SHUFFLES: a body's U and Uᵀ·a formed by six lanes and shared by warp shuffles.
template <class R, typename T, class S>
GLASS_HD void aba_segments(const S& scope, T* qdd, const T* q, const T* qd, const T* tau, AbaSpreadState<R, T>& st,
                           const SegmentSchedule<R::NB>& sched, Vec3<T> gravity) {
    using namespace spread_detail;
    const uint32_t rank = scope.rank(), size = scope.size();
    const uint32_t lanes = glass::warp_size(), lane = rank % lanes, warp = rank / lanes;
    const uint32_t warps = size / lanes > 0 ? size / lanes : 1;
    // Calls body(b) for the bodies of this warp's segments in round r (list: backward or forward rounds),
    // top down or (reverse) bottom up, with a warp barrier after each.
    const auto segments = [&](const int* start, const int* list, int r, bool reverse, auto&& body) {
        for (int k = start[r] + int(warp); k < start[r + 1]; k += int(warps)) {
            const int g = list[k], first = sched.segment_start[g], last = sched.segment_start[g + 1];
            for (int n = 0; n < last - first; ++n) {
                body(sched.body[reverse ? last - 1 - n : first + n]);
                glass::warp_sync();
            }
        }
    };
    // The rounds of the forward or the backward schedule, a block barrier after each.
    GRID_SPREAD_MARK_BEGIN();
    const auto rounds = [&](bool backward, auto&& body) {
        const int n = backward ? sched.backward_rounds : sched.forward_rounds;
        const int* start = backward ? sched.backward_start : sched.forward_start;
        const int* list = backward ? sched.backward : sched.forward;
        for (int r = 0; r < n; ++r) {
            segments(start, list, r, backward, body);
            scope.sync();
            GRID_SPREAD_MARK();
        }
    };
    const auto items = [&](int W, auto&& f) {
        for (uint32_t e = lane; e < uint32_t(W); e += lanes) f(int(e));
    };
    const bool free_root = R::kind(0) == JOINT_FREE_FLYER;

    setup_items(st, q, qd, tau, rank, size);
    scope.sync();
    GRID_SPREAD_MARK();
    for (uint32_t k = rank; k < uint32_t(R::NB * 36); k += size) transform_item(st, int(k / 36), int(k % 36));
    scope.sync();
    GRID_SPREAD_MARK();

    rounds(false, [&](int b) { items(6, [&](int k) { velocity_item(st, b, k); }); });
    for (uint32_t k = rank; k < uint32_t(R::NB * 6); k += size) bias_item(st, int(k / 6), int(k % 6));
    scope.sync();
    GRID_SPREAD_MARK();

    rounds(true, [&](int b) {
        items(27, [&](int e) { inertia_sum_item(st, b, e); });
        glass::warp_sync();
        if (b == 0 && free_root) return;
#if defined(__CUDA_ARCH__) && defined(GRID_SPREAD_SHUFFLES)
        joint_removed_warp(st, b, lane);
#else
        items(st.parent[b] < 0 ? 1 : 42, [&](int e) { joint_removed_item(st, b, e); });
#endif
    });

    const T a0[6] = {T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z};
    rounds(false, [&](int b) {
        if (b == 0 && free_root) {
            if (lane == 0) free_root_acceleration(st, b, qdd, a0);
        } else {
#if defined(__CUDA_ARCH__) && defined(GRID_SPREAD_SHUFFLES)
            acceleration_warp(st, b, lane, qdd, a0);
#else
            items(6, [&](int k) { acceleration_item(st, b, k, qdd, a0); });
#endif
        }
    });
}

}  // namespace algorithms
}  // namespace grid
