// Harness calls of glass/cones.cuh. Vector lengths come from n_in (the cone dimension m).
#include "glass/cones.cuh"
#include "harness.h"

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

// soc_tail_norm / soc_violation: in g (m) -> 1
template <typename T, int WHICH>
bool soc_scalar_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 1 || n_out != 1) return false;
    auto g = cast_in<T>(in, n_in);
    const T v = WHICH == 0 ? glass::soc_tail_norm(g.data(), int32_t(n_in)) : glass::soc_violation(g.data(), int32_t(n_in));
    out[0] = double(v);
    return true;
}

// soc_project: in w (m) -> p (m); SCOPE 3 is the thread-scope call projecting in place (p aliases w).
template <typename T, int SCOPE>
bool soc_project_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 1 || n_out != n_in) return false;
    const int32_t m = int32_t(n_in);
    auto w = cast_in<T>(in, n_in);
    auto p = poisoned<T>(n_in);
    if constexpr (SCOPE == 0) glass::thread::soc_project<T>(w.data(), p.data(), m);
    if constexpr (SCOPE == 1) glass::warp::soc_project<T>(w.data(), p.data(), m);
    if constexpr (SCOPE == 2) glass::soc_project<T>(w.data(), p.data(), m);
    if constexpr (SCOPE == 3) {
        glass::thread::soc_project<T>(w.data(), w.data(), m);
        p = w;
    }
    cast_out(p.data(), n_in, out);
    return true;
}

// al_soc_value: in rho, g (m), lam (m) -> 1
template <typename T>
bool al_soc_value_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in < 3 || (n_in - 1) % 2 != 0 || n_out != 1) return false;
    const int32_t m = int32_t((n_in - 1) / 2);
    auto a = cast_in<T>(in, n_in);
    out[0] = double(glass::al_soc_value(a.data() + 1, a.data() + 1 + m, a[0], m));
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("soc_tail_norm/scalar", soc_scalar_op, 0);
GLASS_HARNESS_OP_T("soc_violation/scalar", soc_scalar_op, 1);
GLASS_HARNESS_OP_T("soc_project/thread", soc_project_op, 0);
GLASS_HARNESS_OP_T("soc_project/warp", soc_project_op, 1);
GLASS_HARNESS_OP_T("soc_project/block", soc_project_op, 2);
GLASS_HARNESS_OP_T("soc_project[alias]/thread", soc_project_op, 3);
GLASS_HARNESS_OP_T("al_soc_value/scalar", al_soc_value_op);
