// Second-order cones for constrained trajectory optimization: margins, the Euclidean projection and the
// conic PHR augmented-Lagrangian term.
//
// K = {g ∈ R^m : ‖g[1:m]‖ ≤ g[0]} (row 0 is the cone axis). The cones of interest are small (m ≲ 16:
// friction cones, thrust cones), so the scalar metrics are serial per-caller loops (tier-free) and only the
// array-valued projection exists at three scopes sharing one serial core:
//   * glass::        block scope (block-stride writes, then trailing_sync<TRAILING_SYNC>());
//   * glass::warp    warp scope (lane-stride writes, then warp_sync());
//   * glass::thread  one thread; the output may alias the input.
// Every cooperating thread recomputes the tail norm itself (m is small), so the block and warp forms need
// no scratch and a single barrier; their output must not alias the input (a strided writer would race a
// reader still summing the tail).
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

namespace proj_detail {

// Σ_{i>=1} g[i]², the squared tail norm.
template <typename T>
GLASS_HD T tail_sq(const T* g, int32_t m) {
    T s = T(0);
    for (int32_t i = 1; i < m; ++i) s += g[i] * g[i];
    return s;
}

// How Π_K acts on w = (w0, w̄) with r = ‖w̄‖: as the identity (w ∈ K), as zero (w in the polar cone −K*),
// or as the scaling of the boundary case, p0 = α and p̄ = (α/r)·w̄ with α = (w0 + r)/2. The case tests use
// <= so that points exactly on either boundary take the exact (identity / zero) branch.
// Returns 0 inside K, 1 on the polar cone, 2 for the boundary projection.
template <typename T>
GLASS_HD int soc_case(T w0, T r) {
    if (r <= w0) return 0;
    if (r <= -w0) return 1;
    return 2;
}

// Entries [begin, m) with stride `step` of p = Π_K(w); w0 and r are precomputed so p may alias w at
// thread scope (entry i of p reads only entry i of w).
template <typename T>
GLASS_HD void soc_project_entries(const T* w, T* p, int32_t m, T w0, T r, int32_t begin, int32_t step) {
    const int kind = soc_case(w0, r);
    const T alpha = T(0.5) * (w0 + r);
    // r > 0 in the boundary case (r > |w0| >= 0), so the division is safe.
    const T scale = kind == 2 ? alpha / r : T(0);
    for (int32_t i = begin; i < m; i += step) {
        if (kind == 0) {
            p[i] = w[i];
        } else if (kind == 1) {
            p[i] = T(0);
        } else {
            p[i] = i == 0 ? alpha : scale * w[i];
        }
    }
}

}  // namespace proj_detail

// Norm of the cone tail ‖g[1:m]‖ (serial, tier-free).
template <typename T>
GLASS_HD T soc_tail_norm(const T* g, int32_t m) {
    using std::sqrt;
    return sqrt(proj_detail::tail_sq(g, m));
}

// Second-order-cone margin violation max(0, ‖g[1:]‖ − g[0]) (0 inside the cone; not the distance to K).
template <typename T>
GLASS_HD T soc_violation(const T* g, int32_t m) {
    if (m <= 0) return T(0);
    const T v = soc_tail_norm(g, m) - g[0];
    return v > T(0) ? v : T(0);
}

// Block-scope Euclidean projection onto the second-order cone, p = Π_K(w) (p must not alias w).
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void soc_project(const T* w, T* p, int32_t m) {
    if (m > 0) {
        const T r = soc_tail_norm(w, m);
        proj_detail::soc_project_entries(w, p, m, w[0], r, int32_t(block_rank()), int32_t(block_size()));
    }
    trailing_sync<TRAILING_SYNC>();
}

// Conic PHR augmented-Lagrangian value φ = (‖Π_K(λ − ρg)‖² − ‖λ‖²)/(2ρ), without forming the projection:
// ‖Π_K(w)‖² is ‖w‖² inside K, 0 on the polar cone and 2α² (α = (w0 + r)/2) on the boundary case.
template <typename T>
GLASS_HD T al_soc_value(const T* g, const T* lam, T rho, int32_t m) {
    using std::sqrt;
    if (m <= 0) return T(0);
    T lam_sq = lam[0] * lam[0], tail = T(0);
    for (int32_t i = 1; i < m; ++i) {
        const T wi = lam[i] - rho * g[i];
        tail += wi * wi;
        lam_sq += lam[i] * lam[i];
    }
    const T w0 = lam[0] - rho * g[0], r = sqrt(tail);
    T proj_sq;
    switch (proj_detail::soc_case(w0, r)) {
        case 0:
            proj_sq = w0 * w0 + tail;
            break;
        case 1:
            proj_sq = T(0);
            break;
        default: {
            const T alpha = T(0.5) * (w0 + r);
            proj_sq = T(2) * alpha * alpha;
        }
    }
    return (proj_sq - lam_sq) / (T(2) * rho);
}

namespace warp {

// Single-warp SOC projection (p must not alias w). See glass::soc_project.
template <typename T>
GLASS_HD void soc_project(const T* w, T* p, int32_t m) {
    if (m > 0) {
        const T r = glass::soc_tail_norm(w, m);
        proj_detail::soc_project_entries(w, p, m, w[0], r, int32_t(warp_rank()), int32_t(warp_size()));
    }
    warp_sync();
}

}  // namespace warp

namespace thread {

// Single-thread SOC projection; p may alias w (w0 and the tail norm are read before any write).
template <typename T>
GLASS_HD void soc_project(const T* w, T* p, int32_t m) {
    if (m <= 0) return;
    const T r = glass::soc_tail_norm(w, m);
    proj_detail::soc_project_entries(w, p, m, w[0], r, 0, 1);
}

}  // namespace thread

}  // namespace glass
