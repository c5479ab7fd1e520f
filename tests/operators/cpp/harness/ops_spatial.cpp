// Harness calls of glass/spatial.cuh: every spec function of the spatial families, in each scope it exists
// in, float and double. Tags: [beta] HAS_BETA, [axis=k] AXIS = k, [inverse] INVERSE, [force] FORCE.
#include "glass/spatial.cuh"
#include "harness.h"

#include <cstdint>

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;
namespace sd = glass::spatial_detail;

enum Scope { THREAD, WARP, BLOCK };

// 6×6 builders: in one 6-vector (or E, r) -> 36 column-major entries (a: the inputs, M: the outputs).
#define GLASS_MATRIX_OP(opname, nin, call_thread, call_warp, call_block) \
    template <typename T, int SCOPE>                                     \
    bool opname(Call& c) {                                               \
        return run_io<T, nin, 36>(c, GLASS_HARNESS_BODY(Args<T> x) {     \
            const T* a = x.a;                                            \
            T* M = x.o;                                                  \
            if constexpr (SCOPE == THREAD) call_thread;                  \
            if constexpr (SCOPE == WARP) call_warp;                      \
            if constexpr (SCOPE == BLOCK) call_block;                    \
        });                                                              \
    }

GLASS_MATRIX_OP(motion_cross_op, 6, glass::thread::motion_cross<T>(a, M), glass::warp::motion_cross<T>(a, M),
                glass::motion_cross<T>(a, M))
GLASS_MATRIX_OP(force_cross_op, 6, glass::thread::force_cross<T>(a, M), glass::warp::force_cross<T>(a, M),
                glass::force_cross<T>(a, M))
GLASS_MATRIX_OP(force_cross_dual_op, 6, glass::thread::force_cross_dual<T>(a, M),
                glass::warp::force_cross_dual<T>(a, M), glass::force_cross_dual<T>(a, M))
GLASS_MATRIX_OP(motion_transform_op, 12, glass::thread::motion_transform<T>(a, a + 9, M),
                glass::warp::motion_transform<T>(a, a + 9, M), glass::motion_transform<T>(a, a + 9, M))
GLASS_MATRIX_OP(force_transform_op, 12, glass::thread::force_transform<T>(a, a + 9, M),
                glass::warp::force_transform<T>(a, a + 9, M), glass::force_transform<T>(a, a + 9, M))
GLASS_MATRIX_OP(spatial_inertia_op, 10, glass::thread::spatial_inertia<T>(a, M), glass::warp::spatial_inertia<T>(a, M),
                glass::spatial_inertia<T>(a, M))
#undef GLASS_MATRIX_OP

// Fused products: in alpha, operand block (k values), x (6), beta, y (6) -> y (updated in place in the
// inputs). The operand is v (6), (E, r) (12) or pi (10).
template <typename T, int SCOPE, int AXIS, bool HB>
bool motion_cross_mul_op(Call& c) {
    return run_io<T, 20, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a;
        const T* xv = AXIS >= 0 ? nullptr : a + 7;
        T* y = a + 14;
        if constexpr (SCOPE == THREAD) glass::thread::motion_cross_mul<T, AXIS, HB>(a[0], a + 1, xv, a[13], y);
        if constexpr (SCOPE == WARP) glass::warp::motion_cross_mul<T, AXIS, HB>(a[0], a + 1, xv, a[13], y);
        if constexpr (SCOPE == BLOCK) glass::motion_cross_mul<T, AXIS, HB>(a[0], a + 1, xv, a[13], y);
        x.put(y, 6);
    });
}

template <typename T, int SCOPE, bool HB>
bool force_cross_mul_op(Call& c) {
    return run_io<T, 20, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a;
        T* y = a + 14;
        if constexpr (SCOPE == THREAD) glass::thread::force_cross_mul<T, HB>(a[0], a + 1, a + 7, a[13], y);
        if constexpr (SCOPE == WARP) glass::warp::force_cross_mul<T, HB>(a[0], a + 1, a + 7, a[13], y);
        if constexpr (SCOPE == BLOCK) glass::force_cross_mul<T, HB>(a[0], a + 1, a + 7, a[13], y);
        x.put(y, 6);
    });
}

template <typename T, int SCOPE, bool FORCE, bool INV, bool HB>
bool transform_mul_op(Call& c) {
    return run_io<T, 26, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a;
        const T *E = a + 1, *r = a + 10, *v = a + 13;
        T* y = a + 20;
        if constexpr (!FORCE) {
            if constexpr (SCOPE == THREAD) glass::thread::motion_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
            if constexpr (SCOPE == WARP) glass::warp::motion_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
            if constexpr (SCOPE == BLOCK) glass::motion_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
        } else {
            if constexpr (SCOPE == THREAD) glass::thread::force_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
            if constexpr (SCOPE == WARP) glass::warp::force_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
            if constexpr (SCOPE == BLOCK) glass::force_transform_mul<T, INV, HB>(a[0], E, r, v, a[19], y);
        }
        x.put(y, 6);
    });
}

template <typename T, int SCOPE, bool HB>
bool spatial_inertia_mul_op(Call& c) {
    return run_io<T, 24, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a;
        T* y = a + 18;
        if constexpr (SCOPE == THREAD) glass::thread::spatial_inertia_mul<T, HB>(a[0], a + 1, a + 11, a[17], y);
        if constexpr (SCOPE == WARP) glass::warp::spatial_inertia_mul<T, HB>(a[0], a + 1, a + 11, a[17], y);
        if constexpr (SCOPE == BLOCK) glass::spatial_inertia_mul<T, HB>(a[0], a + 1, a + 11, a[17], y);
        x.put(y, 6);
    });
}

// Serial building blocks (scope-free): every entry of the matrix they define.
template <typename T, int WHICH>
bool entry_op(Call& c) {
    return run_io<T, WHICH == 3 ? 10 : 6, 36>(c, GLASS_HARNESS_BODY(Args<T> x) {
        for (uint32_t k = 0; k < 36u; ++k) {
            const uint32_t r = k % 6u, col = k / 6u;
            T e = T(0);
            if constexpr (WHICH == 0) e = sd::motion_cross_entry(r, col, x.a);
            if constexpr (WHICH == 1) e = sd::force_cross_entry(r, col, x.a);
            if constexpr (WHICH == 2) e = sd::force_cross_dual_entry(r, col, x.a);
            if constexpr (WHICH == 3) e = sd::inertia_entry(r, col, x.a);
            x.o[k] = e;
        }
    });
}

// Rows of a fused cross product: in v (6), x (6) -> 6 rows.
template <typename T, bool FORCE>
bool mul_row_op(Call& c) {
    return run_io<T, 12, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        for (uint32_t r = 0; r < 6u; ++r)
            x.o[r] = FORCE ? sd::force_cross_mul_row(r, x.a, x.a + 6) : sd::motion_cross_mul_row(r, x.a, x.a + 6);
    });
}

// in E (9), r (3) -> the 3×3 block −E[r]× (column-major), or all 36 entries of the (force) transform.
template <typename T>
bool xform_skew_entry_op(Call& c) {
    return run_io<T, 12, 9>(c, GLASS_HARNESS_BODY(Args<T> x) {
        for (uint32_t k = 0; k < 9u; ++k) x.o[k] = sd::xform_skew_entry(k % 3u, k / 3u, x.a, x.a + 9);
    });
}

template <typename T, bool FORCE>
bool xform_entry_op(Call& c) {
    return run_io<T, 12, 36>(c, GLASS_HARNESS_BODY(Args<T> x) {
        for (uint32_t k = 0; k < 36u; ++k) x.o[k] = sd::xform_entry<T, FORCE>(k % 6u, k / 6u, x.a, x.a + 9);
    });
}

// in E (9), r (3), v (6) -> X·v (or X⁻¹·v).
template <typename T, bool FORCE, bool INV>
bool transform_core_op(Call& c) {
    return run_io<T, 18, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (FORCE) sd::force_transform_mul_core<T, INV>(x.a, x.a + 9, x.a + 12, x.o);
        else sd::motion_transform_mul_core<T, INV>(x.a, x.a + 9, x.a + 12, x.o);
    });
}

// in pi (10), v (6) -> I·v.
template <typename T>
bool spatial_inertia_mul_core_op(Call& c) {
    return run_io<T, 16, 6>(c, GLASS_HARNESS_BODY(Args<T> x) { sd::spatial_inertia_mul_core(x.a, x.a + 10, x.o); });
}

// 3-vector helpers: in E (9) or a (3), x (3) -> 3.
template <typename T, int WHICH>
bool vec3_op(Call& c) {
    return run_io<T, WHICH == 2 ? 6 : 12, 3>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (WHICH == 0) sd::rot_apply(x.a, x.a + 9, x.o);
        if constexpr (WHICH == 1) sd::rot_apply_t(x.a, x.a + 9, x.o);
        if constexpr (WHICH == 2) sd::cross3(x.a, x.a + 3, x.o);
    });
}

// blend_out<T, 6, HB> as one thread of a one-thread group: in alpha, tmp (6), beta, y (6) -> y.
template <typename T, bool HB>
bool blend_out_op(Call& c) {
    return run_io<T, 14, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* y = x.a + 8;
        sd::blend_out<T, 6, HB>(0u, 1u, x.a[0], x.a + 1, x.a[7], y);
        x.put(y, 6);
    });
}

}  // namespace

#define GLASS_SCOPED(name, op, ...)                                 \
    GLASS_HARNESS_OP_T(name "/thread", op, THREAD, ##__VA_ARGS__); \
    GLASS_HARNESS_OP_T(name "/warp", op, WARP, ##__VA_ARGS__);     \
    GLASS_HARNESS_OP_T(name "/block", op, BLOCK, ##__VA_ARGS__)

GLASS_SCOPED("motion_cross", motion_cross_op);
GLASS_SCOPED("force_cross", force_cross_op);
GLASS_SCOPED("force_cross_dual", force_cross_dual_op);
GLASS_SCOPED("motion_transform", motion_transform_op);
GLASS_SCOPED("force_transform", force_transform_op);
GLASS_SCOPED("spatial_inertia", spatial_inertia_op);

GLASS_SCOPED("motion_cross_mul", motion_cross_mul_op, -1, false);
GLASS_SCOPED("motion_cross_mul[beta]", motion_cross_mul_op, -1, true);
GLASS_SCOPED("motion_cross_mul[axis=0]", motion_cross_mul_op, 0, false);
GLASS_SCOPED("motion_cross_mul[axis=2,beta]", motion_cross_mul_op, 2, true);
GLASS_SCOPED("motion_cross_mul[axis=3]", motion_cross_mul_op, 3, false);
GLASS_SCOPED("motion_cross_mul[axis=5,beta]", motion_cross_mul_op, 5, true);
GLASS_SCOPED("force_cross_mul", force_cross_mul_op, false);
GLASS_SCOPED("force_cross_mul[beta]", force_cross_mul_op, true);
GLASS_SCOPED("motion_transform_mul", transform_mul_op, false, false, false);
GLASS_SCOPED("motion_transform_mul[beta]", transform_mul_op, false, false, true);
GLASS_SCOPED("motion_transform_mul[inverse]", transform_mul_op, false, true, false);
GLASS_SCOPED("motion_transform_mul[inverse,beta]", transform_mul_op, false, true, true);
GLASS_SCOPED("force_transform_mul", transform_mul_op, true, false, false);
GLASS_SCOPED("force_transform_mul[beta]", transform_mul_op, true, false, true);
GLASS_SCOPED("force_transform_mul[inverse]", transform_mul_op, true, true, false);
GLASS_SCOPED("force_transform_mul[inverse,beta]", transform_mul_op, true, true, true);
GLASS_SCOPED("spatial_inertia_mul", spatial_inertia_mul_op, false);
GLASS_SCOPED("spatial_inertia_mul[beta]", spatial_inertia_mul_op, true);

GLASS_HARNESS_OP_T("motion_cross_entry/detail", entry_op, 0);
GLASS_HARNESS_OP_T("force_cross_entry/detail", entry_op, 1);
GLASS_HARNESS_OP_T("force_cross_dual_entry/detail", entry_op, 2);
GLASS_HARNESS_OP_T("inertia_entry/detail", entry_op, 3);
GLASS_HARNESS_OP_T("motion_cross_mul_row/detail", mul_row_op, false);
GLASS_HARNESS_OP_T("force_cross_mul_row/detail", mul_row_op, true);
GLASS_HARNESS_OP_T("xform_skew_entry/detail", xform_skew_entry_op);
GLASS_HARNESS_OP_T("xform_entry/detail", xform_entry_op, false);
GLASS_HARNESS_OP_T("xform_entry[force]/detail", xform_entry_op, true);
GLASS_HARNESS_OP_T("motion_transform_mul_core/detail", transform_core_op, false, false);
GLASS_HARNESS_OP_T("motion_transform_mul_core[inverse]/detail", transform_core_op, false, true);
GLASS_HARNESS_OP_T("force_transform_mul_core/detail", transform_core_op, true, false);
GLASS_HARNESS_OP_T("force_transform_mul_core[inverse]/detail", transform_core_op, true, true);
GLASS_HARNESS_OP_T("spatial_inertia_mul_core/detail", spatial_inertia_mul_core_op);
GLASS_HARNESS_OP_T("rot_apply/detail", vec3_op, 0);
GLASS_HARNESS_OP_T("rot_apply_t/detail", vec3_op, 1);
GLASS_HARNESS_OP_T("cross3/detail", vec3_op, 2);
GLASS_HARNESS_OP_T("blend_out/detail", blend_out_op, false);
GLASS_HARNESS_OP_T("blend_out[beta]/detail", blend_out_op, true);
