// Harness calls of glass/quaternion.cuh: every operation at thread (0), warp (1) and block (2) scope, in both
// storage layouts, double and float. Names: "<function>[<layout>(,<variant>)]/<scope>/<precision>".
#include "glass/quaternion.cuh"
#include "harness.h"

namespace {

using glass::QuatLayout;
using glass_harness::Args;
using glass_harness::Call;
using glass_harness::run;
using glass_harness::run_io;

constexpr QuatLayout XYZW = QuatLayout::xyzw;
constexpr QuatLayout WXYZ = QuatLayout::wxyz;

// quat_mul: in a (4), b (4) -> a ⊗ b (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_mul_op(Call& c) {
    return run_io<T, 8, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_mul<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_mul<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 2) glass::quat_mul<T, L>(x.a, x.a + 4, x.o);
    });
}

// quat_conj: in a (4) -> a* (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_conj_op(Call& c) {
    return run_io<T, 4, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_conj<T, L>(x.a, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_conj<T, L>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::quat_conj<T, L>(x.a, x.o);
    });
}

// quat_normalize: in q (4) -> q / |q| (4). SCOPE 3: thread scope in place (out == q).
template <typename T, QuatLayout L, bool CANONICAL, int SCOPE>
bool quat_normalize_op(Call& c) {
    return run_io<T, 4, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_normalize<T, L, CANONICAL>(x.a, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_normalize<T, L, CANONICAL>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::quat_normalize<T, L, CANONICAL>(x.a, x.o);
        if constexpr (SCOPE == 3) {
            glass::thread::quat_normalize<T, L, CANONICAL>(x.a, x.a);
            x.put(x.a, 4);
        }
    });
}

// quat_exp: in phi (3) -> exp([phi/2]) (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_exp_op(Call& c) {
    return run_io<T, 3, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_exp<T, L>(x.a, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_exp<T, L>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::quat_exp<T, L>(x.a, x.o);
    });
}

// quat_log: in q (4) -> phi (3)
template <typename T, QuatLayout L, int SCOPE>
bool quat_log_op(Call& c) {
    return run_io<T, 4, 3>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_log<T, L>(x.a, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_log<T, L>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::quat_log<T, L>(x.a, x.o);
    });
}

// quat_rotate: in q (4), p (3) -> R(q)·p (3). SCOPE 3: thread scope in place (out == p).
template <typename T, QuatLayout L, int SCOPE>
bool quat_rotate_op(Call& c) {
    return run_io<T, 7, 3>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_rotate<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_rotate<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 2) glass::quat_rotate<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 3) {
            glass::thread::quat_rotate<T, L>(x.a, x.a + 4, x.a + 4);
            x.put(x.a + 4, 3);
        }
    });
}

// quat_to_rot: LDA 3: in q (4) -> R (9, column-major); LDA 4: in q (4), M (16, a column-major 4×4) -> M with
// its rotation block overwritten (16).
template <typename T, QuatLayout L, uint32_t LDA, int SCOPE>
bool quat_to_rot_op(Call& c) {
    constexpr int N = LDA == 3 ? 9 : 16;
    if (c.n_in != (LDA == 3 ? 4 : 20) || c.n_out != N) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (LDA != 3) {
            x.put(x.a + 4, 16);
            x.sync();  // the whole matrix is in place before the rotation block is overwritten
        }
        if constexpr (SCOPE == 0) glass::thread::quat_to_rot<T, L, LDA>(x.a, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_to_rot<T, L, LDA>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::quat_to_rot<T, L, LDA>(x.a, x.o);
    });
}

// rot_to_quat: in R (9, or a 4×4 (16) for LDA 4, column-major) -> q (4)
template <typename T, QuatLayout L, uint32_t LDA, int SCOPE>
bool rot_to_quat_op(Call& c) {
    if (c.n_in != (LDA == 3 ? 9 : 16) || c.n_out != 4) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) {
            // the default template arguments are the form generated code uses
            if constexpr (L == XYZW && LDA == 3) {
                glass::thread::rot_to_quat<T>(x.a, x.o);
            } else {
                glass::thread::rot_to_quat<T, L, LDA>(x.a, x.o);
            }
        }
        if constexpr (SCOPE == 1) glass::warp::rot_to_quat<T, L, LDA>(x.a, x.o);
        if constexpr (SCOPE == 2) glass::rot_to_quat<T, L, LDA>(x.a, x.o);
    });
}

// quat_to_basis: in q (4, any norm) -> u, v, w (9)
template <typename T, QuatLayout L, int SCOPE>
bool quat_to_basis_op(Call& c) {
    return run_io<T, 4, 9>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T *u = x.o, *v = x.o + 3, *w = x.o + 6;
        if constexpr (SCOPE == 0) glass::thread::quat_to_basis<T, L>(x.a, u, v, w);
        if constexpr (SCOPE == 1) glass::warp::quat_to_basis<T, L>(x.a, u, v, w);
        if constexpr (SCOPE == 2) glass::quat_to_basis<T, L>(x.a, u, v, w);
    });
}

// quat_retract: in q (4), phi (3) -> q_new (4). SCOPE 3: thread scope in place (q_new == q).
template <typename T, QuatLayout L, int SCOPE>
bool quat_retract_op(Call& c) {
    return run_io<T, 7, 4>(c, GLASS_HARNESS_BODY(Args<T> x) {
        if constexpr (SCOPE == 0) glass::thread::quat_retract<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 1) glass::warp::quat_retract<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 2) glass::quat_retract<T, L>(x.a, x.a + 4, x.o);
        if constexpr (SCOPE == 3) {
            glass::thread::quat_retract<T, L>(x.a, x.a + 4, x.a);
            x.put(x.a, 4);
        }
    });
}

// ---- the serial lie_detail cores ("/serial"): the same input/output shapes as the scope calls above ----

template <typename T, QuatLayout L>
bool quat_mul_core_op(Call& c) {
    return run_io<T, 8, 4>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_mul_core<T, L>(x.a, x.a + 4, x.o); });
}

template <typename T, QuatLayout L>
bool quat_exp_core_op(Call& c) {
    return run_io<T, 3, 4>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_exp_core<T, L>(x.a, x.o); });
}

template <typename T, QuatLayout L, bool CANONICAL>
bool quat_normalize_core_op(Call& c) {
    return run_io<T, 4, 4>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_normalize_core<T, L, CANONICAL>(x.a, x.o); });
}

template <typename T, QuatLayout L>
bool quat_rotate_core_op(Call& c) {
    return run_io<T, 7, 3>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_rotate_core<T, L>(x.a, x.a + 4, x.o); });
}

template <typename T, QuatLayout L>
bool quat_to_rot_core_op(Call& c) {
    return run_io<T, 4, 9>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_to_rot_core<T, L>(x.a, x.o); });
}

template <typename T, QuatLayout L, uint32_t LDA>
bool rot_to_quat_core_op(Call& c) {
    if (c.n_in != (LDA == 3 ? 9 : 16) || c.n_out != 4) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::rot_to_quat_core<T, L, LDA>(x.a, x.o); });
}

template <typename T, QuatLayout L>
bool quat_retract_core_op(Call& c) {
    return run_io<T, 7, 4>(
        c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_retract_core<T, L>(x.a, x.a + 4, x.o); });
}

template <typename T, QuatLayout L>
bool quat_log_core_op(Call& c) {
    return run_io<T, 4, 3>(c, GLASS_HARNESS_BODY(Args<T> x) { glass::lie_detail::quat_log_core<T, L>(x.a, x.o); });
}

// copy_out<T, N>: in rank, size, tmp (N), out (N) -> out with the share of rank overwritten (N). rank and
// size are read from the raw inputs.
template <typename T, uint32_t N>
bool copy_out_op(Call& c) {
    if (c.n_in != 2 + 2 * int(N) || c.n_out != int(N) || c.in[0] < 0 || c.in[1] < 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a + 2;
        glass::lie_detail::copy_out<T, N>(uint32_t(x.raw[0]), uint32_t(x.raw[1]), a, a + N);
        x.put(a + N, int(N));
    });
}

// copy_out_mat3<T, LDA>: in rank, size, tmp (9), out (3·LDA) -> out with the share of rank stored (3·LDA)
template <typename T, uint32_t LDA>
bool copy_out_mat3_op(Call& c) {
    constexpr int M = 3 * int(LDA);
    if (c.n_in != 2 + 9 + M || c.n_out != M || c.in[0] < 0 || c.in[1] < 1) return false;
    return run<T>(c, GLASS_HARNESS_BODY(Args<T> x) {
        T* a = x.a + 2;
        glass::lie_detail::copy_out_mat3<T, LDA>(uint32_t(x.raw[0]), uint32_t(x.raw[1]), a, a + 9);
        x.put(a + 9, 3 * int(LDA));
    });
}

}  // namespace

// Registers op at the three scopes for one bracketed template-argument tag; the extra arguments follow the
// layout in op's template list.
#define QUAT_OPS(fn, tag, op, L, ...)                                   \
    GLASS_HARNESS_OP_T(fn "[" tag "]/thread", op, L, ##__VA_ARGS__, 0); \
    GLASS_HARNESS_OP_T(fn "[" tag "]/warp", op, L, ##__VA_ARGS__, 1);   \
    GLASS_HARNESS_OP_T(fn "[" tag "]/block", op, L, ##__VA_ARGS__, 2)

#define QUAT_OPS_BOTH(fn, op)          \
    QUAT_OPS(fn, "xyzw", op, XYZW);    \
    QUAT_OPS(fn, "wxyz", op, WXYZ)

QUAT_OPS_BOTH("quat_mul", quat_mul_op);
QUAT_OPS_BOTH("quat_conj", quat_conj_op);
QUAT_OPS_BOTH("quat_exp", quat_exp_op);
QUAT_OPS_BOTH("quat_log", quat_log_op);
QUAT_OPS_BOTH("quat_rotate", quat_rotate_op);
QUAT_OPS_BOTH("quat_to_basis", quat_to_basis_op);
QUAT_OPS_BOTH("quat_retract", quat_retract_op);

QUAT_OPS("quat_normalize", "xyzw", quat_normalize_op, XYZW, false);
QUAT_OPS("quat_normalize", "wxyz", quat_normalize_op, WXYZ, false);
QUAT_OPS("quat_normalize", "xyzw,canonical", quat_normalize_op, XYZW, true);
QUAT_OPS("quat_normalize", "wxyz,canonical", quat_normalize_op, WXYZ, true);

QUAT_OPS("quat_to_rot", "xyzw,3", quat_to_rot_op, XYZW, 3u);
QUAT_OPS("quat_to_rot", "wxyz,3", quat_to_rot_op, WXYZ, 3u);
QUAT_OPS("quat_to_rot", "xyzw,4", quat_to_rot_op, XYZW, 4u);
QUAT_OPS("quat_to_rot", "wxyz,4", quat_to_rot_op, WXYZ, 4u);

QUAT_OPS("rot_to_quat", "xyzw,3", rot_to_quat_op, XYZW, 3u);
QUAT_OPS("rot_to_quat", "wxyz,3", rot_to_quat_op, WXYZ, 3u);
QUAT_OPS("rot_to_quat", "xyzw,4", rot_to_quat_op, XYZW, 4u);
QUAT_OPS("rot_to_quat", "wxyz,4", rot_to_quat_op, WXYZ, 4u);

// In-place thread-scope forms (the cores read every input before storing).
GLASS_HARNESS_OP_T("quat_normalize[xyzw,canonical]/thread_inplace", quat_normalize_op, XYZW, true, 3);
GLASS_HARNESS_OP_T("quat_rotate[xyzw]/thread_inplace", quat_rotate_op, XYZW, 3);
GLASS_HARNESS_OP_T("quat_retract[xyzw]/thread_inplace", quat_retract_op, XYZW, 3);

// The serial cores.
#define QUAT_CORE(fn, tag, op, ...) GLASS_HARNESS_OP_T(fn "[" tag "]/serial", op, __VA_ARGS__)
QUAT_CORE("quat_mul_core", "xyzw", quat_mul_core_op, XYZW);
QUAT_CORE("quat_mul_core", "wxyz", quat_mul_core_op, WXYZ);
QUAT_CORE("quat_exp_core", "xyzw", quat_exp_core_op, XYZW);
QUAT_CORE("quat_exp_core", "wxyz", quat_exp_core_op, WXYZ);
QUAT_CORE("quat_normalize_core", "xyzw", quat_normalize_core_op, XYZW, false);
QUAT_CORE("quat_normalize_core", "wxyz", quat_normalize_core_op, WXYZ, false);
QUAT_CORE("quat_normalize_core", "xyzw,canonical", quat_normalize_core_op, XYZW, true);
QUAT_CORE("quat_normalize_core", "wxyz,canonical", quat_normalize_core_op, WXYZ, true);
QUAT_CORE("quat_rotate_core", "xyzw", quat_rotate_core_op, XYZW);
QUAT_CORE("quat_rotate_core", "wxyz", quat_rotate_core_op, WXYZ);
QUAT_CORE("quat_to_rot_core", "xyzw", quat_to_rot_core_op, XYZW);
QUAT_CORE("quat_to_rot_core", "wxyz", quat_to_rot_core_op, WXYZ);
QUAT_CORE("rot_to_quat_core", "xyzw,3", rot_to_quat_core_op, XYZW, 3u);
QUAT_CORE("rot_to_quat_core", "wxyz,3", rot_to_quat_core_op, WXYZ, 3u);
QUAT_CORE("rot_to_quat_core", "xyzw,4", rot_to_quat_core_op, XYZW, 4u);
QUAT_CORE("rot_to_quat_core", "wxyz,4", rot_to_quat_core_op, WXYZ, 4u);
QUAT_CORE("quat_retract_core", "xyzw", quat_retract_core_op, XYZW);
QUAT_CORE("quat_retract_core", "wxyz", quat_retract_core_op, WXYZ);
QUAT_CORE("quat_log_core", "xyzw", quat_log_core_op, XYZW);
QUAT_CORE("quat_log_core", "wxyz", quat_log_core_op, WXYZ);
QUAT_CORE("copy_out", "3", copy_out_op, 3u);
QUAT_CORE("copy_out", "4", copy_out_op, 4u);
QUAT_CORE("copy_out", "6", copy_out_op, 6u);
QUAT_CORE("copy_out_mat3", "3", copy_out_mat3_op, 3u);
QUAT_CORE("copy_out_mat3", "4", copy_out_mat3_op, 4u);
