// Small dense linear algebra for the dynamics kernels (column-major: entry (i, j) of an N×N matrix lives
// at [i + N·j]).
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

// Full unrolling of constant-trip loops: nvcc's device pass and clang take "unroll", GCC its own
// spelling; the host pass of nvcc gets nothing (its front end rejects the GCC form and GCC the other).
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define GLASS_LINALG_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define GLASS_LINALG_UNROLL _Pragma("GCC unroll 64")
#else
#define GLASS_LINALG_UNROLL
#endif

namespace glass {

namespace linalg_detail {

template <typename T>
GLASS_HD T sqrt_of(T x) {
    using std::sqrt;
    return sqrt(x);
}

// A quiet NaN, produced at run time (0/0 would be diagnosed and numeric_limits is not usable in device
// code without relaxed constexpr).
template <typename T>
GLASS_HD T quiet_nan() {
    return sqrt_of(T(-1));
}

}  // namespace linalg_detail

namespace thread {

// Ainv = A⁻¹ for a column-major N×N symmetric positive definite A (1 ≤ N ≤ 6), by the Cholesky
// factorisation A = L·Lᵀ and Ainv = L⁻ᵀ·L⁻¹. Only the lower triangle of A is read (the upper one is assumed
// to mirror it); all N² entries of Ainv are written and Ainv is exactly symmetric. Ainv may alias A (A is
// fully read before Ainv is written).
//
// Returns true on success. If A is not numerically positive definite (a Cholesky pivot is not > 0,
// NaN included), returns false and fills Ainv with NaN.
template <typename T, int N>
GLASS_HD bool spd_inverse(const T* A, T* Ainv) {
    static_assert(N >= 1 && N <= 6, "spd_inverse supports 1 <= N <= 6");
    // L: lower Cholesky factor, packed column-major in a full N×N array; inv_d: reciprocal diagonal of L.
    T L[N * N];
    T inv_d[N];
    bool ok = true;
    GLASS_LINALG_UNROLL
    for (int j = 0; j < N; ++j) {
        T d = A[j + N * j];
        GLASS_LINALG_UNROLL
        for (int k = 0; k < j; ++k) d -= L[j + N * k] * L[j + N * k];
        ok = ok && (d > T(0));
        const T ljj = linalg_detail::sqrt_of(d > T(0) ? d : T(1));
        L[j + N * j] = ljj;
        inv_d[j] = T(1) / ljj;
        GLASS_LINALG_UNROLL
        for (int i = j + 1; i < N; ++i) {
            T s = A[i + N * j];
            GLASS_LINALG_UNROLL
            for (int k = 0; k < j; ++k) s -= L[i + N * k] * L[j + N * k];
            L[i + N * j] = s * inv_d[j];
        }
    }
    if (!ok) {
        const T nan = linalg_detail::quiet_nan<T>();
        GLASS_LINALG_UNROLL
        for (int k = 0; k < N * N; ++k) Ainv[k] = nan;
        return false;
    }
    // W = L⁻¹ (lower triangular) by forward substitution, column by column.
    T W[N * N];
    GLASS_LINALG_UNROLL
    for (int j = 0; j < N; ++j) {
        W[j + N * j] = inv_d[j];
        GLASS_LINALG_UNROLL
        for (int i = j + 1; i < N; ++i) {
            T s = T(0);
            GLASS_LINALG_UNROLL
            for (int k = j; k < i; ++k) s -= L[i + N * k] * W[k + N * j];
            W[i + N * j] = s * inv_d[i];
        }
    }
    // Ainv = Wᵀ·W: (i, j) = Σ_{k ≥ max(i, j)} W(k, i)·W(k, j).
    GLASS_LINALG_UNROLL
    for (int j = 0; j < N; ++j) {
        GLASS_LINALG_UNROLL
        for (int i = j; i < N; ++i) {
            T s = T(0);
            GLASS_LINALG_UNROLL
            for (int k = i; k < N; ++k) s += W[k + N * i] * W[k + N * j];
            Ainv[i + N * j] = s;
            Ainv[j + N * i] = s;
        }
    }
    return true;
}

}  // namespace thread

}  // namespace glass
