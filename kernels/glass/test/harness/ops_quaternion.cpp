// Harness calls of glass/quaternion.cuh: every operation at thread (0), warp (1) and block (2) scope, in both
// storage layouts, double and float. Names: "<function>[<layout>(,<variant>)]/<scope>/<precision>".
#include "glass/quaternion.cuh"
#include "harness.h"

namespace {

using glass::QuatLayout;
using glass_harness::cast_in;
using glass_harness::cast_out;
using glass_harness::poisoned;

constexpr QuatLayout XYZW = QuatLayout::xyzw;
constexpr QuatLayout WXYZ = QuatLayout::wxyz;

// quat_mul: in a (4), b (4) -> a ⊗ b (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_mul_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 8 || n_out != 4) return false;
    auto a = cast_in<T>(in, 8);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) glass::thread::quat_mul<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_mul<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 2) glass::quat_mul<T, L>(a.data(), a.data() + 4, r.data());
    cast_out(r.data(), 4, out);
    return true;
}

// quat_conj: in a (4) -> a* (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_conj_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 4) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) glass::thread::quat_conj<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_conj<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::quat_conj<T, L>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

// quat_normalize: in q (4) -> q / |q| (4). SCOPE 3: thread scope in place (out == q).
template <typename T, QuatLayout L, bool CANONICAL, int SCOPE>
bool quat_normalize_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 4) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) glass::thread::quat_normalize<T, L, CANONICAL>(a.data(), r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_normalize<T, L, CANONICAL>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::quat_normalize<T, L, CANONICAL>(a.data(), r.data());
    if constexpr (SCOPE == 3) {
        glass::thread::quat_normalize<T, L, CANONICAL>(a.data(), a.data());
        r = a;
    }
    cast_out(r.data(), 4, out);
    return true;
}

// quat_exp: in phi (3) -> exp([phi/2]) (4)
template <typename T, QuatLayout L, int SCOPE>
bool quat_exp_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 3 || n_out != 4) return false;
    auto a = cast_in<T>(in, 3);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) glass::thread::quat_exp<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_exp<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::quat_exp<T, L>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

// quat_log: in q (4) -> phi (3)
template <typename T, QuatLayout L, int SCOPE>
bool quat_log_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 3) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(3);
    if constexpr (SCOPE == 0) glass::thread::quat_log<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_log<T, L>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::quat_log<T, L>(a.data(), r.data());
    cast_out(r.data(), 3, out);
    return true;
}

// quat_rotate: in q (4), p (3) -> R(q)·p (3). SCOPE 3: thread scope in place (out == p).
template <typename T, QuatLayout L, int SCOPE>
bool quat_rotate_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 7 || n_out != 3) return false;
    auto a = cast_in<T>(in, 7);
    auto r = poisoned<T>(3);
    if constexpr (SCOPE == 0) glass::thread::quat_rotate<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_rotate<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 2) glass::quat_rotate<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 3) {
        glass::thread::quat_rotate<T, L>(a.data(), a.data() + 4, a.data() + 4);
        for (int k = 0; k < 3; ++k) r[std::size_t(k)] = a[std::size_t(4 + k)];
    }
    cast_out(r.data(), 3, out);
    return true;
}

// quat_to_rot: LDA 3: in q (4) -> R (9, column-major); LDA 4: in q (4), M (16, a column-major 4×4) -> M with
// its rotation block overwritten (16).
template <typename T, QuatLayout L, uint32_t LDA, int SCOPE>
bool quat_to_rot_op(const double* in, int n_in, double* out, int n_out) {
    constexpr int N = LDA == 3 ? 9 : 16;
    if (n_in != (LDA == 3 ? 4 : 20) || n_out != N) return false;
    auto a = cast_in<T>(in, n_in);
    auto r = poisoned<T>(N);
    if constexpr (LDA != 3) {
        for (int k = 0; k < N; ++k) r[std::size_t(k)] = a[std::size_t(4 + k)];
    }
    if constexpr (SCOPE == 0) glass::thread::quat_to_rot<T, L, LDA>(a.data(), r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_to_rot<T, L, LDA>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::quat_to_rot<T, L, LDA>(a.data(), r.data());
    cast_out(r.data(), N, out);
    return true;
}

// rot_to_quat: in R (9, or a 4×4 (16) for LDA 4, column-major) -> q (4)
template <typename T, QuatLayout L, uint32_t LDA, int SCOPE>
bool rot_to_quat_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != (LDA == 3 ? 9 : 16) || n_out != 4) return false;
    auto a = cast_in<T>(in, n_in);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) {
        // the default template arguments are the form generated code uses
        if constexpr (L == XYZW && LDA == 3) {
            glass::thread::rot_to_quat<T>(a.data(), r.data());
        } else {
            glass::thread::rot_to_quat<T, L, LDA>(a.data(), r.data());
        }
    }
    if constexpr (SCOPE == 1) glass::warp::rot_to_quat<T, L, LDA>(a.data(), r.data());
    if constexpr (SCOPE == 2) glass::rot_to_quat<T, L, LDA>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

// quat_to_basis: in q (4, any norm) -> u, v, w (9)
template <typename T, QuatLayout L, int SCOPE>
bool quat_to_basis_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 9) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(9);
    T *u = r.data(), *v = r.data() + 3, *w = r.data() + 6;
    if constexpr (SCOPE == 0) glass::thread::quat_to_basis<T, L>(a.data(), u, v, w);
    if constexpr (SCOPE == 1) glass::warp::quat_to_basis<T, L>(a.data(), u, v, w);
    if constexpr (SCOPE == 2) glass::quat_to_basis<T, L>(a.data(), u, v, w);
    cast_out(r.data(), 9, out);
    return true;
}

// quat_retract: in q (4), phi (3) -> q_new (4). SCOPE 3: thread scope in place (q_new == q).
template <typename T, QuatLayout L, int SCOPE>
bool quat_retract_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 7 || n_out != 4) return false;
    auto a = cast_in<T>(in, 7);
    auto r = poisoned<T>(4);
    if constexpr (SCOPE == 0) glass::thread::quat_retract<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 1) glass::warp::quat_retract<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 2) glass::quat_retract<T, L>(a.data(), a.data() + 4, r.data());
    if constexpr (SCOPE == 3) {
        glass::thread::quat_retract<T, L>(a.data(), a.data() + 4, a.data());
        for (int k = 0; k < 4; ++k) r[std::size_t(k)] = a[std::size_t(k)];
    }
    cast_out(r.data(), 4, out);
    return true;
}

// ---- the serial lie_detail cores ("/serial"): the same input/output shapes as the scope calls above ----

template <typename T, QuatLayout L>
bool quat_mul_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 8 || n_out != 4) return false;
    auto a = cast_in<T>(in, 8);
    auto r = poisoned<T>(4);
    glass::lie_detail::quat_mul_core<T, L>(a.data(), a.data() + 4, r.data());
    cast_out(r.data(), 4, out);
    return true;
}

template <typename T, QuatLayout L>
bool quat_exp_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 3 || n_out != 4) return false;
    auto a = cast_in<T>(in, 3);
    auto r = poisoned<T>(4);
    glass::lie_detail::quat_exp_core<T, L>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

template <typename T, QuatLayout L, bool CANONICAL>
bool quat_normalize_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 4) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(4);
    glass::lie_detail::quat_normalize_core<T, L, CANONICAL>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

template <typename T, QuatLayout L>
bool quat_rotate_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 7 || n_out != 3) return false;
    auto a = cast_in<T>(in, 7);
    auto r = poisoned<T>(3);
    glass::lie_detail::quat_rotate_core<T, L>(a.data(), a.data() + 4, r.data());
    cast_out(r.data(), 3, out);
    return true;
}

template <typename T, QuatLayout L>
bool quat_to_rot_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 9) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(9);
    glass::lie_detail::quat_to_rot_core<T, L>(a.data(), r.data());
    cast_out(r.data(), 9, out);
    return true;
}

template <typename T, QuatLayout L, uint32_t LDA>
bool rot_to_quat_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != (LDA == 3 ? 9 : 16) || n_out != 4) return false;
    auto a = cast_in<T>(in, n_in);
    auto r = poisoned<T>(4);
    glass::lie_detail::rot_to_quat_core<T, L, LDA>(a.data(), r.data());
    cast_out(r.data(), 4, out);
    return true;
}

template <typename T, QuatLayout L>
bool quat_retract_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 7 || n_out != 4) return false;
    auto a = cast_in<T>(in, 7);
    auto r = poisoned<T>(4);
    glass::lie_detail::quat_retract_core<T, L>(a.data(), a.data() + 4, r.data());
    cast_out(r.data(), 4, out);
    return true;
}

template <typename T, QuatLayout L>
bool quat_log_core_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 4 || n_out != 3) return false;
    auto a = cast_in<T>(in, 4);
    auto r = poisoned<T>(3);
    glass::lie_detail::quat_log_core<T, L>(a.data(), r.data());
    cast_out(r.data(), 3, out);
    return true;
}

// copy_out<T, N>: in rank, size, tmp (N), out (N) -> out with the share of rank overwritten (N)
template <typename T, uint32_t N>
bool copy_out_op(const double* in, int n_in, double* out, int n_out) {
    if (n_in != 2 + 2 * int(N) || n_out != int(N) || in[0] < 0 || in[1] < 1) return false;
    auto a = cast_in<T>(in + 2, 2 * int(N));
    glass::lie_detail::copy_out<T, N>(uint32_t(in[0]), uint32_t(in[1]), a.data(), a.data() + N);
    cast_out(a.data() + N, int(N), out);
    return true;
}

// copy_out_mat3<T, LDA>: in rank, size, tmp (9), out (3·LDA) -> out with the share of rank stored (3·LDA)
template <typename T, uint32_t LDA>
bool copy_out_mat3_op(const double* in, int n_in, double* out, int n_out) {
    constexpr int M = 3 * int(LDA);
    if (n_in != 2 + 9 + M || n_out != M || in[0] < 0 || in[1] < 1) return false;
    auto a = cast_in<T>(in + 2, 9 + M);
    glass::lie_detail::copy_out_mat3<T, LDA>(uint32_t(in[0]), uint32_t(in[1]), a.data(), a.data() + 9);
    cast_out(a.data() + 9, M, out);
    return true;
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
