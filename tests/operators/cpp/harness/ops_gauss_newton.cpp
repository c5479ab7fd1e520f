// Harness calls of glass/gauss_newton.cuh. gn_step's sizes are template arguments, so each instantiation is
// its own call "gn_step[M,N,<flags>]/warp/<precision>"; flags: reg/noreg, check/nocheck, diag/eye.
#include "glass/gauss_newton.cuh"
#include "harness.h"

namespace {

using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run;
using glass_harness::run_io;

// gn_step: in J (M×N column-major), r (M), lambda -> dq (N), s_A (N×N), fail flag (1; NaN when not written).
// dq and s_A (gn_step_scratch_bytes: N×N) are the warp-shared outputs themselves.
template <typename T, uint32_t M, uint32_t N, bool REGULARIZE, bool CHECK, bool REG_DIAG>
bool gn_step_op(Call& c) {
    constexpr int n_j = int(M * N);
    if (c.n_in != n_j + int(M) + 1 || c.n_out != int(N + N * N) + 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        int fail = -1;  // lane 0's flag
        const T lambda = x.a[M * N + M];
        glass::warp::gn_step<T, M, N, REGULARIZE, CHECK, REG_DIAG>(x.a, x.a + M * N, lambda, x.o, x.o + N, &fail);
        if (x.lead()) x.o[N + N * N] = fail < 0 ? T(NAN) : T(fail);
    });
}

// gn_step_scratch_bytes: no input -> bytes (1)
template <typename T, uint32_t N>
bool scratch_op(Call& c) {
    return run_io<T, 0, 1>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if (x.lead()) x.o[0] = T(glass::warp::gn_step_scratch_bytes<T, N>());
    });
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
