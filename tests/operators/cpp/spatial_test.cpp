// Host test of glass/spatial.cuh and glass/linalg.cuh.
//
// Every operator is checked at every scope (on the host the block and warp scopes run as one thread, which
// still walks their stride loops) against references built here independently, in double precision, from
// the definitions: the 6×6 matrices are assembled block by block with plain loops, the force transform is
// the inverse transpose of the motion transform (generic Gauss-Jordan inverse), force_cross_dual is checked
// through its defining identity, and the inertia transform against Xᵀ·I·X. Products are compared against
// the dense compositions with a forward-error bound: |got − ref| ≤ tol · (|alpha|·|A|·|x| + |beta|·|y|),
// tol = 1e-12 (double) or 1e-5 (float).
//
// Prints "N passed, M failed" and exits non-zero on any failure.

#include "glass/linalg.cuh"
#include "glass/spatial.cuh"
#include "scopes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using glass_test::BlockApi;
using glass_test::ThreadApi;
using glass_test::WarpApi;

constexpr int kTrials = 200;

int g_passed = 0;
int g_failed = 0;

template <typename T>
constexpr double tolerance() {
    return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

template <typename T>
const char* type_name() {
    return std::is_same_v<T, float> ? "float" : "double";
}

// One check at the precision of T: got[0..n) against ref with per-entry error scales (the bound of the forward error; nullptr
// means "the largest |ref|"). Entry scales are floored at 1e-3 of the largest so that exact zeros in the
// reference are compared at the vector's scale.
template <typename T, typename U>
void expect_close(const std::string& what, const U* got, const double* ref, const double* bound, int n) {
    double top = 0;
    for (int i = 0; i < n; ++i) top = std::max(top, bound ? bound[i] : std::fabs(ref[i]));
    top = std::max(top, 1e-300);
    const double tol = tolerance<T>();
    int bad = -1;
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        const double scale = bound ? std::max(bound[i], 1e-3 * top) : top;
        const double err = std::fabs(double(got[i]) - ref[i]);
        if (!(err <= tol * scale)) {
            if (bad < 0 || !(err <= worst)) worst = err;
            if (bad < 0) bad = i;
        }
    }
    if (bad < 0) {
        ++g_passed;
        return;
    }
    ++g_failed;
    if (g_failed <= 20) {
        std::printf("FAIL %s/%s: entry %d got %.17g want %.17g (worst error %.3g, scale %.3g)\n", type_name<T>(),
                    what.c_str(), bad, double(got[bad]), ref[bad], worst, top);
    }
}

void expect(const std::string& what, bool ok) {
    if (ok) {
        ++g_passed;
        return;
    }
    ++g_failed;
    if (g_failed <= 20) std::printf("FAIL %s\n", what.c_str());
}

// ---- reference algebra (double, column-major) -----------------------------------------------------------

using M3 = std::array<double, 9>;
using M6 = std::array<double, 36>;
using V6 = std::array<double, 6>;

template <size_t N>
std::array<double, N> widen(const float* x) {
    std::array<double, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = x[i];
    return out;
}

template <size_t N>
std::array<double, N> widen(const double* x) {
    std::array<double, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = x[i];
    return out;
}

// [a]ₓ with [a]ₓ·b = a × b.
M3 skew(const double* a) {
    return M3{0, a[2], -a[1], -a[2], 0, a[0], a[1], -a[0], 0};
}

M3 mul3(const M3& a, const M3& b) {
    M3 c{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) c[i + 3 * j] += a[i + 3 * k] * b[k + 3 * j];
    return c;
}

// Places the 3×3 block b at block position (bi, bj) of M, scaled by s.
void put_block(M6& M, int bi, int bj, const M3& b, double s = 1) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[(3 * bi + i) + 6 * (3 * bj + j)] = s * b[i + 3 * j];
}

M6 transpose(const M6& a) {
    M6 t{};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) t[j + 6 * i] = a[i + 6 * j];
    return t;
}

M6 mul6(const M6& a, const M6& b) {
    M6 c{};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 6; ++k) c[i + 6 * j] += a[i + 6 * k] * b[k + 6 * j];
    return c;
}

M6 abs6(const M6& a) {
    M6 c{};
    for (int i = 0; i < 36; ++i) c[i] = std::fabs(a[i]);
    return c;
}

M6 scale6(const M6& a, double s) {
    M6 c{};
    for (int i = 0; i < 36; ++i) c[i] = s * a[i];
    return c;
}

// Generic n×n inverse by Gauss-Jordan elimination with partial pivoting.
template <int N>
std::array<double, N * N> inverse(std::array<double, N * N> a) {
    std::array<double, N * N> inv{};
    for (int i = 0; i < N; ++i) inv[i + N * i] = 1;
    for (int c = 0; c < N; ++c) {
        int p = c;
        for (int i = c + 1; i < N; ++i)
            if (std::fabs(a[i + N * c]) > std::fabs(a[p + N * c])) p = i;
        for (int j = 0; j < N; ++j) {
            std::swap(a[c + N * j], a[p + N * j]);
            std::swap(inv[c + N * j], inv[p + N * j]);
        }
        const double d = a[c + N * c];
        for (int j = 0; j < N; ++j) {
            a[c + N * j] /= d;
            inv[c + N * j] /= d;
        }
        for (int i = 0; i < N; ++i) {
            if (i == c) continue;
            const double f = a[i + N * c];
            for (int j = 0; j < N; ++j) {
                a[i + N * j] -= f * a[c + N * j];
                inv[i + N * j] -= f * inv[c + N * j];
            }
        }
    }
    return inv;
}

// motion_cross(v) = [[ωₓ, 0], [v_linₓ, ωₓ]].
M6 crm_ref(const double* v) {
    M6 M{};
    put_block(M, 0, 0, skew(v));
    put_block(M, 1, 0, skew(v + 3));
    put_block(M, 1, 1, skew(v));
    return M;
}

// force_cross(v) = −motion_cross(v)ᵀ.
M6 crf_ref(const double* v) { return scale6(transpose(crm_ref(v)), -1); }

// ᴮX_A = [[E, 0], [−E·[r]ₓ, E]].
M6 xm_ref(const double* E, const double* r) {
    M3 e{};
    for (int i = 0; i < 9; ++i) e[i] = E[i];
    M6 X{};
    put_block(X, 0, 0, e);
    put_block(X, 1, 0, mul3(e, skew(r)), -1);
    put_block(X, 1, 1, e);
    return X;
}

// Rotational inertia (symmetric 3×3) from pi[4..9] = Ixx Ixy Ixz Iyy Iyz Izz.
M3 rot_inertia(const double* pi) {
    return M3{pi[4], pi[5], pi[6], pi[5], pi[7], pi[8], pi[6], pi[8], pi[9]};
}

// I(pi) = [[I_O, [h]ₓ], [[h]ₓᵀ, m·1]].
M6 inertia_ref(const double* pi) {
    M6 M{};
    put_block(M, 0, 0, rot_inertia(pi));
    const M3 h = skew(pi + 1);
    put_block(M, 0, 1, h);
    M3 ht{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) ht[i + 3 * j] = h[j + 3 * i];
    put_block(M, 1, 0, ht);
    for (int i = 3; i < 6; ++i) M[i + 6 * i] = pi[0];
    return M;
}

// ref = alpha·A·x (+ beta·y0), bound = |alpha|·|A|·|x| (+ |beta|·|y0|).
struct Apply {
    V6 ref{};
    V6 bound{};
};

Apply apply_ref(const M6& A, const V6& x, double alpha, bool has_beta, double beta, const V6& y0) {
    Apply out;
    for (int i = 0; i < 6; ++i) {
        double s = 0, b = 0;
        for (int j = 0; j < 6; ++j) {
            s += A[i + 6 * j] * x[j];
            b += std::fabs(A[i + 6 * j] * x[j]);
        }
        out.ref[i] = alpha * s;
        out.bound[i] = std::fabs(alpha) * b;
        if (has_beta) {
            out.ref[i] += beta * y0[i];
            out.bound[i] += std::fabs(beta * y0[i]);
        }
    }
    return out;
}

// ---- random inputs ----------------------------------------------------------------------------------------

struct Rng {
    std::mt19937_64 gen{0x5eed5a7a1ULL};
    double uniform(double lo = -1, double hi = 1) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
    double normal() { return std::normal_distribution<double>(0, 1)(gen); }
    // A magnitude spread over two decades, so the relative tolerances are exercised away from 1.
    double magnitude() { return std::pow(10.0, uniform(-1, 1)); }
};

template <typename T, size_t N>
std::array<T, N> random_vec(Rng& rng) {
    std::array<T, N> x{};
    const double s = rng.magnitude();
    for (auto& e : x) e = T(s * rng.uniform());
    return x;
}

// A proper rotation (column-major) from a random unit quaternion.
template <typename T>
std::array<T, 9> random_rotation(Rng& rng) {
    double q[4];
    double n = 0;
    for (double& e : q) {
        e = rng.normal();
        n += e * e;
    }
    n = std::sqrt(n);
    const double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                         2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                         2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
    std::array<T, 9> E{};
    for (int i = 0; i < 9; ++i) E[i] = T(R[i]);
    return E;
}

// Physically valid parameters: m > 0, h = m·c, I_O = I_c + m·[c]ₓ[c]ₓᵀ with I_c positive definite.
template <typename T>
std::array<T, 10> random_inertia(Rng& rng) {
    const double m = std::pow(10.0, rng.uniform(-1, 1));
    const double c[3] = {rng.uniform(), rng.uniform(), rng.uniform()};
    const auto R = random_rotation<double>(rng);
    const double d[3] = {rng.uniform(0.1, 1) * m, rng.uniform(0.1, 1) * m, rng.uniform(0.1, 1) * m};
    M3 Ic{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) Ic[i + 3 * j] += R[i + 3 * k] * d[k] * R[j + 3 * k];
    const M3 S = skew(c);
    M3 I{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += S[i + 3 * k] * S[j + 3 * k];
            I[i + 3 * j] = Ic[i + 3 * j] + m * s;
        }
    return std::array<T, 10>{T(m),     T(m * c[0]), T(m * c[1]), T(m * c[2]), T(I[0]),
                             T(I[3]), T(I[6]),     T(I[4]),     T(I[7]),     T(I[8])};
}

template <typename T, size_t N>
std::array<T, N> filled(T value) {
    std::array<T, N> a{};
    a.fill(value);
    return a;
}

template <typename T>
T nan_value() {
    return std::numeric_limits<T>::quiet_NaN();
}

// ---- fused products: the (alpha, beta) variants ---------------------------------------------------------

// Runs op(hb, alpha, beta, y) — hb a std::bool_constant selecting HAS_BETA — in each (alpha, beta) mode and
// compares with alpha·A·x (+ beta·y0):
//   * HAS_BETA = false with y poisoned with NaN (y must not be read);
//   * HAS_BETA = true, random beta, random y0;
//   * HAS_BETA = true, beta = 0, y poisoned with NaN (BLAS semantics: y must not be read);
//   * HAS_BETA = true, alpha = beta = 1 (plain accumulation).
template <typename T, typename Op>
void check_apply(const std::string& name, Rng& rng, const M6& A, const V6& x, Op op) {
    const T alpha = T(rng.uniform(0.5, 2) * (rng.uniform() < 0 ? -1 : 1));
    const T beta = T(rng.uniform(0.5, 2) * (rng.uniform() < 0 ? -1 : 1));
    const auto y0 = random_vec<T, 6>(rng);
    const V6 y0d = widen<6>(y0.data());
    {
        auto y = filled<T, 6>(nan_value<T>());
        op(std::false_type{}, alpha, T(7), y.data());
        const Apply a = apply_ref(A, x, alpha, false, 0, y0d);
        expect_close<T>(name + "<HAS_BETA=0>", y.data(), a.ref.data(), a.bound.data(), 6);
    }
    {
        auto y = y0;
        op(std::true_type{}, alpha, beta, y.data());
        const Apply a = apply_ref(A, x, alpha, true, beta, y0d);
        expect_close<T>(name + "<HAS_BETA=1>", y.data(), a.ref.data(), a.bound.data(), 6);
    }
    {
        auto y = filled<T, 6>(nan_value<T>());
        op(std::true_type{}, alpha, T(0), y.data());
        const Apply a = apply_ref(A, x, alpha, false, 0, y0d);
        expect_close<T>(name + "<HAS_BETA=1, beta=0, y=NaN>", y.data(), a.ref.data(), a.bound.data(), 6);
    }
    {
        auto y = y0;
        op(std::true_type{}, T(1), T(1), y.data());
        const Apply a = apply_ref(A, x, 1, true, 1, y0d);
        expect_close<T>(name + "<HAS_BETA=1, alpha=beta=1>", y.data(), a.ref.data(), a.bound.data(), 6);
    }
}

// ---- per-scope tests --------------------------------------------------------------------------------------

template <typename T, typename A, int AXIS>
void check_axis(const std::string& scope, Rng& rng, const std::array<T, 6>& v) {
    const V6 vd = widen<6>(v.data());
    V6 e{};
    e[AXIS] = 1;
    check_apply<T>(scope + "/motion_cross_mul<AXIS=" + std::to_string(AXIS) + ">", rng, crm_ref(vd.data()), e,
                   [&](auto hb, T a, T b, T* y) {
                       A::template motion_cross_mul<T, AXIS, decltype(hb)::value>(a, v.data(), nullptr, b, y);
                   });
}

template <typename T, typename A, int... AXES>
void check_axes(const std::string& scope, Rng& rng, const std::array<T, 6>& v,
                std::integer_sequence<int, AXES...>) {
    (check_axis<T, A, AXES>(scope, rng, v), ...);
}

template <typename T, typename A>
void check_cross(Rng& rng) {
    const std::string scope = A::name;
    for (int t = 0; t < kTrials; ++t) {
        const auto v = random_vec<T, 6>(rng);
        const auto x = random_vec<T, 6>(rng);
        const auto f = random_vec<T, 6>(rng);
        const V6 vd = widen<6>(v.data()), xd = widen<6>(x.data()), fd = widen<6>(f.data());
        const M6 crm = crm_ref(vd.data());
        const M6 crf = crf_ref(vd.data());

        auto M = filled<T, 36>(nan_value<T>());
        A::template motion_cross<T>(v.data(), M.data());
        expect_close<T>(scope + "/motion_cross", M.data(), crm.data(), nullptr, 36);

        M = filled<T, 36>(nan_value<T>());
        A::template force_cross<T>(v.data(), M.data());
        expect_close<T>(scope + "/force_cross", M.data(), crf.data(), nullptr, 36);

        // force_cross_dual(f) is defined by force_cross(v)·f == force_cross_dual(f)·v for all v; applied to
        // the basis vectors e_k this fixes column k as force_cross(e_k)·f.
        M6 dual{};
        for (int k = 0; k < 6; ++k) {
            V6 e{};
            e[k] = 1;
            const M6 crf_e = crf_ref(e.data());
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 6; ++j) dual[i + 6 * k] += crf_e[i + 6 * j] * fd[j];
        }
        M = filled<T, 36>(nan_value<T>());
        A::template force_cross_dual<T>(f.data(), M.data());
        expect_close<T>(scope + "/force_cross_dual (basis columns)", M.data(), dual.data(), nullptr, 36);
        // ...and the identity itself for this random v, through the operator's own matrix.
        {
            const M6 D = widen<36>(M.data());
            const Apply lhs = apply_ref(crf, fd, 1, false, 0, fd);
            const Apply rhs = apply_ref(D, vd, 1, false, 0, vd);
            V6 bound{};
            for (int i = 0; i < 6; ++i) bound[i] = lhs.bound[i] + rhs.bound[i];
            expect_close<T>(scope + "/force_cross_dual identity", rhs.ref.data(), lhs.ref.data(), bound.data(), 6);
        }

        check_apply<T>(scope + "/motion_cross_mul<AXIS=-1>", rng, crm, xd, [&](auto hb, T a, T b, T* y) {
            A::template motion_cross_mul<T, -1, decltype(hb)::value>(a, v.data(), x.data(), b, y);
        });
        check_axes<T, A>(scope, rng, v, std::make_integer_sequence<int, 6>{});
        check_apply<T>(scope + "/force_cross_mul", rng, crf, fd, [&](auto hb, T a, T b, T* y) {
            A::template force_cross_mul<T, decltype(hb)::value>(a, v.data(), f.data(), b, y);
        });
    }
}

template <typename T, typename A>
void check_transforms(Rng& rng) {
    const std::string scope = A::name;
    for (int t = 0; t < kTrials; ++t) {
        const auto E = random_rotation<T>(rng);
        const auto r = random_vec<T, 3>(rng);
        const auto v = random_vec<T, 6>(rng);
        const auto f = random_vec<T, 6>(rng);
        const auto Ed = widen<9>(E.data());
        const auto rd = widen<3>(r.data());
        const V6 vd = widen<6>(v.data()), fd = widen<6>(f.data());
        const M6 X = xm_ref(Ed.data(), rd.data());
        const M6 Xinv = inverse<6>(X);
        const M6 Xf = transpose(Xinv);  // X* = X⁻ᵀ
        const M6 Xf_inv = inverse<6>(Xf);

        auto M = filled<T, 36>(nan_value<T>());
        A::template motion_transform<T>(E.data(), r.data(), M.data());
        expect_close<T>(scope + "/motion_transform", M.data(), X.data(), nullptr, 36);

        M = filled<T, 36>(nan_value<T>());
        A::template force_transform<T>(E.data(), r.data(), M.data());
        expect_close<T>(scope + "/force_transform (= inverse transpose)", M.data(), Xf.data(), nullptr, 36);

        check_apply<T>(scope + "/motion_transform_mul<INVERSE=0>", rng, X, vd, [&](auto hb, T a, T b, T* y) {
            A::template motion_transform_mul<T, false, decltype(hb)::value>(a, E.data(), r.data(), v.data(), b, y);
        });
        check_apply<T>(scope + "/motion_transform_mul<INVERSE=1>", rng, Xinv, vd, [&](auto hb, T a, T b, T* y) {
            A::template motion_transform_mul<T, true, decltype(hb)::value>(a, E.data(), r.data(), v.data(), b, y);
        });
        check_apply<T>(scope + "/force_transform_mul<INVERSE=0>", rng, Xf, fd, [&](auto hb, T a, T b, T* y) {
            A::template force_transform_mul<T, false, decltype(hb)::value>(a, E.data(), r.data(), f.data(), b, y);
        });
        check_apply<T>(scope + "/force_transform_mul<INVERSE=1>", rng, Xf_inv, fd, [&](auto hb, T a, T b, T* y) {
            A::template force_transform_mul<T, true, decltype(hb)::value>(a, E.data(), r.data(), f.data(), b, y);
        });
        // The spec's statement of the inverse force transform: X*⁻¹ = Xᵀ.
        check_apply<T>(scope + "/force_transform_mul<INVERSE=1> (= Xᵀ)", rng, transpose(X), fd,
                       [&](auto hb, T a, T b, T* y) {
                           A::template force_transform_mul<T, true, decltype(hb)::value>(a, E.data(), r.data(),
                                                                                         f.data(), b, y);
                       });
    }
}

// Xᵀ·M·X with the entrywise bound |X|ᵀ·|M|·|X|.
std::pair<M6, M6> congruence(const M6& X, const M6& M) {
    const M6 Xt = transpose(X);
    return {mul6(Xt, mul6(M, X)), mul6(abs6(Xt), mul6(abs6(M), abs6(X)))};
}

template <typename T, typename A>
void check_inertia(Rng& rng) {
    const std::string scope = A::name;
    for (int t = 0; t < kTrials; ++t) {
        const auto pi = random_inertia<T>(rng);
        const auto v = random_vec<T, 6>(rng);
        const auto E = random_rotation<T>(rng);
        const auto r = random_vec<T, 3>(rng);
        const auto pid = widen<10>(pi.data());
        const V6 vd = widen<6>(v.data());
        const auto Ed = widen<9>(E.data());
        const auto rd = widen<3>(r.data());
        const M6 I = inertia_ref(pid.data());

        auto M = filled<T, 36>(nan_value<T>());
        A::template spatial_inertia<T>(pi.data(), M.data());
        expect_close<T>(scope + "/spatial_inertia", M.data(), I.data(), nullptr, 36);

        check_apply<T>(scope + "/spatial_inertia_mul", rng, I, vd, [&](auto hb, T a, T b, T* y) {
            A::template spatial_inertia_mul<T, decltype(hb)::value>(a, pi.data(), v.data(), b, y);
        });

        // Inertia transform: the 10 parameters of Xᵀ·I·X (forward) and X⁻ᵀ·I·X⁻¹ (inverse), compared as the
        // full 6×6 matrices they stand for (so the m·1 and [h]ₓ structure is checked too).
        const M6 X = xm_ref(Ed.data(), rd.data());
        const M6 Xinv = inverse<6>(X);
        const auto fwd = congruence(X, I);
        const auto inv = congruence(Xinv, I);
        const auto acc = random_inertia<T>(rng);
        const M6 Iacc = inertia_ref(widen<10>(acc.data()).data());

        auto check_transform = [&](auto inverse_tag, auto hb, const std::pair<M6, M6>& want) {
            constexpr bool INV = decltype(inverse_tag)::value;
            constexpr bool HB = decltype(hb)::value;
            auto out = HB ? acc : filled<T, 10>(nan_value<T>());
            A::template spatial_inertia_transform<T, INV, HB>(E.data(), r.data(), pi.data(), out.data());
            const M6 got = inertia_ref(widen<10>(out.data()).data());
            M6 ref = want.first, bound = want.second;
            if (HB) {
                for (int k = 0; k < 36; ++k) {
                    ref[k] += Iacc[k];
                    bound[k] += std::fabs(Iacc[k]);
                }
            }
            const std::string name = scope + "/spatial_inertia_transform<INVERSE=" + std::to_string(INV) +
                                     ", HAS_BETA=" + std::to_string(HB) + ">";
            expect_close<T>(name, got.data(), ref.data(), bound.data(), 36);
        };
        check_transform(std::false_type{}, std::false_type{}, fwd);
        check_transform(std::false_type{}, std::true_type{}, fwd);
        check_transform(std::true_type{}, std::false_type{}, inv);
        check_transform(std::true_type{}, std::true_type{}, inv);

        // Round trip: the inverse mapping undoes the forward one.
        {
            std::array<T, 10> there{}, back{};
            A::template spatial_inertia_transform<T, false, false>(E.data(), r.data(), pi.data(), there.data());
            A::template spatial_inertia_transform<T, true, false>(E.data(), r.data(), there.data(), back.data());
            // |X⁻¹|ᵀ·|X|ᵀ·|I|·|X|·|X⁻¹| bounds every term of the round trip.
            const M6 bound = congruence(abs6(Xinv), fwd.second).first;
            const M6 got = inertia_ref(widen<10>(back.data()).data());
            expect_close<T>(scope + "/spatial_inertia_transform round trip", got.data(), I.data(), bound.data(), 36);
        }
    }
}

// The thread-scope fused operations form their result in registers, so the output may alias an input.
template <typename T>
void check_in_place(Rng& rng) {
    const std::string scope = "thread(in place)";
    for (int t = 0; t < kTrials; ++t) {
        const auto v = random_vec<T, 6>(rng);
        const auto x = random_vec<T, 6>(rng);
        const auto E = random_rotation<T>(rng);
        const auto r = random_vec<T, 3>(rng);
        const auto pi = random_inertia<T>(rng);
        const T alpha = T(rng.uniform(0.5, 2)), beta = T(rng.uniform(0.5, 2));
        auto same = [&](const std::string& name, const std::array<T, 6>& in_place, const std::array<T, 6>& apart) {
            const V6 ref = widen<6>(apart.data());
            V6 bound{};
            for (int i = 0; i < 6; ++i) bound[i] = std::fabs(ref[i]);
            expect_close<T>(scope + "/" + name, in_place.data(), ref.data(), bound.data(), 6);
        };
        {
            auto y = x, z = x;
            glass::thread::motion_cross_mul<T, -1, true>(alpha, v.data(), y.data(), beta, y.data());
            glass::thread::motion_cross_mul<T, -1, true>(alpha, v.data(), x.data(), beta, z.data());
            same("motion_cross_mul", y, z);
        }
        {
            auto y = x, z = x;
            glass::thread::force_cross_mul<T, true>(alpha, v.data(), y.data(), beta, y.data());
            glass::thread::force_cross_mul<T, true>(alpha, v.data(), x.data(), beta, z.data());
            same("force_cross_mul", y, z);
        }
        {
            auto y = x, z = x;
            glass::thread::motion_transform_mul<T, false, true>(alpha, E.data(), r.data(), y.data(), beta, y.data());
            glass::thread::motion_transform_mul<T, false, true>(alpha, E.data(), r.data(), x.data(), beta, z.data());
            same("motion_transform_mul", y, z);
        }
        {
            auto y = x, z = x;
            glass::thread::force_transform_mul<T, true, true>(alpha, E.data(), r.data(), y.data(), beta, y.data());
            glass::thread::force_transform_mul<T, true, true>(alpha, E.data(), r.data(), x.data(), beta, z.data());
            same("force_transform_mul", y, z);
        }
        {
            auto y = x, z = x;
            glass::thread::spatial_inertia_mul<T, true>(alpha, pi.data(), y.data(), beta, y.data());
            glass::thread::spatial_inertia_mul<T, true>(alpha, pi.data(), x.data(), beta, z.data());
            same("spatial_inertia_mul", y, z);
        }
        {
            auto p = pi;
            std::array<T, 10> q{};
            glass::thread::spatial_inertia_transform<T, false, false>(E.data(), r.data(), p.data(), p.data());
            glass::thread::spatial_inertia_transform<T, false, false>(E.data(), r.data(), pi.data(), q.data());
            const auto qd = widen<10>(q.data());
            std::array<double, 10> bound{};
            for (int i = 0; i < 10; ++i) bound[i] = std::fabs(qd[i]) + 1e-3;
            expect_close<T>(scope + "/spatial_inertia_transform", p.data(), qd.data(), bound.data(), 10);
        }
    }
}

template <typename T, typename A>
void check_scope(Rng& rng) {
    check_cross<T, A>(rng);
    check_transforms<T, A>(rng);
    check_inertia<T, A>(rng);
}

// ---- linalg ------------------------------------------------------------------------------------------------

template <typename T, int N>
void check_spd_inverse(Rng& rng) {
    const std::string name = "spd_inverse<N=" + std::to_string(N) + ">";
    for (int t = 0; t < kTrials; ++t) {
        // A = B·Bᵀ + N·1 (well conditioned), scaled over two decades.
        std::array<double, N * N> B{}, Ad{};
        for (auto& e : B) e = rng.uniform();
        const double s = rng.magnitude();
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) {
                double acc = i == j ? N : 0;
                for (int k = 0; k < N; ++k) acc += B[i + N * k] * B[j + N * k];
                Ad[i + N * j] = s * acc;
            }
        std::array<T, N * N> A{}, Ainv{};
        for (int k = 0; k < N * N; ++k) A[k] = T(Ad[k]);
        // Only the lower triangle is read: poison the strict upper one.
        auto lower = A;
        for (int j = 1; j < N; ++j)
            for (int i = 0; i < j; ++i) lower[i + N * j] = nan_value<T>();
        const bool ok = glass::thread::spd_inverse<T, N>(lower.data(), Ainv.data());
        expect(std::string(type_name<T>()) + "/" + name + " accepts an SPD matrix", ok);
        const auto want = inverse<N>(widen<N * N>(A.data()));
        double top = 0;
        for (double e : want) top = std::max(top, std::fabs(e));
        std::array<double, N * N> bound{};
        bound.fill(top * N);  // cond(A) ≤ (N + N²)/N = N + 1: the error is a few ulps of N·‖A⁻¹‖
        expect_close<T>(name, Ainv.data(), want.data(), bound.data(), N * N);
        bool symmetric = true;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) symmetric = symmetric && Ainv[i + N * j] == Ainv[j + N * i];
        expect(std::string(type_name<T>()) + "/" + name + " symmetric", symmetric);

        // In place.
        auto inplace = A;
        glass::thread::spd_inverse<T, N>(inplace.data(), inplace.data());
        expect_close<T>(name + " (in place)", inplace.data(), want.data(), bound.data(), N * N);
    }
    // Not positive definite: a negative pivot, a zero matrix, a NaN entry.
    for (int c = 0; c < 3; ++c) {
        std::array<T, N * N> A{}, Ainv{};
        for (int i = 0; i < N; ++i) A[i + N * i] = T(1);
        if (c == 0) A[(N - 1) + N * (N - 1)] = T(-1);
        if (c == 1) A.fill(T(0));
        if (c == 2) A[N * N - 1] = nan_value<T>();
        const bool ok = glass::thread::spd_inverse<T, N>(A.data(), Ainv.data());
        bool all_nan = true;
        for (T e : Ainv) all_nan = all_nan && std::isnan(e);
        expect(std::string(type_name<T>()) + "/" + name + " rejects a non-SPD matrix (case " + std::to_string(c) +
                   ")",
               !ok && all_nan);
    }
}

// A physically valid spatial inertia is SPD: its inverse through spd_inverse, checked as I·I⁻¹ = 1.
template <typename T>
void check_spd_inverse_inertia(Rng& rng) {
    for (int t = 0; t < kTrials; ++t) {
        const auto pi = random_inertia<T>(rng);
        std::array<T, 36> I{}, Iinv{};
        glass::thread::spatial_inertia<T>(pi.data(), I.data());
        const bool ok = glass::thread::spd_inverse<T, 6>(I.data(), Iinv.data());
        expect(std::string(type_name<T>()) + "/spd_inverse(spatial inertia) accepts", ok);
        const M6 Id = widen<36>(I.data());
        const M6 prod = mul6(Id, widen<36>(Iinv.data()));
        M6 eye{};
        for (int i = 0; i < 6; ++i) eye[i + 6 * i] = 1;
        // A backward-stable inverse leaves a residual of a few ulps of n·cond(I), cond(I) = ‖I‖∞·‖I⁻¹‖∞.
        const M6 Iinv_ref = inverse<6>(Id);
        double norm = 0, norm_inv = 0;
        for (int i = 0; i < 6; ++i) {
            double row = 0, row_inv = 0;
            for (int j = 0; j < 6; ++j) {
                row += std::fabs(Id[i + 6 * j]);
                row_inv += std::fabs(Iinv_ref[i + 6 * j]);
            }
            norm = std::max(norm, row);
            norm_inv = std::max(norm_inv, row_inv);
        }
        M6 bound{};
        bound.fill(6 * norm * norm_inv);
        expect_close<T>("spd_inverse(spatial inertia)·I = 1", prod.data(), eye.data(), bound.data(), 36);
    }
}

template <typename T>
void check_all(Rng& rng) {
    check_scope<T, BlockApi<true>>(rng);
    check_scope<T, BlockApi<false>>(rng);
    check_scope<T, WarpApi>(rng);
    check_scope<T, ThreadApi>(rng);
    check_in_place<T>(rng);
    check_spd_inverse<T, 1>(rng);
    check_spd_inverse<T, 2>(rng);
    check_spd_inverse<T, 3>(rng);
    check_spd_inverse<T, 4>(rng);
    check_spd_inverse<T, 5>(rng);
    check_spd_inverse<T, 6>(rng);
    check_spd_inverse_inertia<T>(rng);
}

}  // namespace

int main() {
    Rng rng;
    check_all<double>(rng);
    check_all<float>(rng);
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
