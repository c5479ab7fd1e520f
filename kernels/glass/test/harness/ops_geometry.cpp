// Harness calls of glass/geometry.cuh (scalar, tier-free operators: scope "scalar").
#include "glass/geometry.cuh"
#include "harness.h"

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

// sphere_sphere_dist: in c1 (3), r1, c2 (3), r2 -> d (1), or with GRAD d, ∂d/∂c1 (3)
template <typename T, bool GRAD>
bool sphere_sphere_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 8 || n_out != (GRAD ? 4 : 1)) return false;
    auto a = cast_in<T>(in, 8);
    if constexpr (GRAD) {
        auto g = poisoned<T>(3);
        out[0] = double(glass::sphere_sphere_dist<T>(a.data(), a[3], a.data() + 4, a[7], g.data()));
        cast_out(g.data(), 3, out + 1);
    } else {
        out[0] = double(glass::sphere_sphere_dist<T>(a.data(), a[3], a.data() + 4, a[7]));
    }
    return true;
}

// sphere_box_dist: in c (3), r, half (3) -> d (1), or with GRAD d, ∂d/∂c (3)
template <typename T, bool GRAD>
bool sphere_box_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 7 || n_out != (GRAD ? 4 : 1)) return false;
    auto a = cast_in<T>(in, 7);
    if constexpr (GRAD) {
        auto g = poisoned<T>(3);
        out[0] = double(glass::sphere_box_dist<T>(a.data(), a[3], a.data() + 4, g.data()));
        cast_out(g.data(), 3, out + 1);
    } else {
        out[0] = double(glass::sphere_box_dist<T>(a.data(), a[3], a.data() + 4));
    }
    return true;
}

// transform_sphere: in q (4, layout L), p (3), sph (4) -> sphere (4); ALIAS writes over sph in place
template <typename T, glass::QuatLayout L, bool ALIAS>
bool transform_sphere_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 11 || n_out != 4) return false;
    auto a = cast_in<T>(in, 11);
    if constexpr (ALIAS) {
        glass::transform_sphere<T, L>(a.data(), a.data() + 4, a.data() + 7, a.data() + 7);
        cast_out(a.data() + 7, 4, out);
    } else {
        auto o = poisoned<T>(4);
        glass::transform_sphere<T, L>(a.data(), a.data() + 4, a.data() + 7, o.data());
        cast_out(o.data(), 4, out);
    }
    return true;
}

// frame_from_vector: in n (3, unit) -> t (3), b (3)
template <typename T>
bool frame_from_vector_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 3 || n_out != 6) return false;
    auto n = cast_in<T>(in, 3);
    auto o = poisoned<T>(6);
    glass::frame_from_vector<T>(n.data(), o.data(), o.data() + 3);
    cast_out(o.data(), 6, out);
    return true;
}

// segment_segment_closest: in p1, q1, p2, q2 (3 each) -> d², s, t, c1 (3), c2 (3)
template <typename T>
bool segment_segment_closest_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 12 || n_out != 9) return false;
    auto a = cast_in<T>(in, 12);
    auto o = poisoned<T>(9);
    T s = T(NAN), t = T(NAN);
    o[0] = glass::segment_segment_closest<T>(a.data(), a.data() + 3, a.data() + 6, a.data() + 9, s, t,
                                             o.data() + 3, o.data() + 6);
    o[1] = s;
    o[2] = t;
    cast_out(o.data(), 9, out);
    return true;
}

constexpr glass::QuatLayout XYZW = glass::QuatLayout::xyzw;
constexpr glass::QuatLayout WXYZ = glass::QuatLayout::wxyz;

}  // namespace

GLASS_HARNESS_OP_T("sphere_sphere_dist/scalar", sphere_sphere_op, false);
GLASS_HARNESS_OP_T("sphere_sphere_dist[grad]/scalar", sphere_sphere_op, true);
GLASS_HARNESS_OP_T("sphere_box_dist/scalar", sphere_box_op, false);
GLASS_HARNESS_OP_T("sphere_box_dist[grad]/scalar", sphere_box_op, true);
GLASS_HARNESS_OP_T("transform_sphere[xyzw]/scalar", transform_sphere_op, XYZW, false);
GLASS_HARNESS_OP_T("transform_sphere[wxyz]/scalar", transform_sphere_op, WXYZ, false);
GLASS_HARNESS_OP_T("transform_sphere[xyzw,alias]/scalar", transform_sphere_op, XYZW, true);
GLASS_HARNESS_OP_T("frame_from_vector/scalar", frame_from_vector_op);
GLASS_HARNESS_OP_T("segment_segment_closest/scalar", segment_segment_closest_op);
