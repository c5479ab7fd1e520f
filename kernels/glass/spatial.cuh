// Spatial (6-D) algebra for rigid-body dynamics: cross products, coordinate transforms and the
// 10-parameter spatial inertia.
//
// Conventions (docs/architecture.md):
//   * spatial motion vectors are angular first, v = [ω; v_lin]; spatial forces are f = [n; f_lin]
//     (Featherstone's ordering; Pinocchio stores [v_lin; ω], so convert when comparing);
//   * matrices are column-major: entry (i, j) of an R×C matrix lives at [i + R·j];
//   * a coordinate transform is the pair (E, r): E (3×3) rotates A coordinates into B coordinates and r is
//     the origin of B expressed in A coordinates. The motion transform is Featherstone's
//         ᴮX_A = [[E, 0], [−E·[r]ₓ, E]],
//     and the force transform is X* = X⁻ᵀ = [[E, −E·[r]ₓ], [0, E]]. The inverse forms (and the inertia
//     transform) assume E is a proper rotation (EᵀE = 1, det E = +1);
//   * an inertia is the 10-vector pi = [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]: mass, first moment
//     h = m·c (c the centre of mass) and the rotational inertia I_O about the body ORIGIN (not the centre of
//     mass), upper triangle row by row. Caveat: Pinocchio's dynamic-parameter vector stores the same
//     quantities in lower-triangle order [.., Ixx, Ixy, Iyy, Ixz, Iyz, Izz] — Iyy and Ixz swap places.
//     The spatial inertia is I(pi) = [[I_O, [h]ₓ], [[h]ₓᵀ, m·1₃]].
//
// Every operation exists at three scopes with one serial core (the spatial_detail functions):
//   * glass::      block scope: every thread of the block calls it; output entries are spread over
//                  block_rank()/block_size() with block-stride loops (correct for any block size), then
//                  trailing_sync<TRAILING_SYNC>();
//   * glass::warp  warp scope: every lane of one warp calls it; entries spread over warp_rank()/warp_size(),
//                  then warp_sync();
//   * glass::thread  one thread computes everything, fully unrolled (the hot path of generated code).
// At block and warp scope an output must not alias any input (another thread may still be reading the input
// while one writes the output). At thread scope the fused *_mul and inertia-transform operations form the
// whole result in registers before storing it, so their output may alias their inputs; the matrix
// builders (motion_cross, force_transform, ...) still require distinct output storage.
//
// (alpha, beta) semantics of the fused operations: y = alpha·(product) + beta·y. beta (and y) are read only
// when HAS_BETA; with HAS_BETA and beta == 0, y is not read either (BLAS semantics: NaN or garbage already in
// y does not propagate). alpha is always applied.
#pragma once

#include "scope.cuh"

#include <cstdint>

// Full unrolling of constant-trip loops: nvcc's device pass and clang take "unroll", GCC its own
// spelling; the host pass of nvcc gets nothing (its front end rejects the GCC form and GCC the other).
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define GLASS_SPATIAL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define GLASS_SPATIAL_UNROLL _Pragma("GCC unroll 64")
#else
#define GLASS_SPATIAL_UNROLL
#endif

namespace glass {

namespace spatial_detail {

// Cyclic successor in {0, 1, 2}.
GLASS_HD uint32_t next3(uint32_t i) { return i == 2u ? 0u : i + 1u; }

// Entry (i, j) of the skew-symmetric cross-product matrix [a]ₓ (i, j < 3): [a]ₓ·x = a × x.
template <typename T>
GLASS_HD T skew_entry(uint32_t i, uint32_t j, const T* a) {
    if (i == j) return T(0);
    const uint32_t k = 3u - i - j;
    return next3(i) == j ? -a[k] : a[k];
}

// Component i of the 3-D cross product a × b.
template <typename T>
GLASS_HD T cross3_row(uint32_t i, const T* a, const T* b) {
    const uint32_t i1 = next3(i), i2 = next3(i1);
    return a[i1] * b[i2] - a[i2] * b[i1];
}

// c = a × b (c must not alias a or b).
template <typename T>
GLASS_HD void cross3(const T* a, const T* b, T* c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

// y = E·x for a column-major 3×3 E (y must not alias x).
template <typename T>
GLASS_HD void rot_apply(const T* E, const T* x, T* y) {
    y[0] = E[0] * x[0] + E[3] * x[1] + E[6] * x[2];
    y[1] = E[1] * x[0] + E[4] * x[1] + E[7] * x[2];
    y[2] = E[2] * x[0] + E[5] * x[1] + E[8] * x[2];
}

// y = Eᵀ·x for a column-major 3×3 E (y must not alias x).
template <typename T>
GLASS_HD void rot_apply_t(const T* E, const T* x, T* y) {
    y[0] = E[0] * x[0] + E[1] * x[1] + E[2] * x[2];
    y[1] = E[3] * x[0] + E[4] * x[1] + E[5] * x[2];
    y[2] = E[6] * x[0] + E[7] * x[1] + E[8] * x[2];
}

// Stores ax (= alpha·product) into *y with the (HAS_BETA, beta) semantics of the file header:
// *y = ax without HAS_BETA; *y = ax + beta·*y with it, where beta == 0 leaves the old *y unread.
template <bool HAS_BETA, typename T>
GLASS_HD void beta_blend(T* y, T ax, T beta) {
    if constexpr (HAS_BETA) {
        *y = beta == T(0) ? ax : ax + beta * *y;
    } else {
        (void)beta;
        *y = ax;
    }
}

// Writes the share of rank (of size cooperating threads) of y[0..N) = alpha·tmp + beta·y. The loop runs over
// compile-time indices so tmp stays in registers.
template <typename T, uint32_t N, bool HAS_BETA>
GLASS_HD void blend_out(uint32_t rank, uint32_t size, T alpha, const T* tmp, T beta, T* y) {
    uint32_t next = rank;
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < N; ++k) {
        if (k == next) {
            beta_blend<HAS_BETA>(y + k, alpha * tmp[k], beta);
            next += size;
        }
    }
}

// ---- cross products -----------------------------------------------------------------------------------

// Entry (r, c) of motion_cross(v) = [[ωₓ, 0], [v_linₓ, ωₓ]].
template <typename T>
GLASS_HD T motion_cross_entry(uint32_t r, uint32_t c, const T* v) {
    const uint32_t br = r / 3u, bc = c / 3u, i = r - 3u * br, j = c - 3u * bc;
    if (br == 0u && bc == 1u) return T(0);
    return skew_entry(i, j, (br == 1u && bc == 0u) ? v + 3 : v);
}

// Row r of v ×ₘ x = [ω × x_ω; ω × x_lin + v_lin × x_ω]. With AXIS in 0..5, x = e_AXIS (x is not read).
template <typename T, int AXIS = -1>
GLASS_HD T motion_cross_mul_row(uint32_t r, const T* v, const T* x) {
    if constexpr (AXIS >= 0) {
        static_assert(AXIS < 6, "AXIS must be -1 or in 0..5");
        (void)x;
        return motion_cross_entry(r, uint32_t(AXIS), v);
    } else {
        if (r < 3u) return cross3_row(r, v, x);
        return cross3_row(r - 3u, v, x + 3) + cross3_row(r - 3u, v + 3, x);
    }
}

// Entry (r, c) of force_cross(v) = [[ωₓ, v_linₓ], [0, ωₓ]] = −motion_cross(v)ᵀ.
template <typename T>
GLASS_HD T force_cross_entry(uint32_t r, uint32_t c, const T* v) {
    const uint32_t br = r / 3u, bc = c / 3u, i = r - 3u * br, j = c - 3u * bc;
    if (br == 1u && bc == 0u) return T(0);
    return skew_entry(i, j, (br == 0u && bc == 1u) ? v + 3 : v);
}

// Row r of v ×* f = [ω × n + v_lin × f_lin; ω × f_lin].
template <typename T>
GLASS_HD T force_cross_mul_row(uint32_t r, const T* v, const T* f) {
    if (r < 3u) return cross3_row(r, v, f) + cross3_row(r, v + 3, f + 3);
    return cross3_row(r - 3u, v, f + 3);
}

// Entry (r, c) of force_cross_dual(f) = −[[nₓ, f_linₓ], [f_linₓ, 0]], the matrix with
// force_cross(v)·f == force_cross_dual(f)·v for every v.
template <typename T>
GLASS_HD T force_cross_dual_entry(uint32_t r, uint32_t c, const T* f) {
    const uint32_t br = r / 3u, bc = c / 3u, i = r - 3u * br, j = c - 3u * bc;
    if (br == 1u && bc == 1u) return T(0);
    return -skew_entry(i, j, (br == 0u && bc == 0u) ? f : f + 3);
}

// ---- coordinate transforms ----------------------------------------------------------------------------

// Entry (i, j) of the 3×3 block −E·[r]ₓ (column j is E·(e_j × r)).
template <typename T>
GLASS_HD T xform_skew_entry(uint32_t i, uint32_t j, const T* E, const T* r) {
    const uint32_t j1 = next3(j), j2 = next3(j1);
    return E[i + 3u * j2] * r[j1] - E[i + 3u * j1] * r[j2];
}

// Entry (i, j) of the motion transform [[E, 0], [−E[r]ₓ, E]] or, with FORCE, of the force transform
// [[E, −E[r]ₓ], [0, E]].
template <typename T, bool FORCE>
GLASS_HD T xform_entry(uint32_t i, uint32_t j, const T* E, const T* r) {
    const uint32_t bi = i / 3u, bj = j / 3u, ii = i - 3u * bi, jj = j - 3u * bj;
    if (bi == bj) return E[ii + 3u * jj];
    const bool skew_block = FORCE ? (bi == 0u) : (bi == 1u);
    return skew_block ? xform_skew_entry(ii, jj, E, r) : T(0);
}

// y = X·v = [E·ω; E·(v_lin − r × ω)], or with INVERSE y = X⁻¹·v = [Eᵀ·ω; Eᵀ·v_lin + r × (Eᵀ·ω)].
// y must not alias v.
template <typename T, bool INVERSE>
GLASS_HD void motion_transform_mul_core(const T* E, const T* r, const T* v, T* y) {
    if constexpr (!INVERSE) {
        T rw[3], d[3];
        cross3(r, v, rw);
        d[0] = v[3] - rw[0];
        d[1] = v[4] - rw[1];
        d[2] = v[5] - rw[2];
        rot_apply(E, v, y);
        rot_apply(E, d, y + 3);
    } else {
        T rw[3];
        rot_apply_t(E, v, y);
        rot_apply_t(E, v + 3, y + 3);
        cross3(r, y, rw);
        y[3] += rw[0];
        y[4] += rw[1];
        y[5] += rw[2];
    }
}

// y = X*·f = [E·(n − r × f_lin); E·f_lin], or with INVERSE y = X*⁻¹·f = Xᵀ·f = [Eᵀ·n + r × (Eᵀ·f_lin); Eᵀ·f_lin].
// y must not alias f.
template <typename T, bool INVERSE>
GLASS_HD void force_transform_mul_core(const T* E, const T* r, const T* f, T* y) {
    if constexpr (!INVERSE) {
        T rf[3], d[3];
        cross3(r, f + 3, rf);
        d[0] = f[0] - rf[0];
        d[1] = f[1] - rf[1];
        d[2] = f[2] - rf[2];
        rot_apply(E, d, y);
        rot_apply(E, f + 3, y + 3);
    } else {
        T rf[3];
        rot_apply_t(E, f, y);
        rot_apply_t(E, f + 3, y + 3);
        cross3(r, y + 3, rf);
        y[0] += rf[0];
        y[1] += rf[1];
        y[2] += rf[2];
    }
}

// ---- spatial inertia ----------------------------------------------------------------------------------

// Index in pi of the rotational-inertia entry (i, j) (i, j < 3, either triangle): ixx ixy ixz iyy iyz izz
// sit at 4 + i + j, shifted by one once neither index is x. (A min/max form of this was miscompiled by
// CUDA 13.0's ptxas for sm_90 when unrolled over constant (i, j): the off-diagonal entries read izz.)
GLASS_HD uint32_t inertia_index(uint32_t i, uint32_t j) {
    return 4u + i + j + ((i != 0u && j != 0u) ? 1u : 0u);
}

// Entry (i, j) of I(pi) = [[I_O, [h]ₓ], [[h]ₓᵀ, m·1₃]].
template <typename T>
GLASS_HD T inertia_entry(uint32_t i, uint32_t j, const T* pi) {
    const uint32_t bi = i / 3u, bj = j / 3u, ii = i - 3u * bi, jj = j - 3u * bj;
    if (bi == 0u) return bj == 0u ? pi[inertia_index(ii, jj)] : skew_entry(ii, jj, pi + 1);
    if (bj == 0u) return skew_entry(jj, ii, pi + 1);
    return ii == jj ? pi[0] : T(0);
}

// f = I(pi)·v = [I_O·ω + h × v_lin; m·v_lin − h × ω]. f must not alias pi or v.
template <typename T>
GLASS_HD void spatial_inertia_mul_core(const T* pi, const T* v, T* f) {
    const T* h = pi + 1;
    const T m = pi[0], ixx = pi[4], ixy = pi[5], ixz = pi[6], iyy = pi[7], iyz = pi[8], izz = pi[9];
    f[0] = ixx * v[0] + ixy * v[1] + ixz * v[2] + (h[1] * v[5] - h[2] * v[4]);
    f[1] = ixy * v[0] + iyy * v[1] + iyz * v[2] + (h[2] * v[3] - h[0] * v[5]);
    f[2] = ixz * v[0] + iyz * v[1] + izz * v[2] + (h[0] * v[4] - h[1] * v[3]);
    f[3] = m * v[3] - (h[1] * v[2] - h[2] * v[1]);
    f[4] = m * v[4] - (h[2] * v[0] - h[0] * v[2]);
    f[5] = m * v[5] - (h[0] * v[1] - h[1] * v[0]);
}

// out = the 10 parameters of Xᵀ·I(pi)·X for X = motion_transform(E, r): pi in B coordinates to A
// coordinates. With INVERSE, the opposite mapping X⁻ᵀ·I(pi)·X⁻¹ (A to B coordinates).
//   forward:  y = Eᵀh, J = EᵀĪE, w = y + (m/2)·r:
//             h' = y + m·r,  I' = J − (w·rᵀ + r·wᵀ) + 2(r·w)·1
//             (= J − [r]ₓ[y]ₓ − [y + m·r]ₓ[r]ₓ, using [a]ₓ[b]ₓ = b·aᵀ − (a·b)·1);
//   inverse:  u = h − (m/2)·r, K = Ī + (u·rᵀ + r·uᵀ) − 2(r·u)·1:
//             h' = E·(h − m·r),  I' = E·K·Eᵀ.
// out must not alias E, r or pi.
template <typename T, bool INVERSE>
GLASS_HD void spatial_inertia_transform_core(const T* E, const T* r, const T* pi, T* out) {
    const T m = pi[0];
    const T half_m = T(0.5) * m;
    // S: the symmetric matrix to rotate (column-major, full), t: the first moment after the translation
    // step (inverse) or before it (forward).
    T S[9], t[3];
    if constexpr (!INVERSE) {
        rot_apply_t(E, pi + 1, t);
        S[0] = pi[4];
        S[1] = S[3] = pi[5];
        S[2] = S[6] = pi[6];
        S[4] = pi[7];
        S[5] = S[7] = pi[8];
        S[8] = pi[9];
    } else {
        T u[3];
        u[0] = pi[1] - half_m * r[0];
        u[1] = pi[2] - half_m * r[1];
        u[2] = pi[3] - half_m * r[2];
        const T s = T(2) * (r[0] * u[0] + r[1] * u[1] + r[2] * u[2]);
        S[0] = pi[4] + T(2) * u[0] * r[0] - s;
        S[1] = S[3] = pi[5] + (u[0] * r[1] + r[0] * u[1]);
        S[2] = S[6] = pi[6] + (u[0] * r[2] + r[0] * u[2]);
        S[4] = pi[7] + T(2) * u[1] * r[1] - s;
        S[5] = S[7] = pi[8] + (u[1] * r[2] + r[1] * u[2]);
        S[8] = pi[9] + T(2) * u[2] * r[2] - s;
        t[0] = pi[1] - m * r[0];
        t[1] = pi[2] - m * r[1];
        t[2] = pi[3] - m * r[2];
    }
    // J = Rᵀ·S·R with R = E (forward) or R = Eᵀ (inverse): P = S·R, then the upper triangle of Rᵀ·P.
    T P[9];
    GLASS_SPATIAL_UNROLL
    for (uint32_t j = 0; j < 3u; ++j) {
        GLASS_SPATIAL_UNROLL
        for (uint32_t i = 0; i < 3u; ++i) {
            T acc = T(0);
            GLASS_SPATIAL_UNROLL
            for (uint32_t k = 0; k < 3u; ++k) acc += S[i + 3u * k] * (INVERSE ? E[j + 3u * k] : E[k + 3u * j]);
            P[i + 3u * j] = acc;
        }
    }
    T J[6];
    uint32_t n = 0;
    GLASS_SPATIAL_UNROLL
    for (uint32_t i = 0; i < 3u; ++i) {
        GLASS_SPATIAL_UNROLL
        for (uint32_t j = i; j < 3u; ++j) {
            T acc = T(0);
            GLASS_SPATIAL_UNROLL
            for (uint32_t k = 0; k < 3u; ++k) acc += (INVERSE ? E[i + 3u * k] : E[k + 3u * i]) * P[k + 3u * j];
            J[n++] = acc;
        }
    }
    out[0] = m;
    if constexpr (!INVERSE) {
        T w[3];
        w[0] = t[0] + half_m * r[0];
        w[1] = t[1] + half_m * r[1];
        w[2] = t[2] + half_m * r[2];
        const T s = T(2) * (r[0] * w[0] + r[1] * w[1] + r[2] * w[2]);
        out[1] = t[0] + m * r[0];
        out[2] = t[1] + m * r[1];
        out[3] = t[2] + m * r[2];
        out[4] = J[0] - T(2) * w[0] * r[0] + s;
        out[5] = J[1] - (w[0] * r[1] + r[0] * w[1]);
        out[6] = J[2] - (w[0] * r[2] + r[0] * w[2]);
        out[7] = J[3] - T(2) * w[1] * r[1] + s;
        out[8] = J[4] - (w[1] * r[2] + r[1] * w[2]);
        out[9] = J[5] - T(2) * w[2] * r[2] + s;
    } else {
        rot_apply(E, t, out + 1);
        GLASS_SPATIAL_UNROLL
        for (uint32_t k = 0; k < 6u; ++k) out[4 + k] = J[k];
    }
}

}  // namespace spatial_detail

// =======================================================================================================
// Block scope
// =======================================================================================================

// M = motion_cross(v) (6×6, "crm"): M·x = v ×ₘ x, M = [[ωₓ, 0], [v_linₓ, ωₓ]]. M: 36 entries, column-major;
// no aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void motion_cross(const T* v, T* M) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        M[k] = spatial_detail::motion_cross_entry(k % 6u, k / 6u, v);
    trailing_sync<TRAILING_SYNC>();
}

// y = alpha·(v ×ₘ x) + beta·y without materialising the 6×6. With AXIS in 0..5, x = e_AXIS (x is not read
// and may be nullptr). beta and y are read only when HAS_BETA (see the file header). No aliasing of y with
// v or x.
template <typename T, int AXIS = -1, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void motion_cross_mul(T alpha, const T* v, const T* x, T beta, T* y) {
    for (uint32_t k = block_rank(); k < 6u; k += block_size())
        spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * spatial_detail::motion_cross_mul_row<T, AXIS>(k, v, x),
                                             beta);
    trailing_sync<TRAILING_SYNC>();
}

// M = force_cross(v) = −motion_cross(v)ᵀ = [[ωₓ, v_linₓ], [0, ωₓ]] (6×6, "crf"). All 36 entries are
// written; column-major; no aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void force_cross(const T* v, T* M) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        M[k] = spatial_detail::force_cross_entry(k % 6u, k / 6u, v);
    trailing_sync<TRAILING_SYNC>();
}

// y = alpha·(v ×* f) + beta·y without materialising the 6×6. No aliasing of y with v or f.
template <typename T, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void force_cross_mul(T alpha, const T* v, const T* f, T beta, T* y) {
    for (uint32_t k = block_rank(); k < 6u; k += block_size())
        spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * spatial_detail::force_cross_mul_row(k, v, f), beta);
    trailing_sync<TRAILING_SYNC>();
}

// M = force_cross_dual(f) ("icrf"), defined by force_cross(v)·f == force_cross_dual(f)·v for all v:
// M = −[[nₓ, f_linₓ], [f_linₓ, 0]]. Column-major; no aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void force_cross_dual(const T* f, T* M) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        M[k] = spatial_detail::force_cross_dual_entry(k % 6u, k / 6u, f);
    trailing_sync<TRAILING_SYNC>();
}

// X = ᴮX_A = [[E, 0], [−E·[r]ₓ, E]] (6×6, column-major; no aliasing).
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void motion_transform(const T* E, const T* r, T* X) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        X[k] = spatial_detail::xform_entry<T, false>(k % 6u, k / 6u, E, r);
    trailing_sync<TRAILING_SYNC>();
}

// X* = X⁻ᵀ = [[E, −E·[r]ₓ], [0, E]] (6×6, column-major; no aliasing).
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void force_transform(const T* E, const T* r, T* X) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        X[k] = spatial_detail::xform_entry<T, true>(k % 6u, k / 6u, E, r);
    trailing_sync<TRAILING_SYNC>();
}

// y = alpha·X·v + beta·y (or alpha·X⁻¹·v + beta·y with INVERSE) without materialising X. No aliasing of y
// with E, r or v.
template <typename T, bool INVERSE = false, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void motion_transform_mul(T alpha, const T* E, const T* r, const T* v, T beta, T* y) {
    T tmp[6];
    spatial_detail::motion_transform_mul_core<T, INVERSE>(E, r, v, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(block_rank(), block_size(), alpha, tmp, beta, y);
    trailing_sync<TRAILING_SYNC>();
}

// y = alpha·X*·f + beta·y (or alpha·Xᵀ·f + beta·y with INVERSE: the RNEA back pass f_parent += Xᵀ·f_child
// with HAS_BETA, beta = 1). No aliasing of y with E, r or f.
template <typename T, bool INVERSE = false, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void force_transform_mul(T alpha, const T* E, const T* r, const T* f, T beta, T* y) {
    T tmp[6];
    spatial_detail::force_transform_mul_core<T, INVERSE>(E, r, f, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(block_rank(), block_size(), alpha, tmp, beta, y);
    trailing_sync<TRAILING_SYNC>();
}

// M = I(pi) = [[I_O, [h]ₓ], [[h]ₓᵀ, m·1₃]] (6×6, column-major, symmetric; no aliasing).
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void spatial_inertia(const T* pi, T* M) {
    for (uint32_t k = block_rank(); k < 36u; k += block_size())
        M[k] = spatial_detail::inertia_entry(k % 6u, k / 6u, pi);
    trailing_sync<TRAILING_SYNC>();
}

// f = alpha·I(pi)·v + beta·f without materialising the 6×6. No aliasing of f with pi or v.
template <typename T, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void spatial_inertia_mul(T alpha, const T* pi, const T* v, T beta, T* f) {
    T tmp[6];
    spatial_detail::spatial_inertia_mul_core(pi, v, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(block_rank(), block_size(), alpha, tmp, beta, f);
    trailing_sync<TRAILING_SYNC>();
}

// pi_out = the 10 parameters of Xᵀ·I(pi)·X, X = motion_transform(E, r): an inertia given in B coordinates
// expressed in A coordinates (about A's origin). With INVERSE the opposite mapping (A to B coordinates,
// X⁻ᵀ·I(pi)·X⁻¹). With HAS_BETA the result is accumulated: pi_out += result (the CRBA composite-inertia back
// pass). E must be a rotation. No aliasing of pi_out with E, r or pi.
template <typename T, bool INVERSE = false, bool HAS_BETA = false, bool TRAILING_SYNC = true>
GLASS_HD void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* pi_out) {
    T tmp[10];
    spatial_detail::spatial_inertia_transform_core<T, INVERSE>(E, r, pi, tmp);
    spatial_detail::blend_out<T, 10, HAS_BETA>(block_rank(), block_size(), T(1), tmp, T(1), pi_out);
    trailing_sync<TRAILING_SYNC>();
}

// =======================================================================================================
// Warp scope: the block-scope operations spread over the lanes of one warp, ending with warp_sync().
// =======================================================================================================
namespace warp {

// Single-warp motion cross matrix. See glass::motion_cross.
template <typename T>
GLASS_HD void motion_cross(const T* v, T* M) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        M[k] = spatial_detail::motion_cross_entry(k % 6u, k / 6u, v);
    warp_sync();
}

// Single-warp fused motion cross apply. See glass::motion_cross_mul.
template <typename T, int AXIS = -1, bool HAS_BETA = false>
GLASS_HD void motion_cross_mul(T alpha, const T* v, const T* x, T beta, T* y) {
    for (uint32_t k = warp_rank(); k < 6u; k += warp_size())
        spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * spatial_detail::motion_cross_mul_row<T, AXIS>(k, v, x),
                                             beta);
    warp_sync();
}

// Single-warp force cross matrix. See glass::force_cross.
template <typename T>
GLASS_HD void force_cross(const T* v, T* M) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        M[k] = spatial_detail::force_cross_entry(k % 6u, k / 6u, v);
    warp_sync();
}

// Single-warp fused force cross apply. See glass::force_cross_mul.
template <typename T, bool HAS_BETA = false>
GLASS_HD void force_cross_mul(T alpha, const T* v, const T* f, T beta, T* y) {
    for (uint32_t k = warp_rank(); k < 6u; k += warp_size())
        spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * spatial_detail::force_cross_mul_row(k, v, f), beta);
    warp_sync();
}

// Single-warp operand-swapped force cross matrix. See glass::force_cross_dual.
template <typename T>
GLASS_HD void force_cross_dual(const T* f, T* M) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        M[k] = spatial_detail::force_cross_dual_entry(k % 6u, k / 6u, f);
    warp_sync();
}

// Single-warp motion transform matrix. See glass::motion_transform.
template <typename T>
GLASS_HD void motion_transform(const T* E, const T* r, T* X) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        X[k] = spatial_detail::xform_entry<T, false>(k % 6u, k / 6u, E, r);
    warp_sync();
}

// Single-warp force transform matrix. See glass::force_transform.
template <typename T>
GLASS_HD void force_transform(const T* E, const T* r, T* X) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        X[k] = spatial_detail::xform_entry<T, true>(k % 6u, k / 6u, E, r);
    warp_sync();
}

// Single-warp fused motion transform apply. See glass::motion_transform_mul.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void motion_transform_mul(T alpha, const T* E, const T* r, const T* v, T beta, T* y) {
    T tmp[6];
    spatial_detail::motion_transform_mul_core<T, INVERSE>(E, r, v, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(warp_rank(), warp_size(), alpha, tmp, beta, y);
    warp_sync();
}

// Single-warp fused force transform apply. See glass::force_transform_mul.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void force_transform_mul(T alpha, const T* E, const T* r, const T* f, T beta, T* y) {
    T tmp[6];
    spatial_detail::force_transform_mul_core<T, INVERSE>(E, r, f, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(warp_rank(), warp_size(), alpha, tmp, beta, y);
    warp_sync();
}

// Single-warp spatial inertia matrix. See glass::spatial_inertia.
template <typename T>
GLASS_HD void spatial_inertia(const T* pi, T* M) {
    for (uint32_t k = warp_rank(); k < 36u; k += warp_size())
        M[k] = spatial_detail::inertia_entry(k % 6u, k / 6u, pi);
    warp_sync();
}

// Single-warp fused spatial inertia apply. See glass::spatial_inertia_mul.
template <typename T, bool HAS_BETA = false>
GLASS_HD void spatial_inertia_mul(T alpha, const T* pi, const T* v, T beta, T* f) {
    T tmp[6];
    spatial_detail::spatial_inertia_mul_core(pi, v, tmp);
    spatial_detail::blend_out<T, 6, HAS_BETA>(warp_rank(), warp_size(), alpha, tmp, beta, f);
    warp_sync();
}

// Single-warp spatial inertia transform. See glass::spatial_inertia_transform.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* pi_out) {
    T tmp[10];
    spatial_detail::spatial_inertia_transform_core<T, INVERSE>(E, r, pi, tmp);
    spatial_detail::blend_out<T, 10, HAS_BETA>(warp_rank(), warp_size(), T(1), tmp, T(1), pi_out);
    warp_sync();
}

}  // namespace warp

// =======================================================================================================
// Thread scope: one thread, fully unrolled. The fused operations build the result in registers first, so
// their output may alias their inputs; the matrix builders need distinct output storage.
// =======================================================================================================
namespace thread {

// Single-thread motion cross matrix. See glass::motion_cross.
template <typename T>
GLASS_HD void motion_cross(const T* v, T* M) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) M[k] = spatial_detail::motion_cross_entry(k % 6u, k / 6u, v);
}

// Single-thread fused motion cross apply (fully unrolled). See glass::motion_cross_mul.
template <typename T, int AXIS = -1, bool HAS_BETA = false>
GLASS_HD void motion_cross_mul(T alpha, const T* v, const T* x, T beta, T* y) {
    T tmp[6];
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) tmp[k] = spatial_detail::motion_cross_mul_row<T, AXIS>(k, v, x);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * tmp[k], beta);
}

// Single-thread force cross matrix. See glass::force_cross.
template <typename T>
GLASS_HD void force_cross(const T* v, T* M) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) M[k] = spatial_detail::force_cross_entry(k % 6u, k / 6u, v);
}

// Single-thread fused force cross apply (fully unrolled). See glass::force_cross_mul.
template <typename T, bool HAS_BETA = false>
GLASS_HD void force_cross_mul(T alpha, const T* v, const T* f, T beta, T* y) {
    T tmp[6];
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) tmp[k] = spatial_detail::force_cross_mul_row(k, v, f);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * tmp[k], beta);
}

// Single-thread operand-swapped force cross matrix. See glass::force_cross_dual.
template <typename T>
GLASS_HD void force_cross_dual(const T* f, T* M) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) M[k] = spatial_detail::force_cross_dual_entry(k % 6u, k / 6u, f);
}

// Single-thread motion transform matrix. See glass::motion_transform.
template <typename T>
GLASS_HD void motion_transform(const T* E, const T* r, T* X) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) X[k] = spatial_detail::xform_entry<T, false>(k % 6u, k / 6u, E, r);
}

// Single-thread force transform matrix. See glass::force_transform.
template <typename T>
GLASS_HD void force_transform(const T* E, const T* r, T* X) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) X[k] = spatial_detail::xform_entry<T, true>(k % 6u, k / 6u, E, r);
}

// Single-thread fused motion transform apply. See glass::motion_transform_mul.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void motion_transform_mul(T alpha, const T* E, const T* r, const T* v, T beta, T* y) {
    T tmp[6];
    spatial_detail::motion_transform_mul_core<T, INVERSE>(E, r, v, tmp);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * tmp[k], beta);
}

// Single-thread fused force transform apply. See glass::force_transform_mul.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void force_transform_mul(T alpha, const T* E, const T* r, const T* f, T beta, T* y) {
    T tmp[6];
    spatial_detail::force_transform_mul_core<T, INVERSE>(E, r, f, tmp);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) spatial_detail::beta_blend<HAS_BETA>(y + k, alpha * tmp[k], beta);
}

// Single-thread spatial inertia matrix. See glass::spatial_inertia.
template <typename T>
GLASS_HD void spatial_inertia(const T* pi, T* M) {
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 36u; ++k) M[k] = spatial_detail::inertia_entry(k % 6u, k / 6u, pi);
}

// Single-thread fused spatial inertia apply. See glass::spatial_inertia_mul.
template <typename T, bool HAS_BETA = false>
GLASS_HD void spatial_inertia_mul(T alpha, const T* pi, const T* v, T beta, T* f) {
    T tmp[6];
    spatial_detail::spatial_inertia_mul_core(pi, v, tmp);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 6u; ++k) spatial_detail::beta_blend<HAS_BETA>(f + k, alpha * tmp[k], beta);
}

// Single-thread spatial inertia transform. See glass::spatial_inertia_transform.
template <typename T, bool INVERSE = false, bool HAS_BETA = false>
GLASS_HD void spatial_inertia_transform(const T* E, const T* r, const T* pi, T* pi_out) {
    T tmp[10];
    spatial_detail::spatial_inertia_transform_core<T, INVERSE>(E, r, pi, tmp);
    GLASS_SPATIAL_UNROLL
    for (uint32_t k = 0; k < 10u; ++k) {
        if constexpr (HAS_BETA) {
            pi_out[k] += tmp[k];
        } else {
            pi_out[k] = tmp[k];
        }
    }
}

}  // namespace thread

}  // namespace glass
