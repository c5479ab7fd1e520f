// Harness calls of glass/so3.cuh: every operator at thread, warp and block scope, and the lie_detail cores
// (scope "detail"), in double and float.
#include "glass/so3.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

// An operator op(const T* x, T* y) at scope SCOPE (0 thread, 1 warp, 2 block): in NI -> out NO.
#define SO3_SCOPED_OP(NAME, NI, NO)                                        \
    template <typename T, int SCOPE>                                       \
    bool NAME##_op(Call& c) {                                              \
        return run_io<T, NI, NO>(c, GLASS_HARNESS_BODY(Args<T> x) {        \
            if constexpr (SCOPE == 0) glass::thread::NAME<T>(x.a, x.o);    \
            if constexpr (SCOPE == 1) glass::warp::NAME<T>(x.a, x.o);      \
            if constexpr (SCOPE == 2) glass::NAME<T>(x.a, x.o);            \
        });                                                                \
    }

SO3_SCOPED_OP(skew, 3, 9)
SO3_SCOPED_OP(so3_exp, 3, 9)
SO3_SCOPED_OP(so3_log, 9, 3)
SO3_SCOPED_OP(so3_right_jacobian, 3, 9)
SO3_SCOPED_OP(so3_right_jacobian_inv, 3, 9)
SO3_SCOPED_OP(so3_left_jacobian, 3, 9)
SO3_SCOPED_OP(so3_left_jacobian_inv, 3, 9)

// A lie_detail core op(const T* x, T* y): in NI -> out NO.
#define SO3_CORE_OP(NAME, NI, NO)                                                                           \
    template <typename T>                                                                                   \
    bool NAME##_op(Call& c) {                                                                               \
        return run_io<T, NI, NO>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::NAME<T>(x.a, x.o); }); \
    }

SO3_CORE_OP(skew_core, 3, 9)
SO3_CORE_OP(so3_exp_core, 3, 9)
SO3_CORE_OP(so3_log_core, 9, 3)
SO3_CORE_OP(so3_right_jacobian_core, 3, 9)
SO3_CORE_OP(so3_left_jacobian_core, 3, 9)
SO3_CORE_OP(so3_right_jacobian_inv_core, 3, 9)
SO3_CORE_OP(so3_left_jacobian_inv_core, 3, 9)

// mat3_mul_core: in A (9), B (9) -> C (9)
template <typename T>
bool mat3_mul_core_op(Call& c) {
    return run_io<T, 18, 9>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::mat3_mul_core<T>(x.a, x.a + 9, x.o); });
}

// mat3_vec_core: in A (9), v (3) -> A·v (3)
template <typename T>
bool mat3_vec_core_op(Call& c) {
    return run_io<T, 12, 3>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::mat3_vec_core<T>(x.a, x.a + 9, x.o); });
}

// rodrigues_core: in phi (3), ca, cb -> M (9)
template <typename T>
bool rodrigues_core_op(Call& c) {
    return run_io<T, 5, 9>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::rodrigues_core<T>(x.a, x.a[3], x.a[4], x.o); });
}

// rodrigues_coefs: in theta -> a, b, c
template <typename T>
bool rodrigues_coefs_op(Call& c) {
    return run_io<T, 1, 3>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::rodrigues_coefs<T>(x.a[0], x.o[0], x.o[1], x.o[2]); });
}

// vec3_norm: in v (3) -> |v|
template <typename T>
bool vec3_norm_op(Call& c) {
    return run_io<T, 3, 1>(c, GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::lie_detail::vec3_norm<T>(x.a); });
}

// inv_jacobian_coef: in theta -> e
template <typename T>
bool inv_jacobian_coef_op(Call& c) {
    return run_io<T, 1, 1>(c,
                           GLASS_HARNESS_BODY(Args<T> x) { x.o[0] = glass::lie_detail::inv_jacobian_coef<T>(x.a[0]); });
}

}  // namespace

#define SO3_REGISTER_SCOPES(NAME)                                \
    GLASS_HARNESS_OP_T(#NAME "/thread", NAME##_op, 0);           \
    GLASS_HARNESS_OP_T(#NAME "/warp", NAME##_op, 1);             \
    GLASS_HARNESS_OP_T(#NAME "/block", NAME##_op, 2)

SO3_REGISTER_SCOPES(skew);
SO3_REGISTER_SCOPES(so3_exp);
SO3_REGISTER_SCOPES(so3_log);
SO3_REGISTER_SCOPES(so3_right_jacobian);
SO3_REGISTER_SCOPES(so3_right_jacobian_inv);
SO3_REGISTER_SCOPES(so3_left_jacobian);
SO3_REGISTER_SCOPES(so3_left_jacobian_inv);

GLASS_HARNESS_OP_T("skew_core/detail", skew_core_op);
GLASS_HARNESS_OP_T("mat3_mul_core/detail", mat3_mul_core_op);
GLASS_HARNESS_OP_T("mat3_vec_core/detail", mat3_vec_core_op);
GLASS_HARNESS_OP_T("rodrigues_core/detail", rodrigues_core_op);
GLASS_HARNESS_OP_T("rodrigues_coefs/detail", rodrigues_coefs_op);
GLASS_HARNESS_OP_T("vec3_norm/detail", vec3_norm_op);
GLASS_HARNESS_OP_T("so3_exp_core/detail", so3_exp_core_op);
GLASS_HARNESS_OP_T("so3_log_core/detail", so3_log_core_op);
GLASS_HARNESS_OP_T("so3_right_jacobian_core/detail", so3_right_jacobian_core_op);
GLASS_HARNESS_OP_T("so3_left_jacobian_core/detail", so3_left_jacobian_core_op);
GLASS_HARNESS_OP_T("inv_jacobian_coef/detail", inv_jacobian_coef_op);
GLASS_HARNESS_OP_T("so3_right_jacobian_inv_core/detail", so3_right_jacobian_inv_core_op);
GLASS_HARNESS_OP_T("so3_left_jacobian_inv_core/detail", so3_left_jacobian_inv_core_op);
