// Rigid transforms as (E, r) pairs (thread scope): composition and conversion to user-facing poses.
#pragma once

#include "glass/scope.cuh"
#include "glass/so3.cuh"
#include "glass/spatial.cuh"

namespace grid {

// Composes the A→B transform (Eab, rab) with the B→C transform (Ebc, rbc) into A→C:
// E = Ebc·Eab, r = rab + Eabᵀ·rbc. Outputs must not alias inputs.
template <typename T>
GLASS_HD void transform_compose(const T* Eab, const T* rab, const T* Ebc, const T* rbc, T* E, T* r) {
    glass::lie_detail::mat3_mul_core(Ebc, Eab, E);
    T s[3];
    glass::spatial_detail::rot_apply_t(Eab, rbc, s);
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
