// Harness calls of glass/angles.cuh (scalar, scope-free: scope "scalar"; lie_detail::pi as "detail").
#include "glass/angles.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

// angle_wrap: in x -> wrapped x
template <typename T>
bool angle_wrap_op(Call& c) {
    return run_io<T, 1, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::angle_wrap<T>(x.a[0]); });
}

// angle_diff: in a, b -> a ⊖ b
template <typename T>
bool angle_diff_op(Call& c) {
    return run_io<T, 2, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::angle_diff<T>(x.a[0], x.a[1]); });
}

// angle_lerp: in a, b, t -> interpolated angle
template <typename T>
bool angle_lerp_op(Call& c) {
    return run_io<T, 3, 1>(c,
                           GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::angle_lerp<T>(x.a[0], x.a[1], x.a[2]); });
}

// clamp_unit: in v -> v clamped to [−1, 1]
template <typename T>
bool clamp_unit_op(Call& c) {
    return run_io<T, 1, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::clamp_unit<T>(x.a[0]); });
}

// pi: no inputs -> π rounded to T
template <typename T>
bool pi_op(Call& c) {
    return run_io<T, 0, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::lie_detail::pi<T>(); });
}

}  // namespace

GLASS_HARNESS_OP_T("angle_wrap/scalar", angle_wrap_op);
GLASS_HARNESS_OP_T("angle_diff/scalar", angle_diff_op);
GLASS_HARNESS_OP_T("angle_lerp/scalar", angle_lerp_op);
GLASS_HARNESS_OP_T("clamp_unit/scalar", clamp_unit_op);
GLASS_HARNESS_OP_T("pi/detail", pi_op);
