// The 3×3 estimation kit: symmetric eigendecomposition (eig3), general SVD (svd3) and the closest proper
// rotation (closest_rotation) — the kernels of ICP / Kabsch alignment and rotation re-orthonormalisation.
//
// Conventions: matrices are column-major (entry (i, j) at [i + 3·j]).
//   * eig3: A = V·diag(W)·Vᵀ with W ascending, by a FIXED number of cyclic Jacobi sweeps (eigh_sweeps<T>()):
//     no data-dependent iteration count, so every thread of a block computes bit-identical results.
//   * svd3: A = U·diag(S)·Vᵀ with S descending. A is first scaled by its largest |entry| (so AᵀA neither
//     overflows nor underflows), V comes from eig3(AᵀA), and U is recovered column by column:
//         u1 = A·v1 / ‖A·v1‖,
//         u2 = the Gram-Schmidt (applied twice) remainder of A·v2 against u1, normalised; when that remainder
//              is at rounding level (rank ≤ 1) u2 = perp3(u1), a fixed unit vector orthogonal to u1,
//         u3 = u1 × u2,
//     each σ_k = u_k·(A·v_k), with u_k negated when that is negative, so S ≥ 0. A zero matrix gives
//     U = V = 1, S = 0. Singular values below ≈ √ε·σ₁ inherit the precision floor of squaring A (their
//     vectors are only determined to ≈ ε·σ₁²/gap); prefer double when small σ matter.
//     U and V are orthogonal; either may have det −1.
//   * closest_rotation: R = U·diag(1, 1, det(U)·det(V))·Vᵀ, always in SO(3).
//
// Scopes share the est_detail serial cores: block scope (glass::) and warp scope (glass::warp::) compute the
// core redundantly on every thread (identical results) and spread the stores; thread scope (glass::thread::)
// is one thread. At block and warp scope outputs must not alias inputs.
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

namespace est_detail {

// Jacobi sweeps of eig3: each sweep rotates the three off-diagonal pairs once. Convergence is quadratic,
// so these counts reach the rounding floor with margin (checked on near-degenerate spectra as well).
template <typename T>
GLASS_HD constexpr int eigh_sweeps() {
    return sizeof(T) <= 4 ? 6 : 8;
}

template <typename T>
GLASS_HD constexpr T eps_of() {
    return sizeof(T) <= 4 ? T(1.1920928955078125e-7) : T(2.220446049250313e-16);
}

template <typename T>
GLASS_HD T det3(const T* A) {
    return A[0] * (A[4] * A[8] - A[7] * A[5]) - A[3] * (A[1] * A[8] - A[7] * A[2]) +
           A[6] * (A[1] * A[5] - A[4] * A[2]);
}

template <typename T>
GLASS_HD T dot3(const T* a, const T* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// out = a unit vector orthogonal to u (u need not be unit): u × e_k normalised, e_k the axis of the
// smallest |u_k| (the best-conditioned choice). A zero u gives e_x. Deterministic for the SVD completion.
template <typename T>
GLASS_HD void perp3(const T* u, T* out) {
    using std::abs;
    using std::sqrt;
    const T ax = abs(u[0]), ay = abs(u[1]), az = abs(u[2]);
    T c[3];
    if (ax <= ay && ax <= az) {  // u × e_x
        c[0] = T(0); c[1] = u[2]; c[2] = -u[1];
    } else if (ay <= az) {  // u × e_y
        c[0] = -u[2]; c[1] = T(0); c[2] = u[0];
    } else {  // u × e_z
        c[0] = u[1]; c[1] = -u[0]; c[2] = T(0);
    }
    const T n = sqrt(dot3(c, c));
    if (n > T(0)) {
        out[0] = c[0] / n; out[1] = c[1] / n; out[2] = c[2] / n;
    } else {
        out[0] = T(1); out[1] = T(0); out[2] = T(0);
    }
}

// One Jacobi rotation annihilating a(p, q) of the symmetric a (full 3×3, column-major), accumulated into the
// columns p, q of v (Numerical Recipes' update, with tan φ computed without overflowing θ²).
template <typename T>
GLASS_HD void jacobi_rotate(T* a, T* v, uint32_t p, uint32_t q) {
    using std::abs;
    using std::sqrt;
    const T apq = a[p + 3u * q];
    if (apq == T(0)) return;
    const T theta = (a[q + 3u * q] - a[p + 3u * p]) / (T(2) * apq);
    const T at = abs(theta);
    const T inv = T(1) / at;
    const T root = at > T(1) ? at * sqrt(T(1) + inv * inv) : sqrt(T(1) + at * at);
    T t = T(1) / (at + root);
    if (theta < T(0)) t = -t;
    const T c = T(1) / sqrt(T(1) + t * t), s = t * c;
    const uint32_t r = 3u - p - q;
    const T arp = a[r + 3u * p], arq = a[r + 3u * q];
    a[p + 3u * p] -= t * apq;
    a[q + 3u * q] += t * apq;
    a[p + 3u * q] = a[q + 3u * p] = T(0);
    a[r + 3u * p] = a[p + 3u * r] = c * arp - s * arq;
    a[r + 3u * q] = a[q + 3u * r] = s * arp + c * arq;
    for (uint32_t i = 0; i < 3u; ++i) {
        const T vp = v[i + 3u * p], vq = v[i + 3u * q];
        v[i + 3u * p] = c * vp - s * vq;
        v[i + 3u * q] = s * vp + c * vq;
    }
}

// Swaps entry i / column i with entry j / column j of (W, V) when the order flag asks.
template <typename T>
GLASS_HD void swap_pair(T* W, T* V, uint32_t i, uint32_t j) {
    T w = W[i]; W[i] = W[j]; W[j] = w;
    for (uint32_t k = 0; k < 3u; ++k) {
        T x = V[k + 3u * i]; V[k + 3u * i] = V[k + 3u * j]; V[k + 3u * j] = x;
    }
}

// W ascending, V column k ↔ W[k]. A must be symmetric; its stored entries are used as given (no
// symmetrisation). W and V must not alias A.
template <typename T>
GLASS_HD void eig3_core(const T* A, T* W, T* V) {
    T a[9];
    for (uint32_t k = 0; k < 9u; ++k) {
        a[k] = A[k];
        V[k] = (k % 4u == 0u) ? T(1) : T(0);
    }
    for (int sweep = 0; sweep < eigh_sweeps<T>(); ++sweep) {
        jacobi_rotate(a, V, 0u, 1u);
        jacobi_rotate(a, V, 0u, 2u);
        jacobi_rotate(a, V, 1u, 2u);
    }
    W[0] = a[0]; W[1] = a[4]; W[2] = a[8];
    if (W[1] < W[0]) swap_pair(W, V, 0u, 1u);
    if (W[2] < W[1]) swap_pair(W, V, 1u, 2u);
    if (W[1] < W[0]) swap_pair(W, V, 0u, 1u);
}

// y = A·x (3×3 column-major).
template <typename T>
GLASS_HD void mat3_vec(const T* A, const T* x, T* y) {
    y[0] = A[0] * x[0] + A[3] * x[1] + A[6] * x[2];
    y[1] = A[1] * x[0] + A[4] * x[1] + A[7] * x[2];
    y[2] = A[2] * x[0] + A[5] * x[1] + A[8] * x[2];
}

// A = U·diag(S)·Vᵀ, S descending (see the file header for the recovery and completion rules). U, S, V must
// not alias A.
template <typename T>
GLASS_HD void svd3_core(const T* A, T* U, T* S, T* V) {
    using std::abs;
    using std::sqrt;
    T amax = T(0);
    for (uint32_t k = 0; k < 9u; ++k) amax = abs(A[k]) > amax ? abs(A[k]) : amax;
    if (!(amax > T(0))) {
        // The zero matrix: any orthogonal pair works, so take U = V = 1. A NaN input (amax is NaN) propagates
        // NaN through the diagonals and S instead.
        const T one = amax == T(0) ? T(1) : amax;
        for (uint32_t k = 0; k < 9u; ++k) U[k] = V[k] = (k % 4u == 0u) ? one : T(0);
        S[0] = S[1] = S[2] = amax;
        return;
    }
    // Scaled copy (σ₁ of As is in [1, 3]) and B = AsᵀAs, exactly symmetric.
    T As[9], B[9], Wb[3], Vb[9];
    const T inv = T(1) / amax;
    for (uint32_t k = 0; k < 9u; ++k) As[k] = A[k] * inv;
    for (uint32_t j = 0; j < 3u; ++j)
        for (uint32_t i = 0; i <= j; ++i) B[i + 3u * j] = B[j + 3u * i] = dot3(As + 3u * i, As + 3u * j);
    eig3_core(B, Wb, Vb);
    // V: eigenvectors in descending eigenvalue order.
    for (uint32_t k = 0; k < 3u; ++k)
        for (uint32_t i = 0; i < 3u; ++i) V[i + 3u * k] = Vb[i + 3u * (2u - k)];
    T b[9];  // column k = As·v_k
    for (uint32_t k = 0; k < 3u; ++k) mat3_vec(As, V + 3u * k, b + 3u * k);

    T* u1 = U;
    T* u2 = U + 3;
    T* u3 = U + 6;
    const T s1 = sqrt(dot3(b, b));  // >= 1 up to rounding (σ₁ >= max |entry|)
    for (uint32_t i = 0; i < 3u; ++i) u1[i] = b[i] / s1;
    T c[3] = {b[3], b[4], b[5]};
    for (int pass = 0; pass < 2; ++pass) {  // twice is enough (Kahan-Parlett)
        const T p = dot3(u1, c);
        for (uint32_t i = 0; i < 3u; ++i) c[i] -= p * u1[i];
    }
    const T n2 = sqrt(dot3(c, c));
    if (n2 > T(64) * eps_of<T>()) {
        for (uint32_t i = 0; i < 3u; ++i) u2[i] = c[i] / n2;
    } else {
        perp3(u1, u2);  // rank ≤ 1: the remainder is rounding noise, complete deterministically
    }
    T s2 = dot3(u2, b + 3);
    if (s2 < T(0)) {
        s2 = -s2;
        for (uint32_t i = 0; i < 3u; ++i) u2[i] = -u2[i];
    }
    u3[0] = u1[1] * u2[2] - u1[2] * u2[1];
    u3[1] = u1[2] * u2[0] - u1[0] * u2[2];
    u3[2] = u1[0] * u2[1] - u1[1] * u2[0];
    T s3 = dot3(u3, b + 6);
    if (s3 < T(0)) {
        s3 = -s3;
        for (uint32_t i = 0; i < 3u; ++i) u3[i] = -u3[i];
    }
    S[0] = s1; S[1] = s2; S[2] = s3;
    // Rounding can invert near-tied σ; swapping (σ_k, u_k, v_k) triples keeps A = U·S·Vᵀ.
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t k = 0; k < 2u; ++k) {
            if (S[k] < S[k + 1u]) {
                swap_pair(S, U, k, k + 1u);
                for (uint32_t i = 0; i < 3u; ++i) {
                    T x = V[i + 3u * k]; V[i + 3u * k] = V[i + 3u * (k + 1u)]; V[i + 3u * (k + 1u)] = x;
                }
            }
        }
    }
    for (uint32_t k = 0; k < 3u; ++k) S[k] *= amax;
}

// R = U·diag(1, 1, d)·Vᵀ with d = det(U)·det(V) (±1): the nearest rotation, det R = +1. R must not alias A.
template <typename T>
GLASS_HD void closest_rotation_core(const T* A, T* R) {
    T U[9], S[3], V[9];
    svd3_core(A, U, S, V);
    const T d = det3(U) * det3(V) < T(0) ? T(-1) : T(1);
    for (uint32_t j = 0; j < 3u; ++j)
        for (uint32_t i = 0; i < 3u; ++i)
            R[i + 3u * j] = U[i] * V[j] + U[i + 3u] * V[j + 3u] + d * U[i + 6u] * V[j + 6u];
}

// Stores tmp[0..N) into out, this thread's share of a stride-split store.
template <typename T, uint32_t N>
GLASS_HD void store(uint32_t rank, uint32_t size, const T* tmp, T* out) {
    for (uint32_t k = rank; k < N; k += size) out[k] = tmp[k];
}

template <typename T>
GLASS_HD void eig3_scoped(uint32_t rank, uint32_t size, const T* A, T* W, T* V) {
    T w[3], v[9];
    eig3_core(A, w, v);
    store<T, 3>(rank, size, w, W);
    store<T, 9>(rank, size, v, V);
}

template <typename T>
GLASS_HD void svd3_scoped(uint32_t rank, uint32_t size, const T* A, T* U, T* S, T* V) {
    T u[9], s[3], v[9];
    svd3_core(A, u, s, v);
    store<T, 9>(rank, size, u, U);
    store<T, 3>(rank, size, s, S);
    store<T, 9>(rank, size, v, V);
}

template <typename T>
GLASS_HD void closest_rotation_scoped(uint32_t rank, uint32_t size, const T* A, T* R) {
    T r[9];
    closest_rotation_core(A, r);
    store<T, 9>(rank, size, r, R);
}

}  // namespace est_detail

// ---- block scope --------------------------------------------------------------------------------------

// Symmetric 3×3 eigendecomposition A = V·diag(W)·Vᵀ, W ascending, V column k ↔ W[k].
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void eig3(const T* A, T* W, T* V) {
    est_detail::eig3_scoped(block_rank(), block_size(), A, W, V);
    trailing_sync<TRAILING_SYNC>();
}

// General 3×3 SVD A = U·diag(S)·Vᵀ, S descending, V not transposed.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void svd3(const T* A, T* U, T* S, T* V) {
    est_detail::svd3_scoped(block_rank(), block_size(), A, U, S, V);
    trailing_sync<TRAILING_SYNC>();
}

// Closest proper rotation (Frobenius) to A: re-orthonormalisation, polar factor, Kabsch/Wahba solution.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void closest_rotation(const T* A, T* R) {
    est_detail::closest_rotation_scoped(block_rank(), block_size(), A, R);
    trailing_sync<TRAILING_SYNC>();
}

namespace warp {

template <typename T>
GLASS_HD void eig3(const T* A, T* W, T* V) {
    est_detail::eig3_scoped(warp_rank(), warp_size(), A, W, V);
    warp_sync();
}

template <typename T>
GLASS_HD void svd3(const T* A, T* U, T* S, T* V) {
    est_detail::svd3_scoped(warp_rank(), warp_size(), A, U, S, V);
    warp_sync();
}

template <typename T>
GLASS_HD void closest_rotation(const T* A, T* R) {
    est_detail::closest_rotation_scoped(warp_rank(), warp_size(), A, R);
    warp_sync();
}

}  // namespace warp

namespace thread {

template <typename T>
GLASS_HD void eig3(const T* A, T* W, T* V) {
    est_detail::eig3_scoped(0u, 1u, A, W, V);
}

template <typename T>
GLASS_HD void svd3(const T* A, T* U, T* S, T* V) {
    est_detail::svd3_scoped(0u, 1u, A, U, S, V);
}

template <typename T>
GLASS_HD void closest_rotation(const T* A, T* R) {
    est_detail::closest_rotation_scoped(0u, 1u, A, R);
}

}  // namespace thread

}  // namespace glass
