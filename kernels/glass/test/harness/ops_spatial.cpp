// Harness calls of glass/spatial.cuh (a first set; the spatial family's exhaustive scope tests are
// glass/test/spatial_test.cpp).
#include "glass/spatial.cuh"
#include "harness.h"

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

// motion_cross: in v (6) -> M (36, column-major)
template <typename T, int SCOPE>
bool motion_cross_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 6 || n_out != 36) return false;
    auto v = cast_in<T>(in, 6);
    auto m = poisoned<T>(36);
    if constexpr (SCOPE == 0) glass::thread::motion_cross<T>(v.data(), m.data());
    if constexpr (SCOPE == 1) glass::warp::motion_cross<T>(v.data(), m.data());
    if constexpr (SCOPE == 2) glass::motion_cross<T>(v.data(), m.data());
    cast_out(m.data(), 36, out);
    return true;
}

// motion_cross_mul with beta: in alpha, v (6), x (6), beta, y (6) -> y (6)
template <typename T, int SCOPE>
bool motion_cross_mul_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 20 || n_out != 6) return false;
    auto a = cast_in<T>(in, 20);
    T* y = a.data() + 14;
    if constexpr (SCOPE == 0) glass::thread::motion_cross_mul<T, -1, true>(a[0], a.data() + 1, a.data() + 7, a[13], y);
    if constexpr (SCOPE == 1) glass::warp::motion_cross_mul<T, -1, true>(a[0], a.data() + 1, a.data() + 7, a[13], y);
    if constexpr (SCOPE == 2) glass::motion_cross_mul<T, -1, true>(a[0], a.data() + 1, a.data() + 7, a[13], y);
    cast_out(y, 6, out);
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("motion_cross/thread", motion_cross_op, 0);
GLASS_HARNESS_OP_T("motion_cross/warp", motion_cross_op, 1);
GLASS_HARNESS_OP_T("motion_cross/block", motion_cross_op, 2);
GLASS_HARNESS_OP_T("motion_cross_mul/thread", motion_cross_mul_op, 0);
GLASS_HARNESS_OP_T("motion_cross_mul/warp", motion_cross_mul_op, 1);
GLASS_HARNESS_OP_T("motion_cross_mul/block", motion_cross_mul_op, 2);
