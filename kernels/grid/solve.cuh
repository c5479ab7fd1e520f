// Small symmetric positive-definite solves of the algorithm templates (thread scope): a free-flyer's 6×6
// articulated inertia. Cholesky, fully unrolled; a matrix that is not positive definite gives NaN.
#pragma once

#include "glass/scope.cuh"
#include "grid/body.cuh"

#include <cmath>

namespace grid {

// The Cholesky factor L (lower, row-major packed by rows: L(i, j) at i(i+1)/2 + j) of the dense
// symmetric 6×6 in motion-coordinate order [ω; v].
template <typename T>
struct Cholesky6 {
    T L[21];
    T inv_diag[6];
};

template <typename T>
GLASS_HD T sym6_entry(const Sym6<T>& I, int i, int j) {
    if (i < 3 && j < 3) return I.A(i, j);
    if (i >= 3 && j >= 3) return I.C(i - 3, j - 3);
    return i < 3 ? I.B(i, j - 3) : I.B(j, i - 3);
}

template <typename T>
GLASS_HD Cholesky6<T> cholesky(const Sym6<T>& I) {
    using std::sqrt;
    Cholesky6<T> f;
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j <= i; ++j) {
            T s = sym6_entry(I, i, j);
            for (int k = 0; k < j; ++k) s -= f.L[i * (i + 1) / 2 + k] * f.L[j * (j + 1) / 2 + k];
            if (i == j) {
                const T d = s > T(0) ? sqrt(s) : T(glass::quiet_nan());
                f.L[i * (i + 1) / 2 + i] = d;
                f.inv_diag[i] = T(1) / d;
            } else {
                f.L[i * (i + 1) / 2 + j] = s * f.inv_diag[j];
            }
        }
    }
    return f;
}

// x = I⁻¹·b from I's Cholesky factor.
template <typename T>
GLASS_HD Spatial<T> cholesky_solve(const Cholesky6<T>& f, const Spatial<T>& b) {
    T y[6] = {b.ang[0], b.ang[1], b.ang[2], b.lin[0], b.lin[1], b.lin[2]};
    for (int i = 0; i < 6; ++i) {
        T s = y[i];
        for (int k = 0; k < i; ++k) s -= f.L[i * (i + 1) / 2 + k] * y[k];
        y[i] = s * f.inv_diag[i];
    }
    for (int i = 5; i >= 0; --i) {
        T s = y[i];
        for (int k = i + 1; k < 6; ++k) s -= f.L[k * (k + 1) / 2 + i] * y[k];
        y[i] = s * f.inv_diag[i];
    }
    return Spatial<T>{{{y[0], y[1], y[2]}}, {{y[3], y[4], y[5]}}};
}

// x = I⁻¹·b.
template <typename T>
GLASS_HD Spatial<T> solve_spd(const Sym6<T>& I, const Spatial<T>& b) {
    return cholesky_solve(cholesky(I), b);
}

}  // namespace grid
