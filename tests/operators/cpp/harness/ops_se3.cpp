// Harness calls of glass/se3.cuh: every operator at thread, warp and block scope (both quaternion layouts
// where the operator takes one), and the lie_detail cores and second-derivative helpers (scope "detail").
#include "glass/se3.cuh"
#include "harness.h"

namespace {

using glass::QuatLayout;
using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

// An operator op(rho, phi, out) at scope SCOPE (0 thread, 1 warp, 2 block): in rho (3), phi (3) -> NO.
#define SE3_TANGENT_OP(NAME, NO)                                               \
    template <typename T, int SCOPE>                                           \
    bool NAME##_op(Call& c) {                                                  \
        return run_io<T, 6, NO>(c, GLASS_HARNESS_BODY(Args<T> x) {             \
            if constexpr (SCOPE == 0) glass::thread::NAME<T>(x.a, x.a + 3, x.o); \
            if constexpr (SCOPE == 1) glass::warp::NAME<T>(x.a, x.a + 3, x.o);   \
            if constexpr (SCOPE == 2) glass::NAME<T>(x.a, x.a + 3, x.o);         \
        });                                                                    \
    }

SE3_TANGENT_OP(se3_Q_block, 9)
SE3_TANGENT_OP(se3_retract_jacobian_q, 36)
SE3_TANGENT_OP(se3_retract_jacobian_v, 36)

// se3_retract<L>: in pose (7), rho (3), phi (3) -> pose_new (7)
template <typename T, int SCOPE, QuatLayout L>
bool se3_retract_op(Call& c) {
    return run_io<T, 13, 7>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        if constexpr (SCOPE == 0) glass::thread::se3_retract<T, L>(a, a + 7, a + 10, x.o);
        if constexpr (SCOPE == 1) glass::warp::se3_retract<T, L>(a, a + 7, a + 10, x.o);
        if constexpr (SCOPE == 2) glass::se3_retract<T, L>(a, a + 7, a + 10, x.o);
    });
}

// se3_difference<L>: in pose_from (7), pose_to (7) -> rho (3), phi (3)
template <typename T, int SCOPE, QuatLayout L>
bool se3_difference_op(Call& c) {
    return run_io<T, 14, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        if constexpr (SCOPE == 0) glass::thread::se3_difference<T, L>(a, a + 7, x.o, x.o + 3);
        if constexpr (SCOPE == 1) glass::warp::se3_difference<T, L>(a, a + 7, x.o, x.o + 3);
        if constexpr (SCOPE == 2) glass::se3_difference<T, L>(a, a + 7, x.o, x.o + 3);
    });
}

// se3_retract_hessian<IS_Q>: in rho (3), phi (3) -> J2 (216)
template <typename T, int SCOPE, bool IS_Q>
bool se3_retract_hessian_op(Call& c) {
    return run_io<T, 6, 216>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::se3_retract_hessian<T, IS_Q>(x.a, x.a + 3, x.o);
        if constexpr (SCOPE == 1) glass::warp::se3_retract_hessian<T, IS_Q>(x.a, x.a + 3, x.o);
        if constexpr (SCOPE == 2) glass::se3_retract_hessian<T, IS_Q>(x.a, x.a + 3, x.o);
    });
}

// ---- lie_detail -----------------------------------------------------------------------------------------

template <typename T>
bool se3_Q_block_core_op(Call& c) {
    return run_io<T, 6, 9>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::se3_Q_block_core<T>(x.a, x.a + 3, x.o); });
}

template <typename T>
bool se3_retract_jacobian_q_core_op(Call& c) {
    return run_io<T, 6, 36>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::se3_retract_jacobian_q_core<T>(x.a, x.a + 3, x.o); });
}

template <typename T>
bool se3_retract_jacobian_v_core_op(Call& c) {
    return run_io<T, 6, 36>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::se3_retract_jacobian_v_core<T>(x.a, x.a + 3, x.o); });
}

template <typename T, QuatLayout L>
bool se3_retract_core_op(Call& c) {
    return run_io<T, 13, 7>(c, GLASS_HARNESS_BODY(Args<T> x) {
        glass::lie_detail::se3_retract_core<T, L>(x.a, x.a + 7, x.a + 10, x.o);
    });
}

template <typename T, QuatLayout L>
bool se3_difference_core_op(Call& c) {
    return run_io<T, 14, 6>(c, GLASS_HARNESS_BODY(Args<T> x) {
        glass::lie_detail::se3_difference_core<T, L>(x.a, x.a + 7, x.o, x.o + 3);
    });
}

// The second-derivative helpers work in double whatever T is: they read the raw inputs.

// se3_d2_coefs: in t -> c (5), dc (5)
bool se3_d2_coefs_op(Call& c) {
    return run_io<double, 1, 10>(
        c, GLASS_HARNESS_BODY(Args<double> x) { glass::lie_detail::se3_d2_coefs(x.raw[0], x.o, x.o + 5); });
}

// se3_d2_dJr / se3_d2_dRinv: in phi (3), k -> 3×3 (θ and the coefficients formed from phi)
template <int WHICH>
bool se3_d2_phi_op(Call& c) {
    return run_io<double, 4, 9>(c, GLASS_HARNESS_BODY(Args<double> x) {
        const double* in = x.raw;
        const double t = glass::lie_detail::vec3_norm(in);
        double cf[5], dc[5];
        glass::lie_detail::se3_d2_coefs(t, cf, dc);
        if constexpr (WHICH == 0) glass::lie_detail::se3_d2_dJr(in, t, cf, dc, int(in[3]), x.o);
        if constexpr (WHICH == 1) glass::lie_detail::se3_d2_dRinv(in, t, cf, dc, int(in[3]), x.o);
    });
}

// se3_d2_dQ / se3_d2_doff: in rho (3), phi (3), kk -> 3×3
template <int WHICH>
bool se3_d2_tangent_op(Call& c) {
    return run_io<double, 7, 9>(c, GLASS_HARNESS_BODY(Args<double> x) {
        const double* in = x.raw;
        const double t = glass::lie_detail::vec3_norm(in + 3);
        double cf[5], dc[5];
        glass::lie_detail::se3_d2_coefs(t, cf, dc);
        if constexpr (WHICH == 0) glass::lie_detail::se3_d2_dQ(in, in + 3, t, cf, dc, int(in[6]), x.o);
        if constexpr (WHICH == 1) glass::lie_detail::se3_d2_doff(in, in + 3, t, cf, dc, int(in[6]), x.o);
    });
}

// se3_retract_hessian_slice<T, IS_Q>: in rho (3), phi (3), k -> slice (36)
template <typename T, bool IS_Q>
bool se3_retract_hessian_slice_op(Call& c) {
    return run_io<T, 7, 36>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const double* in = x.raw;
        const double t = glass::lie_detail::vec3_norm(in + 3);
        double cf[5], dc[5];
        glass::lie_detail::se3_d2_coefs(t, cf, dc);
        glass::lie_detail::se3_retract_hessian_slice<T, IS_Q>(in, in + 3, t, cf, dc, int(in[6]), x.o);
    });
}

}  // namespace

#define SE3_REGISTER_SCOPES(NAME, TAG, ...)                                   \
    GLASS_HARNESS_OP_T(#NAME TAG "/thread", NAME##_op, 0, ##__VA_ARGS__);     \
    GLASS_HARNESS_OP_T(#NAME TAG "/warp", NAME##_op, 1, ##__VA_ARGS__);       \
    GLASS_HARNESS_OP_T(#NAME TAG "/block", NAME##_op, 2, ##__VA_ARGS__)

SE3_REGISTER_SCOPES(se3_Q_block, "");
SE3_REGISTER_SCOPES(se3_retract_jacobian_q, "");
SE3_REGISTER_SCOPES(se3_retract_jacobian_v, "");
SE3_REGISTER_SCOPES(se3_retract, "[xyzw]", QuatLayout::xyzw);
SE3_REGISTER_SCOPES(se3_retract, "[wxyz]", QuatLayout::wxyz);
SE3_REGISTER_SCOPES(se3_difference, "[xyzw]", QuatLayout::xyzw);
SE3_REGISTER_SCOPES(se3_difference, "[wxyz]", QuatLayout::wxyz);
SE3_REGISTER_SCOPES(se3_retract_hessian, "[q]", true);
SE3_REGISTER_SCOPES(se3_retract_hessian, "[v]", false);

GLASS_HARNESS_OP_T("se3_Q_block_core/detail", se3_Q_block_core_op);
GLASS_HARNESS_OP_T("se3_retract_core[xyzw]/detail", se3_retract_core_op, QuatLayout::xyzw);
GLASS_HARNESS_OP_T("se3_retract_core[wxyz]/detail", se3_retract_core_op, QuatLayout::wxyz);
GLASS_HARNESS_OP_T("se3_difference_core[xyzw]/detail", se3_difference_core_op, QuatLayout::xyzw);
GLASS_HARNESS_OP_T("se3_difference_core[wxyz]/detail", se3_difference_core_op, QuatLayout::wxyz);
GLASS_HARNESS_OP_T("se3_retract_jacobian_q_core/detail", se3_retract_jacobian_q_core_op);
GLASS_HARNESS_OP_T("se3_retract_jacobian_v_core/detail", se3_retract_jacobian_v_core_op);
GLASS_HARNESS_OP_T("se3_retract_hessian_slice[q]/detail", se3_retract_hessian_slice_op, true);
GLASS_HARNESS_OP_T("se3_retract_hessian_slice[v]/detail", se3_retract_hessian_slice_op, false);
// The second-derivative helpers are double-only by design.
GLASS_HARNESS_OP("se3_d2_coefs/detail/double", se3_d2_coefs_op);
GLASS_HARNESS_OP("se3_d2_dJr/detail/double", se3_d2_phi_op<0>);
GLASS_HARNESS_OP("se3_d2_dRinv/detail/double", se3_d2_phi_op<1>);
GLASS_HARNESS_OP("se3_d2_dQ/detail/double", se3_d2_tangent_op<0>);
GLASS_HARNESS_OP("se3_d2_doff/detail/double", se3_d2_tangent_op<1>);
