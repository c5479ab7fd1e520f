// Harness calls of glass/pose.cuh: quat_error and pose_error at thread (0), warp (1) and block (2) scope for
// both layouts and both error frames, and the scalar quat_angle ("/scalar"), double and float.
#include "glass/pose.cuh"
#include "harness.h"

namespace {

using glass::ErrorFrame;
using glass::QuatLayout;
using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

constexpr QuatLayout XYZW = QuatLayout::xyzw;
constexpr QuatLayout WXYZ = QuatLayout::wxyz;
constexpr ErrorFrame LOCAL = ErrorFrame::LOCAL;
constexpr ErrorFrame WORLD = ErrorFrame::WORLD;

// quat_error: in q (4), q_des (4) -> e (3)
template <typename T, QuatLayout L, ErrorFrame F, int SCOPE>
bool quat_error_op(Call& c) {
    return run_io<T, 8, 3>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_error<T, L, F>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_error<T, L, F>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 2) glass::quat_error<T, L, F>(x.a, x.a + 4, x.o);
    });
}

// pose_error: in pose (7), pose_des (7) -> e (6)
template <typename T, QuatLayout L, ErrorFrame F, int SCOPE>
bool pose_error_op(Call& c) {
    return run_io<T, 14, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::pose_error<T, L, F>(x.a, x.a + 7, x.o);
        if constexpr (SCOPE == 1) glass::warp::pose_error<T, L, F>(x.a, x.a + 7, x.o);
        if constexpr (SCOPE == 2) glass::pose_error<T, L, F>(x.a, x.a + 7, x.o);
    });
}

// quat_angle: in q (4), q_des (4) -> θ (1)
template <typename T, QuatLayout L>
bool quat_angle_op(Call& c) {
    return run_io<T, 8, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::quat_angle<T, L>(x.a, x.a + 4); });
}

// The serial cores ("/serial"): same shapes as quat_error / pose_error.
template <typename T, QuatLayout L, ErrorFrame F>
bool quat_error_core_op(Call& c) {
    return run_io<T, 8, 3>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_error_core<T, L, F>(x.a, x.a + 4, x.o); });
}

template <typename T, QuatLayout L, ErrorFrame F>
bool pose_error_core_op(Call& c) {
    return run_io<T, 14, 6>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::pose_error_core<T, L, F>(x.a, x.a + 7, x.o); });
}

}  // namespace

#define POSE_OPS(fn, tag, op, L, F)                           \
    GLASS_HARNESS_OP_T(fn "[" tag "]/thread", op, L, F, 0);   \
    GLASS_HARNESS_OP_T(fn "[" tag "]/warp", op, L, F, 1);     \
    GLASS_HARNESS_OP_T(fn "[" tag "]/block", op, L, F, 2)

POSE_OPS("quat_error", "xyzw,LOCAL", quat_error_op, XYZW, LOCAL);
POSE_OPS("quat_error", "xyzw,WORLD", quat_error_op, XYZW, WORLD);
POSE_OPS("quat_error", "wxyz,LOCAL", quat_error_op, WXYZ, LOCAL);
POSE_OPS("quat_error", "wxyz,WORLD", quat_error_op, WXYZ, WORLD);
POSE_OPS("pose_error", "xyzw,LOCAL", pose_error_op, XYZW, LOCAL);
POSE_OPS("pose_error", "xyzw,WORLD", pose_error_op, XYZW, WORLD);
POSE_OPS("pose_error", "wxyz,LOCAL", pose_error_op, WXYZ, LOCAL);
POSE_OPS("pose_error", "wxyz,WORLD", pose_error_op, WXYZ, WORLD);

GLASS_HARNESS_OP_T("quat_angle[xyzw]/scalar", quat_angle_op, XYZW);
GLASS_HARNESS_OP_T("quat_angle[wxyz]/scalar", quat_angle_op, WXYZ);

#define POSE_CORES(fn, op)                                                        \
    GLASS_HARNESS_OP_T(fn "[xyzw,LOCAL]/serial", op, XYZW, LOCAL);               \
    GLASS_HARNESS_OP_T(fn "[xyzw,WORLD]/serial", op, XYZW, WORLD);               \
    GLASS_HARNESS_OP_T(fn "[wxyz,LOCAL]/serial", op, WXYZ, LOCAL);               \
    GLASS_HARNESS_OP_T(fn "[wxyz,WORLD]/serial", op, WXYZ, WORLD)

POSE_CORES("quat_error_core", quat_error_core_op);
POSE_CORES("pose_error_core", pose_error_core_op);
