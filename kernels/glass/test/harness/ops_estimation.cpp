// Harness calls of glass/estimation.cuh: eig3 / svd3 / closest_rotation at every scope, and the est_detail
// helpers (scope "est_detail").
#include "glass/estimation.cuh"
#include "harness.h"

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

enum Scope { THREAD, WARP, BLOCK, DETAIL };

// eig3: in A (9, column-major) -> W (3, ascending), V (9)
template <typename T, int SCOPE>
bool eig3_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 9 || n_out != 12) return false;
    auto a = cast_in<T>(in, 9);
    auto o = poisoned<T>(12);
    if constexpr (SCOPE == THREAD) glass::thread::eig3<T>(a.data(), o.data(), o.data() + 3);
    if constexpr (SCOPE == WARP) glass::warp::eig3<T>(a.data(), o.data(), o.data() + 3);
    if constexpr (SCOPE == BLOCK) glass::eig3<T>(a.data(), o.data(), o.data() + 3);
    if constexpr (SCOPE == DETAIL) glass::est_detail::eig3_core<T>(a.data(), o.data(), o.data() + 3);
    cast_out(o.data(), 12, out);
    return true;
}

// svd3: in A (9) -> U (9), S (3), V (9)
template <typename T, int SCOPE>
bool svd3_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 9 || n_out != 21) return false;
    auto a = cast_in<T>(in, 9);
    auto o = poisoned<T>(21);
    T* u = o.data();
    T* s = o.data() + 9;
    T* v = o.data() + 12;
    if constexpr (SCOPE == THREAD) glass::thread::svd3<T>(a.data(), u, s, v);
    if constexpr (SCOPE == WARP) glass::warp::svd3<T>(a.data(), u, s, v);
    if constexpr (SCOPE == BLOCK) glass::svd3<T>(a.data(), u, s, v);
    if constexpr (SCOPE == DETAIL) glass::est_detail::svd3_core<T>(a.data(), u, s, v);
    cast_out(o.data(), 21, out);
    return true;
}

// closest_rotation: in A (9) -> R (9)
template <typename T, int SCOPE>
bool closest_rotation_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 9 || n_out != 9) return false;
    auto a = cast_in<T>(in, 9);
    auto r = poisoned<T>(9);
    if constexpr (SCOPE == THREAD) glass::thread::closest_rotation<T>(a.data(), r.data());
    if constexpr (SCOPE == WARP) glass::warp::closest_rotation<T>(a.data(), r.data());
    if constexpr (SCOPE == BLOCK) glass::closest_rotation<T>(a.data(), r.data());
    if constexpr (SCOPE == DETAIL) glass::est_detail::closest_rotation_core<T>(a.data(), r.data());
    cast_out(r.data(), 9, out);
    return true;
}

// det3: in A (9) -> det (1)
template <typename T>
bool det3_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 9 || n_out != 1) return false;
    auto a = cast_in<T>(in, 9);
    out[0] = double(glass::est_detail::det3<T>(a.data()));
    return true;
}

// dot3: in a (3), b (3) -> a·b (1)
template <typename T>
bool dot3_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 6 || n_out != 1) return false;
    auto a = cast_in<T>(in, 6);
    out[0] = double(glass::est_detail::dot3<T>(a.data(), a.data() + 3));
    return true;
}

// perp3: in u (3) -> unit vector orthogonal to u (3)
template <typename T>
bool perp3_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 3 || n_out != 3) return false;
    auto u = cast_in<T>(in, 3);
    auto o = poisoned<T>(3);
    glass::est_detail::perp3<T>(u.data(), o.data());
    cast_out(o.data(), 3, out);
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("eig3/thread", eig3_op, THREAD);
GLASS_HARNESS_OP_T("eig3/warp", eig3_op, WARP);
GLASS_HARNESS_OP_T("eig3/block", eig3_op, BLOCK);
GLASS_HARNESS_OP_T("eig3_core/est_detail", eig3_op, DETAIL);
GLASS_HARNESS_OP_T("svd3/thread", svd3_op, THREAD);
GLASS_HARNESS_OP_T("svd3/warp", svd3_op, WARP);
GLASS_HARNESS_OP_T("svd3/block", svd3_op, BLOCK);
GLASS_HARNESS_OP_T("svd3_core/est_detail", svd3_op, DETAIL);
GLASS_HARNESS_OP_T("closest_rotation/thread", closest_rotation_op, THREAD);
GLASS_HARNESS_OP_T("closest_rotation/warp", closest_rotation_op, WARP);
GLASS_HARNESS_OP_T("closest_rotation/block", closest_rotation_op, BLOCK);
GLASS_HARNESS_OP_T("closest_rotation_core/est_detail", closest_rotation_op, DETAIL);
GLASS_HARNESS_OP_T("det3/est_detail", det3_op);
GLASS_HARNESS_OP_T("dot3/est_detail", dot3_op);
GLASS_HARNESS_OP_T("perp3/est_detail", perp3_op);
