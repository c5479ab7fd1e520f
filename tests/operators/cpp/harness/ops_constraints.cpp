// Harness calls of glass/constraints.cuh (tier-free scalars: scope "scalar").
#include "glass/constraints.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run_io;

// A scalar function of N inputs returning one value (a = the inputs as T).
#define GLASS_CONSTRAINT_OP(op_name, N, expr)                             \
    template <typename T>                                                  \
    bool op_name(Call& c) {                                                \
        return run_io<T, N, 1>(c, GLASS_HARNESS_BODY(Args<T> x) {          \
            const T* a = x.a;                                              \
            x.o[0] = T(expr);                                              \
        });                                                                \
    }

GLASS_CONSTRAINT_OP(interval_violation_op, 3, glass::interval_violation(a[0], a[1], a[2]))
GLASS_CONSTRAINT_OP(al_is_eq_row_op, 2, glass::al_is_eq_row(a[0], a[1]) ? 1.0 : 0.0)
GLASS_CONSTRAINT_OP(al_hinge_value_op, 4, glass::al_hinge_value(a[0], a[1], a[2], a[3]))
GLASS_CONSTRAINT_OP(al_interval_value_op, 7, glass::al_interval_value(a[0], a[1], a[2], a[3], a[4], a[5], a[6]))
GLASS_CONSTRAINT_OP(relaxed_barrier_value_op, 3, glass::relaxed_barrier_value(a[0], a[1], a[2]))
GLASS_CONSTRAINT_OP(relaxed_barrier_grad_op, 3, glass::relaxed_barrier_grad(a[0], a[1], a[2]))
GLASS_CONSTRAINT_OP(relaxed_barrier_hess_op, 3, glass::relaxed_barrier_hess(a[0], a[1], a[2]))
GLASS_CONSTRAINT_OP(relaxed_barrier_interval_value_op, 5, glass::relaxed_barrier_interval_value(a[0], a[1], a[2], a[3], a[4]))
GLASS_CONSTRAINT_OP(relaxed_barrier_interval_grad_op, 5, glass::relaxed_barrier_interval_grad(a[0], a[1], a[2], a[3], a[4]))
GLASS_CONSTRAINT_OP(relaxed_barrier_interval_hess_op, 5, glass::relaxed_barrier_interval_hess(a[0], a[1], a[2], a[3], a[4]))
GLASS_CONSTRAINT_OP(smooth_hinge_op, 2, glass::smooth_hinge(a[0], a[1]))
GLASS_CONSTRAINT_OP(smooth_hinge_grad_op, 2, glass::smooth_hinge_grad(a[0], a[1]))
GLASS_CONSTRAINT_OP(log_cosh_op, 1, glass::log_cosh(a[0]))
GLASS_CONSTRAINT_OP(log_cosh_grad_op, 1, glass::log_cosh_grad(a[0]))

#undef GLASS_CONSTRAINT_OP

// al_interval_grad_hess: in g, lo, hi, lam_hi, lam_lo, rho, sigma -> gr, h
template <typename T>
bool al_interval_grad_hess_op(Call& c) {
    return run_io<T, 7, 2>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const T* a = x.a;
        T gr, h;
        glass::al_interval_grad_hess(a[0], a[1], a[2], a[3], a[4], a[5], a[6], gr, h);
        x.o[0] = gr;
        x.o[1] = h;
    });
}

}  // namespace

GLASS_HARNESS_OP_T("interval_violation/scalar", interval_violation_op);
GLASS_HARNESS_OP_T("al_is_eq_row/scalar", al_is_eq_row_op);
GLASS_HARNESS_OP_T("al_hinge_value/scalar", al_hinge_value_op);
GLASS_HARNESS_OP_T("al_interval_value/scalar", al_interval_value_op);
GLASS_HARNESS_OP_T("al_interval_grad_hess/scalar", al_interval_grad_hess_op);
GLASS_HARNESS_OP_T("relaxed_barrier_value/scalar", relaxed_barrier_value_op);
GLASS_HARNESS_OP_T("relaxed_barrier_grad/scalar", relaxed_barrier_grad_op);
GLASS_HARNESS_OP_T("relaxed_barrier_hess/scalar", relaxed_barrier_hess_op);
GLASS_HARNESS_OP_T("relaxed_barrier_interval_value/scalar", relaxed_barrier_interval_value_op);
GLASS_HARNESS_OP_T("relaxed_barrier_interval_grad/scalar", relaxed_barrier_interval_grad_op);
GLASS_HARNESS_OP_T("relaxed_barrier_interval_hess/scalar", relaxed_barrier_interval_hess_op);
GLASS_HARNESS_OP_T("smooth_hinge/scalar", smooth_hinge_op);
GLASS_HARNESS_OP_T("smooth_hinge_grad/scalar", smooth_hinge_grad_op);
GLASS_HARNESS_OP_T("log_cosh/scalar", log_cosh_op);
GLASS_HARNESS_OP_T("log_cosh_grad/scalar", log_cosh_grad_op);
