// Rigid transforms as (E, r) pairs (thread scope): composition and conversion to user-facing poses.
#pragma once

#include "glass/scope.cuh"

namespace grid {

// c = a·b for column-major 3×3 matrices (c must not alias a or b).
template <typename T>
GLASS_HD void mat3_mul(const T* a, const T* b, T* c) {
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
            c[i + 3 * j] = a[i] * b[3 * j] + a[i + 3] * b[3 * j + 1] + a[i + 6] * b[3 * j + 2];
}

// y = Eᵀ·x for a column-major 3×3 E.
template <typename T>
GLASS_HD void mat3_tmul(const T* e, const T* x, T* y) {
    for (int j = 0; j < 3; ++j) y[j] = e[3 * j] * x[0] + e[3 * j + 1] * x[1] + e[3 * j + 2] * x[2];
}

// Composes the A→B transform (Eab, rab) with the B→C transform (Ebc, rbc) into A→C:
// E = Ebc·Eab, r = rab + Eabᵀ·rbc. Outputs must not alias inputs.
template <typename T>
GLASS_HD void transform_compose(const T* Eab, const T* rab, const T* Ebc, const T* rbc, T* E, T* r) {
    mat3_mul(Ebc, Eab, E);
    T s[3];
    mat3_tmul(Eab, rbc, s);
    for (int k = 0; k < 3; ++k) r[k] = rab[k] + s[k];
}

// The pose of frame B in frame A from the A→B transform: rotation R = Eᵀ written row-major (as NumPy
// reads a [3, 3] array) and position r.
template <typename T>
GLASS_HD void transform_to_pose(const T* E, const T* r, T* position, T* rotation_row_major) {
    for (int k = 0; k < 3; ++k) position[k] = r[k];
    // R(i, j) = E(j, i); E column-major stores E(j, i) at j + 3i; row-major R(i, j) sits at 3i + j.
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) rotation_row_major[3 * i + j] = E[j + 3 * i];
}

}  // namespace grid
