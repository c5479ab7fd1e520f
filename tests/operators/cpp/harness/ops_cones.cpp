// Harness calls of glass/cones.cuh. Vector lengths come from n_in (the cone dimension m).
#include "glass/cones.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run;

// soc_tail_norm / soc_violation: in g (m) -> 1
template <typename T, int WHICH>
bool soc_scalar_op(Call& c) {
    if (c.n_in < 1 || c.n_out != 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const int32_t m = int32_t(x.n_in);
        x.o[0] = WHICH == 0 ? glass::soc_tail_norm(x.a, m) : glass::soc_violation(x.a, m);
    });
}

// soc_project: in w (m) -> p (m); SCOPE 3 is the thread-scope call projecting in place (p aliases w).
template <typename T, int SCOPE>
bool soc_project_op(Call& c) {
    if (c.n_in < 1 || c.n_out != c.n_in) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const int32_t m = int32_t(x.n_in);
        if constexpr (SCOPE == 0) glass::thread::soc_project<T>(x.a, x.o, m);
        if constexpr (SCOPE == 1) glass::warp::soc_project<T>(x.a, x.o, m);
        if constexpr (SCOPE == 2) glass::soc_project<T>(x.a, x.o, m);
        if constexpr (SCOPE == 3) {
            glass::thread::soc_project<T>(x.a, x.a, m);
            x.put(x.a, m);
        }
    });
}

// al_soc_value: in rho, g (m), lam (m) -> 1
template <typename T>
bool al_soc_value_op(Call& c) {
    if (c.n_in < 3 || (c.n_in - 1) % 2 != 0 || c.n_out != 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        const int32_t m = int32_t((x.n_in - 1) / 2);
        x.o[0] = glass::al_soc_value(x.a + 1, x.a + 1 + m, x.a[0], m);
    });
}

}  // namespace

GLASS_HARNESS_OP_T("soc_tail_norm/scalar", soc_scalar_op, 0);
GLASS_HARNESS_OP_T("soc_violation/scalar", soc_scalar_op, 1);
GLASS_HARNESS_OP_T("soc_project/thread", soc_project_op, 0);
GLASS_HARNESS_OP_T("soc_project/warp", soc_project_op, 1);
GLASS_HARNESS_OP_T("soc_project/block", soc_project_op, 2);
GLASS_HARNESS_OP_T("soc_project[alias]/thread", soc_project_op, 3);
GLASS_HARNESS_OP_T("al_soc_value/scalar", al_soc_value_op);
