// Harness calls of glass/angles.cuh (scalar, scope-free: scope "scalar"; lie_detail::pi as "detail").
#include "glass/angles.cuh"
#include "harness.h"

namespace {

// angle_wrap: in x -> wrapped x
template <typename T>
bool angle_wrap_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 1 || n_out != 1) return false;
    out[0] = double(glass::angle_wrap<T>(T(in[0])));
    return true;
}

// angle_diff: in a, b -> a ⊖ b
template <typename T>
bool angle_diff_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 2 || n_out != 1) return false;
    out[0] = double(glass::angle_diff<T>(T(in[0]), T(in[1])));
    return true;
}

// angle_lerp: in a, b, t -> interpolated angle
template <typename T>
bool angle_lerp_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 3 || n_out != 1) return false;
    out[0] = double(glass::angle_lerp<T>(T(in[0]), T(in[1]), T(in[2])));
    return true;
}

// clamp_unit: in v -> v clamped to [−1, 1]
template <typename T>
bool clamp_unit_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 1 || n_out != 1) return false;
    out[0] = double(glass::clamp_unit<T>(T(in[0])));
    return true;
}

// pi: no inputs -> π rounded to T
template <typename T>
bool pi_op(const double*, int n_in, double* out, int n_out) {
    if (n_in != 0 || n_out != 1) return false;
    out[0] = double(glass::lie_detail::pi<T>());
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("angle_wrap/scalar", angle_wrap_op);
GLASS_HARNESS_OP_T("angle_diff/scalar", angle_diff_op);
GLASS_HARNESS_OP_T("angle_lerp/scalar", angle_lerp_op);
GLASS_HARNESS_OP_T("clamp_unit/scalar", clamp_unit_op);
GLASS_HARNESS_OP_T("pi/detail", pi_op);
