// Harness calls of glass/estimation.cuh: eig3 / svd3 / closest_rotation at every scope, and the est_detail
// helpers (scope "est_detail").
#include "glass/estimation.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

enum Scope { THREAD, WARP, BLOCK, DETAIL };

// eig3: in A (9, column-major) -> W (3, ascending), V (9)
template <typename T, int SCOPE>
bool eig3_op(Call& c) {
    return run_io<T, 9, 12>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == THREAD) glass::thread::eig3<T>(x.a, x.o, x.o + 3);
        if constexpr (SCOPE == WARP) glass::warp::eig3<T>(x.a, x.o, x.o + 3);
        if constexpr (SCOPE == BLOCK) glass::eig3<T>(x.a, x.o, x.o + 3);
        if constexpr (SCOPE == DETAIL) glass::est_detail::eig3_core<T>(x.a, x.o, x.o + 3);
    });
}

// svd3: in A (9) -> U (9), S (3), V (9)
template <typename T, int SCOPE>
bool svd3_op(Call& c) {
    return run_io<T, 9, 21>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* u = x.o;
        T* s = x.o + 9;
        T* v = x.o + 12;
        if constexpr (SCOPE == THREAD) glass::thread::svd3<T>(x.a, u, s, v);
        if constexpr (SCOPE == WARP) glass::warp::svd3<T>(x.a, u, s, v);
        if constexpr (SCOPE == BLOCK) glass::svd3<T>(x.a, u, s, v);
        if constexpr (SCOPE == DETAIL) glass::est_detail::svd3_core<T>(x.a, u, s, v);
    });
}

// closest_rotation: in A (9) -> R (9)
template <typename T, int SCOPE>
bool closest_rotation_op(Call& c) {
    return run_io<T, 9, 9>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == THREAD) glass::thread::closest_rotation<T>(x.a, x.o);
        if constexpr (SCOPE == WARP) glass::warp::closest_rotation<T>(x.a, x.o);
        if constexpr (SCOPE == BLOCK) glass::closest_rotation<T>(x.a, x.o);
        if constexpr (SCOPE == DETAIL) glass::est_detail::closest_rotation_core<T>(x.a, x.o);
    });
}

// det3: in A (9) -> det (1)
template <typename T>
bool det3_op(Call& c) {
    return run_io<T, 9, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::est_detail::det3<T>(x.a); });
}

// dot3: in a (3), b (3) -> a·b (1)
template <typename T>
bool dot3_op(Call& c) {
    return run_io<T, 6, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::est_detail::dot3<T>(x.a, x.a + 3); });
}

// perp3: in u (3) -> unit vector orthogonal to u (3)
template <typename T>
bool perp3_op(Call& c) {
    return run_io<T, 3, 3>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::est_detail::perp3<T>(x.a, x.o); });
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
