// Planar angles (SO(2) in radians): wrapping to the principal branch (−π, π], shortest-arc differences and
// interpolation, and the acos/asin domain guard. Scalar, scope-free: any thread may call them.
//
// The branch boundary is π rounded to T (pi<T>()), so angle_wrap(pi<T>()) == pi<T>() and
// angle_wrap(−pi<T>()) == pi<T>().
#pragma once

#include "scope.cuh"

#include <cmath>

namespace glass {

namespace lie_detail {

// π rounded to T.
template <typename T>
GLASS_HD T pi() {
    return T(3.14159265358979323846);
}

}  // namespace lie_detail

// x wrapped to (−π, π]. Inputs already in range are returned unchanged (bit-exact); others are shifted by the
// IEEE remainder against 2π, which is exact with respect to the rounded 2π (no accumulated error for large
// |x|), and its −π tie is moved to +π.
template <typename T>
GLASS_HD T angle_wrap(T x) {
    using std::remainder;
    const T p = lie_detail::pi<T>();
    if (x > -p && x <= p) return x;
    const T r = remainder(x, T(2) * p);
    return r <= -p ? r + T(2) * p : r;
}

// The shortest signed rotation taking b to a: angle_wrap(a − b), in (−π, π] (positive = counterclockwise).
template <typename T>
GLASS_HD T angle_diff(T a, T b) {
    return angle_wrap(a - b);
}

// Interpolation along the shortest arc from a (t = 0) to b (t = 1): angle_wrap(a + t·angle_diff(b, a)).
template <typename T>
GLASS_HD T angle_lerp(T a, T b, T t) {
    return angle_wrap(a + t * angle_diff(b, a));
}

// v clamped to [−1, 1] (guard before acos/asin of a nominally unit dot product). NaN passes through.
template <typename T>
GLASS_HD T clamp_unit(T v) {
    return v < T(-1) ? T(-1) : (v > T(1) ? T(1) : v);
}

}  // namespace glass
