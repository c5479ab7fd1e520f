// Harness calls of glass/gauss_newton.cuh. gn_step's sizes are template arguments, so each instantiation is
// its own call "gn_step[M,N,<flags>]/warp/<precision>"; flags: reg/noreg, check/nocheck, diag/eye.
#include "glass/gauss_newton.cuh"
#include "harness.h"

namespace {

using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

// gn_step: in J (M×N column-major), r (M), lambda -> dq (N), s_A (N×N), fail flag (1; NaN when not written)
template <typename T, uint32_t M, uint32_t N, bool REGULARIZE, bool CHECK, bool REG_DIAG>
bool gn_step_op(const double* in, int n_in, double* out, int n_out) {
    constexpr int n_j = int(M * N);
    if (n_in != n_j + int(M) + 1 || n_out != int(N + N * N) + 1) return false;
    auto a = cast_in<T>(in, n_in);
    auto dq = poisoned<T>(int(N));
    auto s_a = poisoned<T>(int(glass::gn_step_scratch_bytes<T, N>() / sizeof(T)));
    int fail = -1;
    const T lambda = a[std::size_t(n_j) + M];
    glass::warp::gn_step<T, M, N, REGULARIZE, CHECK, REG_DIAG>(a.data(), a.data() + n_j, lambda, dq.data(), s_a.data(),
                                                               &fail);
    cast_out(dq.data(), int(N), out);
    cast_out(s_a.data(), int(N * N), out + N);
    out[N + N * N] = fail < 0 ? double(NAN) : double(fail);
    return true;
}

// gn_step_scratch_bytes: no input -> bytes (1)
template <typename T, uint32_t N>
bool scratch_op(const double*, int n_in, double* out, int n_out) {
    if (n_in != 0 || n_out != 1) return false;
    out[0] = double(glass::warp::gn_step_scratch_bytes<T, N>());
    return true;
}

}  // namespace

GLASS_HARNESS_OP_T("gn_step[6,3,reg,check,diag]/warp", gn_step_op, 6, 3, true, true, true);
GLASS_HARNESS_OP_T("gn_step[6,3,reg,check,eye]/warp", gn_step_op, 6, 3, true, true, false);
GLASS_HARNESS_OP_T("gn_step[6,3,noreg,check,diag]/warp", gn_step_op, 6, 3, false, true, true);
GLASS_HARNESS_OP_T("gn_step[6,3,reg,nocheck,diag]/warp", gn_step_op, 6, 3, true, false, true);
GLASS_HARNESS_OP_T("gn_step[12,7,reg,check,diag]/warp", gn_step_op, 12, 7, true, true, true);
GLASS_HARNESS_OP_T("gn_step[12,7,reg,check,eye]/warp", gn_step_op, 12, 7, true, true, false);
GLASS_HARNESS_OP_T("gn_step[1,1,reg,check,diag]/warp", gn_step_op, 1, 1, true, true, true);
GLASS_HARNESS_OP_T("gn_step[3,4,reg,check,eye]/warp", gn_step_op, 3, 4, true, true, false);
GLASS_HARNESS_OP_T("gn_step_scratch_bytes[3]/warp", scratch_op, 3);
GLASS_HARNESS_OP_T("gn_step_scratch_bytes[7]/warp", scratch_op, 7);
