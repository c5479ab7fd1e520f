// Fused Gauss-Newton / Levenberg-Marquardt step for one 32-lane warp:
//     (JᵀJ + lambda·D) dq = Jᵀr,   D = diag(JᵀJ) (Marquardt, REG_DIAG) or 1 (Levenberg).
// The caller applies the step with its own sign convention (q ← q − dq for residual r(q) with Jacobian J).
//
// Stages (warp_sync between dependent ones):
//   1. s_A = JᵀJ (all N² entries; lanes split the dot products), dq = Jᵀr;
//   2. the diagonal shift (REGULARIZE);
//   3. in-place lower Cholesky factor of s_A, column by column (every lane computes the pivot redundantly, so
//      all lanes take the same failure branch without a shuffle);
//   4. forward then backward substitution on dq.
// A pivot d counts as non-positive-definite when d <= N·ε·max_i A_ii (ε of T): an exactly rank-deficient J
// leaves pivots at rounding level, so "d <= 0" alone would not catch it. With CHECK, such a pivot stops the
// factorisation, dq is set to zero (a safe "no step") and *s_fail = 1; otherwise *s_fail = 0 (s_fail may be
// nullptr). Without CHECK the factorisation runs on (a singular system then yields inf/NaN).
// On return the lower triangle of s_A holds the Cholesky factor L of the shifted matrix (up to the failing
// column on failure) and its strict upper triangle the shifted normal matrix.
//
// J (M×N column-major) and r are read-only and may live anywhere; dq and s_A are warp-shared. Every lane of
// the warp must call. On the host (warp_size() == 1) the same code runs serially.
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace glass {

namespace gn_detail {

template <typename T>
GLASS_HD constexpr T eps_of() {
    return sizeof(T) <= 4 ? T(1.1920928955078125e-7) : T(2.220446049250313e-16);
}

}  // namespace gn_detail

// Bytes of the N×N normal-matrix scratch s_A of warp::gn_step.
template <typename T, uint32_t N>
GLASS_HD constexpr std::size_t gn_step_scratch_bytes() {
    return std::size_t(N) * std::size_t(N) * sizeof(T);
}

namespace warp {

using glass::gn_step_scratch_bytes;

template <typename T, uint32_t M, uint32_t N, bool REGULARIZE = true, bool CHECK = true, bool REG_DIAG = true>
GLASS_HD void gn_step(const T* J, const T* r, T lambda, T* dq, T* s_A, int* s_fail = nullptr) {
    static_assert(N >= 1u && M >= 1u, "gn_step needs a non-empty Jacobian");
    using std::sqrt;
    const uint32_t lane = warp_rank(), width = warp_size();

    // 1. Normal equations.
    for (uint32_t k = lane; k < N * N; k += width) {
        const T* ci = J + M * (k % N);
        const T* cj = J + M * (k / N);
        T acc = T(0);
        for (uint32_t m = 0; m < M; ++m) acc += ci[m] * cj[m];
        s_A[k] = acc;
    }
    for (uint32_t i = lane; i < N; i += width) {
        const T* ci = J + M * i;
        T acc = T(0);
        for (uint32_t m = 0; m < M; ++m) acc += ci[m] * r[m];
        dq[i] = acc;
    }
    warp_sync();

    // 2. Damping: each lane owns its diagonal entries, so the read-modify-write needs no barrier inside.
    if constexpr (REGULARIZE) {
        for (uint32_t i = lane; i < N; i += width) {
            T& d = s_A[i + N * i];
            d += lambda * (REG_DIAG ? d : T(1));
        }
        warp_sync();
    } else {
        (void)lambda;
    }

    // 3. Cholesky (left-looking).
    T tol = T(0);
    if constexpr (CHECK) {
        T amax = T(0);
        for (uint32_t i = 0; i < N; ++i) amax = s_A[i + N * i] > amax ? s_A[i + N * i] : amax;
        tol = T(N) * gn_detail::eps_of<T>() * amax;
    }
    bool failed = false;
    for (uint32_t j = 0; j < N; ++j) {
        T d = s_A[j + N * j];
        for (uint32_t k = 0; k < j; ++k) d -= s_A[j + N * k] * s_A[j + N * k];
        if constexpr (CHECK) {
            if (!(d > tol)) {  // NaN fails too
                failed = true;
                break;
            }
        }
        const T ljj = sqrt(d);
        // Rows below j read only columns < j (final) and their own entry, so they run concurrently.
        for (uint32_t i = j + 1u + lane; i < N; i += width) {
            T s = s_A[i + N * j];
            for (uint32_t k = 0; k < j; ++k) s -= s_A[i + N * k] * s_A[j + N * k];
            s_A[i + N * j] = s / ljj;
        }
        warp_sync();  // every lane has read the old diagonal before lane 0 overwrites it
        if (lane == 0u) s_A[j + N * j] = ljj;
        warp_sync();
    }
    if constexpr (CHECK) {
        if (failed) {
            for (uint32_t i = lane; i < N; i += width) dq[i] = T(0);
            if (lane == 0u && s_fail != nullptr) *s_fail = 1;
            warp_sync();
            return;
        }
        if (lane == 0u && s_fail != nullptr) *s_fail = 0;
    } else {
        (void)failed;
        (void)tol;
        (void)s_fail;
    }

    // 4. L·y = b (column sweep), then Lᵀ·x = y.
    for (uint32_t j = 0; j < N; ++j) {
        const T yj = dq[j] / s_A[j + N * j];
        for (uint32_t i = j + 1u + lane; i < N; i += width) dq[i] -= s_A[i + N * j] * yj;
        warp_sync();  // all lanes have read dq[j] before it is overwritten
        if (lane == 0u) dq[j] = yj;
        warp_sync();
    }
    for (uint32_t jj = N; jj-- > 0u;) {
        const T xj = dq[jj] / s_A[jj + N * jj];
        for (uint32_t i = lane; i < jj; i += width) dq[i] -= s_A[jj + N * i] * xj;
        warp_sync();
        if (lane == 0u) dq[jj] = xj;
        warp_sync();
    }
}

}  // namespace warp

}  // namespace glass
