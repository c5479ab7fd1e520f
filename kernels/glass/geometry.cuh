// Geometry distance primitives of sphere-decomposed collision checking: sphere-sphere and sphere-box signed
// distances (with gradients), rigid transforms of packed spheres [cx, cy, cz, r], an orthonormal frame from
// a unit vector and segment-segment closest points (capsules).
//
// All are scalar ("tier-free") functions in glass::: one thread computes one result, so there is no warp or
// block variant. Signed distances are positive when separated and negative when penetrating.
#pragma once

#include "quaternion.cuh"
#include "scope.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

namespace geom_detail {

template <typename T>
GLASS_HD T clamp01(T x) {
    return x < T(0) ? T(0) : (x > T(1) ? T(1) : x);
}

template <typename T>
GLASS_HD T dot3(const T* a, const T* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

}  // namespace geom_detail

// ‖c1 − c2‖ − (r1 + r2).
template <typename T>
GLASS_HD T sphere_sphere_dist(const T* c1, T r1, const T* c2, T r2) {
    using std::sqrt;
    const T d[3] = {c1[0] - c2[0], c1[1] - c2[1], c1[2] - c2[2]};
    return sqrt(geom_detail::dot3(d, d)) - (r1 + r2);
}

// The same with grad = ∂d/∂c1 = (c1 − c2)/‖c1 − c2‖; coincident centres (‖·‖ < 1e-12) give a zero gradient
// so the degenerate case is explicit instead of NaN.
template <typename T>
GLASS_HD T sphere_sphere_dist(const T* c1, T r1, const T* c2, T r2, T* grad) {
    using std::sqrt;
    const T d[3] = {c1[0] - c2[0], c1[1] - c2[1], c1[2] - c2[2]};
    const T n = sqrt(geom_detail::dot3(d, d));
    const T inv = n < T(1e-12) ? T(0) : T(1) / n;
    grad[0] = d[0] * inv;
    grad[1] = d[1] * inv;
    grad[2] = d[2] * inv;
    return n - (r1 + r2);
}

// Sphere vs the origin-centred axis-aligned box with half extents half (the sphere centre c given in the box
// frame). Box SDF with q_i = |c_i| − half_i: ‖max(q, 0)‖ + min(max_i q_i, 0); minus r. grad = ∂d/∂c: outside,
// the normalised offset from the nearest box point; inside (or on the surface), the outward normal of the
// face of largest q (ties go to the lower axis, c_i = 0 counts as the + face).
template <typename T>
GLASS_HD T sphere_box_dist(const T* c, T r, const T* half, T* grad) {
    using std::abs;
    using std::sqrt;
    T q[3], o[3], sgn[3];
    uint32_t kmax = 0;
    for (uint32_t i = 0; i < 3u; ++i) {
        q[i] = abs(c[i]) - half[i];
        o[i] = q[i] > T(0) ? q[i] : T(0);
        sgn[i] = c[i] < T(0) ? T(-1) : T(1);
        if (q[i] > q[kmax]) kmax = i;
    }
    const T out = sqrt(geom_detail::dot3(o, o));
    if (out > T(0)) {
        for (uint32_t i = 0; i < 3u; ++i) grad[i] = sgn[i] * o[i] / out;
        return out - r;
    }
    for (uint32_t i = 0; i < 3u; ++i) grad[i] = i == kmax ? sgn[i] : T(0);
    return q[kmax] - r;
}

// Distance-only sphere-box signed distance (see the gradient overload).
template <typename T>
GLASS_HD T sphere_box_dist(const T* c, T r, const T* half) {
    using std::abs;
    using std::sqrt;
    T o[3], qmax = abs(c[0]) - half[0];
    for (uint32_t i = 0; i < 3u; ++i) {
        const T q = abs(c[i]) - half[i];
        o[i] = q > T(0) ? q : T(0);
        qmax = q > qmax ? q : qmax;
    }
    return sqrt(geom_detail::dot3(o, o)) + (qmax < T(0) ? qmax : T(0)) - r;
}

// out = [R(q)·c + p; r] for sph = [c; r], q a unit quaternion in layout L. out may alias sph.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void transform_sphere(const T* q, const T* p, const T* sph, T* out) {
    constexpr uint32_t X = L == QuatLayout::xyzw ? 0u : 1u;
    constexpr uint32_t W = L == QuatLayout::xyzw ? 3u : 0u;
    const T u[3] = {q[X], q[X + 1u], q[X + 2u]};
    const T w = q[W];
    const T c[3] = {sph[0], sph[1], sph[2]};
    const T rad = sph[3];
    // R·c = c + 2w(u × c) + 2u × (u × c), with t = 2(u × c).
    const T t[3] = {T(2) * (u[1] * c[2] - u[2] * c[1]), T(2) * (u[2] * c[0] - u[0] * c[2]),
                    T(2) * (u[0] * c[1] - u[1] * c[0])};
    out[0] = c[0] + w * t[0] + (u[1] * t[2] - u[2] * t[1]) + p[0];
    out[1] = c[1] + w * t[1] + (u[2] * t[0] - u[0] * t[2]) + p[1];
    out[2] = c[2] + w * t[2] + (u[0] * t[1] - u[1] * t[0]) + p[2];
    out[3] = rad;
}

// Right-handed orthonormal {t, b, n} (t × b = n) for a unit n, branchless (Duff et al., JCGT 2017): the only
// discontinuity is across the sign change of n_z.
template <typename T>
GLASS_HD void frame_from_vector(const T* n, T* t, T* b) {
    using std::copysign;
    const T s = copysign(T(1), n[2]);
    const T a = T(-1) / (s + n[2]);
    const T c = n[0] * n[1] * a;
    t[0] = T(1) + s * n[0] * n[0] * a;
    t[1] = s * c;
    t[2] = -s * n[0];
    b[0] = c;
    b[1] = s + n[1] * n[1] * a;
    b[2] = -n[1];
}

// Closest points c1 = p1 + s·(q1 − p1), c2 = p2 + t·(q2 − p2) of two segments (Ericson, Real-Time Collision
// Detection §5.1.9); returns ‖c1 − c2‖². Guards are relative: a segment whose squared length is ≤ 1e-12
// times the other's counts as a point, and a pair with sin²(angle) ≤ 1e-12 as parallel: its minimum is taken
// over the four edges of the (s, t) square, which yields one minimising pair for overlapping parallel segments.
template <typename T>
GLASS_HD T segment_segment_closest(const T* p1, const T* q1, const T* p2, const T* q2, T& s, T& t, T* c1,
                                   T* c2) {
    using geom_detail::clamp01;
    using geom_detail::dot3;
    const T d1[3] = {q1[0] - p1[0], q1[1] - p1[1], q1[2] - p1[2]};
    const T d2[3] = {q2[0] - p2[0], q2[1] - p2[1], q2[2] - p2[2]};
    const T r[3] = {p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]};
    const T a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
    const T tiny = T(1e-12) * (a > e ? a : e);
    if (a <= tiny && e <= tiny) {
        s = T(0);
        t = T(0);
    } else if (a <= tiny) {
        s = T(0);
        t = clamp01(f / e);
    } else {
        const T c = dot3(d1, r);
        if (e <= tiny) {
            t = T(0);
            s = clamp01(-c / a);
        } else {
            const T b = dot3(d1, d2);
            const T denom = a * e - b * b;
            if (denom > T(1e-12) * a * e) {
                s = clamp01((b * f - c * e) / denom);
                const T tn = (b * s + f) / e;
                if (tn < T(0)) {
                    t = T(0);
                    s = clamp01(-c / a);
                } else if (tn > T(1)) {
                    t = T(1);
                    s = clamp01((b - c) / a);
                } else {
                    t = tn;
                }
            } else {
                // (Near-)parallel: the minimum lies on the boundary of [0, 1]² (exactly so when parallel), and
                // Ericson's s = 0 start can miss the best edge when the pair is only nearly parallel, so take
                // the least of the four edge optima.
                const T ss[4] = {T(0), T(1), clamp01(-c / a), clamp01((b - c) / a)};
                const T ts[4] = {clamp01(f / e), clamp01((b + f) / e), T(0), T(1)};
                T best = T(0);
                for (uint32_t k = 0; k < 4u; ++k) {
                    T v[3];
                    for (uint32_t i = 0; i < 3u; ++i) v[i] = r[i] + ss[k] * d1[i] - ts[k] * d2[i];
                    const T val = dot3(v, v);
                    if (k == 0u || val < best) {
                        best = val;
                        s = ss[k];
                        t = ts[k];
                    }
                }
            }
        }
    }
    T d[3];
    for (uint32_t i = 0; i < 3u; ++i) {
        c1[i] = p1[i] + s * d1[i];
        c2[i] = p2[i] + t * d2[i];
        d[i] = c1[i] - c2[i];
    }
    return dot3(d, d);
}

}  // namespace glass
