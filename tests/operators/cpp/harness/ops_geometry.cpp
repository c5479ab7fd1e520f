// Harness calls of glass/geometry.cuh (scalar, tier-free operators: scope "scalar").
#include "glass/geometry.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

// sphere_sphere_dist: in c1 (3), r1, c2 (3), r2 -> d (1), or with GRAD d, ∂d/∂c1 (3)
template <typename T, bool GRAD>
bool sphere_sphere_op(Call& c) {
    return run_io<T, 8, GRAD ? 4 : 1>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        if constexpr (GRAD) {
            x.o[0] = glass::sphere_sphere_dist<T>(a, a[3], a + 4, a[7], x.o + 1);
        } else {
            x.o[0] = glass::sphere_sphere_dist<T>(a, a[3], a + 4, a[7]);
        }
    });
}

// sphere_box_dist: in c (3), r, half (3) -> d (1), or with GRAD d, ∂d/∂c (3)
template <typename T, bool GRAD>
bool sphere_box_op(Call& c) {
    return run_io<T, 7, GRAD ? 4 : 1>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        if constexpr (GRAD) {
            x.o[0] = glass::sphere_box_dist<T>(a, a[3], a + 4, x.o + 1);
        } else {
            x.o[0] = glass::sphere_box_dist<T>(a, a[3], a + 4);
        }
    });
}

// transform_sphere: in q (4, layout L), p (3), sph (4) -> sphere (4); ALIAS writes over sph in place
template <typename T, glass::QuatLayout L, bool ALIAS>
bool transform_sphere_op(Call& c) {
    return run_io<T, 11, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a;
        if constexpr (ALIAS) {
            glass::transform_sphere<T, L>(a, a + 4, a + 7, a + 7);
            x.put(a + 7, 4);
        } else {
            glass::transform_sphere<T, L>(a, a + 4, a + 7, x.o);
        }
    });
}

// frame_from_vector: in n (3, unit) -> t (3), b (3)
template <typename T>
bool frame_from_vector_op(Call& c) {
    return run_io<T, 3, 6>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::frame_from_vector<T>(x.a, x.o, x.o + 3); });
}

// segment_segment_closest: in p1, q1, p2, q2 (3 each) -> d², s, t, c1 (3), c2 (3)
template <typename T>
bool segment_segment_closest_op(Call& c) {
    return run_io<T, 12, 9>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        T s = T(NAN), t = T(NAN);
        x.o[0] = glass::segment_segment_closest<T>(a, a + 3, a + 6, a + 9, s, t, x.o + 3, x.o + 6);
        x.o[1] = s;
        x.o[2] = t;
    });
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
