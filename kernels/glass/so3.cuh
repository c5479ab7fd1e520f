// SO(3) exponential, logarithm and Jacobians (rotation vectors φ = axis·angle, θ = |φ|).
//
// Conventions:
//   * matrices are column-major: entry (i, j) of a 3×3 lives at [i + 3·j];
//   * [φ]ₓ is the hat map ([φ]ₓ·x = φ × x); every operator here is a Rodrigues-form polynomial
//     I + a·[φ]ₓ + b·[φ]ₓ², with [φ]ₓ² = φφᵀ − θ²·1 (so no matrix product is formed);
//   * right Jacobian: exp(φ + δ) ≈ exp(φ)·exp(Jr(φ)·δ); left Jacobian Jl(φ) = Jr(−φ) (also the SE(3) "V matrix").
//
// Small-angle policy: every coefficient is evaluated where it has no cancellation and by its Taylor series
// where the closed form would cancel or divide by zero:
//   * a = sinθ/θ and b = (1−cosθ)/θ² = ½·(sin(θ/2)/(θ/2))² are cancellation-free, so only θ < 1e-8 takes the
//     Taylor heads (the 0/0 guard);
//   * c = (θ−sinθ)/θ³ and e = 1/θ² − cot(θ/2)/(2θ) lose ~eps/θ² relative accuracy in closed form, so they use
//     their series below θ = 0.5 in double (truncation below 1e-15 there) and below θ = 1.5 in float (where
//     the closed form would still cost ~50 ulp), keeping results accurate to a few ulp at every angle instead
//     of only away from a narrow window.
//
// Scopes (the house style of spatial.cuh): the lie_detail cores are serial; glass:: (block scope) and
// glass::warp form the small result in registers on every thread and spread the stores over the threads;
// glass::thread computes and stores everything. Block/warp outputs must not alias their inputs; at thread
// scope the whole result is formed before it is stored, so so3_log's phi may alias R's storage.
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

// Full unrolling of constant-trip loops (same compiler split as spatial.cuh).
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define GLASS_LIE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define GLASS_LIE_UNROLL _Pragma("GCC unroll 64")
#else
#define GLASS_LIE_UNROLL
#endif

namespace glass {

namespace lie_detail {

// Upper end of the series branches of c and e (see the file header).
template <typename T>
GLASS_HD T so3_series_max() {
    return sizeof(T) < sizeof(double) ? T(1.5) : T(0.5);
}

// Stores rank's share (of size cooperating threads) of out[0..N) = tmp; compile-time indices keep tmp in
// registers.
template <typename T, uint32_t N>
GLASS_HD void so3_store(uint32_t rank, uint32_t size, const T* tmp, T* out) {
    uint32_t next = rank;
    GLASS_LIE_UNROLL
    for (uint32_t k = 0; k < N; ++k) {
        if (k == next) {
            out[k] = tmp[k];
            next += size;
        }
    }
}

// S = [v]ₓ (column-major).
template <typename T>
GLASS_HD void skew_core(const T* v, T* S) {
    S[0] = T(0);
    S[1] = v[2];
    S[2] = -v[1];
    S[3] = -v[2];
    S[4] = T(0);
    S[5] = v[0];
    S[6] = v[1];
    S[7] = -v[0];
    S[8] = T(0);
}

// C = A·B for column-major 3×3 matrices (C must not alias A or B).
template <typename T>
GLASS_HD void mat3_mul_core(const T* A, const T* B, T* C) {
    GLASS_LIE_UNROLL
    for (uint32_t j = 0; j < 3u; ++j) {
        GLASS_LIE_UNROLL
        for (uint32_t i = 0; i < 3u; ++i)
            C[i + 3u * j] = A[i] * B[3u * j] + A[i + 3u] * B[1u + 3u * j] + A[i + 6u] * B[2u + 3u * j];
    }
}

// out = A·v for a column-major 3×3 A (out must not alias v).
template <typename T>
GLASS_HD void mat3_vec_core(const T* A, const T* v, T* out) {
    out[0] = A[0] * v[0] + A[3] * v[1] + A[6] * v[2];
    out[1] = A[1] * v[0] + A[4] * v[1] + A[7] * v[2];
    out[2] = A[2] * v[0] + A[5] * v[1] + A[8] * v[2];
}

// |v|.
template <typename T>
GLASS_HD T vec3_norm(const T* v) {
    using std::sqrt;
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// M = I + ca·[φ]ₓ + cb·[φ]ₓ², using [φ]ₓ² = φφᵀ − |φ|²·1 (column-major).
template <typename T>
GLASS_HD void rodrigues_core(const T* phi, T ca, T cb, T* M) {
    const T d = T(1) - cb * (phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
    M[0] = d + cb * phi[0] * phi[0];
    M[4] = d + cb * phi[1] * phi[1];
    M[8] = d + cb * phi[2] * phi[2];
    const T s01 = cb * phi[0] * phi[1], s02 = cb * phi[0] * phi[2], s12 = cb * phi[1] * phi[2];
    const T a0 = ca * phi[0], a1 = ca * phi[1], a2 = ca * phi[2];
    M[1] = s01 + a2;
    M[3] = s01 - a2;
    M[2] = s02 - a1;
    M[6] = s02 + a1;
    M[5] = s12 + a0;
    M[7] = s12 - a0;
}

// The Rodrigues coefficients a = sinθ/θ, b = (1−cosθ)/θ², c = (θ−sinθ)/θ³ (see the file header for the
// branch policy).
template <typename T>
GLASS_HD void rodrigues_coefs(T theta, T& a, T& b, T& c) {
    using std::sin;
    const T t2 = theta * theta;
    if (theta < T(1e-8)) {
        a = T(1) - t2 / T(6);
        b = T(0.5) - t2 / T(24);
        c = T(1) / T(6) - t2 / T(120);
        return;
    }
    a = sin(theta) / theta;
    const T h = sin(T(0.5) * theta) / theta;
    b = T(2) * h * h;
    if (theta < so3_series_max<T>()) {
        // Σ (−1)ⁿ θ²ⁿ / (2n+3)!, Horner through θ¹⁰.
        c = T(1) / T(6) +
            t2 * (T(-1) / T(120) +
                  t2 * (T(1) / T(5040) +
                        t2 * (T(-1) / T(362880) + t2 * (T(1) / T(39916800) + t2 * (T(-1) / T(6227020800.0))))));
    } else {
        c = (theta - sin(theta)) / (t2 * theta);
    }
}

// R = exp([φ]ₓ) = I + a·[φ]ₓ + b·[φ]ₓ².
template <typename T>
GLASS_HD void so3_exp_core(const T* phi, T* R) {
    T a, b, c;
    rodrigues_coefs(vec3_norm(phi), a, b, c);
    rodrigues_core(phi, a, b, R);
}

// J = Jr(φ) = I − b·[φ]ₓ + c·[φ]ₓ².
template <typename T>
GLASS_HD void so3_right_jacobian_core(const T* phi, T* J) {
    T a, b, c;
    rodrigues_coefs(vec3_norm(phi), a, b, c);
    rodrigues_core(phi, -b, c, J);
}

// J = Jl(φ) = I + b·[φ]ₓ + c·[φ]ₓ².
template <typename T>
GLASS_HD void so3_left_jacobian_core(const T* phi, T* J) {
    T a, b, c;
    rodrigues_coefs(vec3_norm(phi), a, b, c);
    rodrigues_core(phi, b, c, J);
}

// e(θ) = 1/θ² − cot(θ/2)/(2θ), the [φ]ₓ² coefficient of Jr⁻¹ and Jl⁻¹. Finite through θ = π (1/π²); the series
// Σ |B₂ₙ|/(2n)!·θ²ⁿ⁻² (Bernoulli numbers) replaces the cancelling closed form on the series branch.
template <typename T>
GLASS_HD T inv_jacobian_coef(T theta) {
    using std::cos;
    using std::sin;
    const T t2 = theta * theta;
    if (theta < so3_series_max<T>()) {
        return T(1) / T(12) +
               t2 * (T(1) / T(720) +
                     t2 * (T(1) / T(30240) +
                           t2 * (T(1) / T(1209600) +
                                 t2 * (T(1) / T(47900160) +
                                       t2 * (T(691) / T(1307674368000.0) + t2 * (T(1) / T(74724249600.0)))))));
    }
    const T h = T(0.5) * theta;
    return T(1) / t2 - cos(h) / (T(2) * theta * sin(h));
}

// J = Jr(φ)⁻¹ = I + ½[φ]ₓ + e·[φ]ₓ².
template <typename T>
GLASS_HD void so3_right_jacobian_inv_core(const T* phi, T* J) {
    rodrigues_core(phi, T(0.5), inv_jacobian_coef(vec3_norm(phi)), J);
}

// J = Jl(φ)⁻¹ = I − ½[φ]ₓ + e·[φ]ₓ².
template <typename T>
GLASS_HD void so3_left_jacobian_inv_core(const T* phi, T* J) {
    rodrigues_core(phi, T(-0.5), inv_jacobian_coef(vec3_norm(phi)), J);
}

// φ = log(R) on the canonical branch |φ| ≤ π: Shepperd's largest-pivot quaternion extraction (never divides
// by a small number), the w ≥ 0 cover, then φ = 2·atan2(|v|, w)·v/|v|. Unlike θ/(2 sinθ)·vee(R − Rᵀ) this
// keeps the axis as θ → π. The quaternion need not be normalised: the map is invariant to its scale.
template <typename T>
GLASS_HD void so3_log_core(const T* R, T* phi) {
    using std::atan2;
    using std::sqrt;
    const T r00 = R[0], r10 = R[1], r20 = R[2], r01 = R[3], r11 = R[4], r21 = R[5], r02 = R[6], r12 = R[7],
            r22 = R[8];
    const T tr = r00 + r11 + r22;
    T x, y, z, w;
    // Each branch scales the quaternion by 4·(its pivot component); only the direction matters below.
    if (tr >= r00 && tr >= r11 && tr >= r22) {
        w = T(1) + tr;
        x = r21 - r12;
        y = r02 - r20;
        z = r10 - r01;
    } else if (r00 >= r11 && r00 >= r22) {
        x = T(1) + r00 - r11 - r22;
        w = r21 - r12;
        y = r01 + r10;
        z = r02 + r20;
    } else if (r11 >= r22) {
        y = T(1) + r11 - r00 - r22;
        w = r02 - r20;
        x = r01 + r10;
        z = r12 + r21;
    } else {
        z = T(1) + r22 - r00 - r11;
        w = r10 - r01;
        x = r02 + r20;
        y = r12 + r21;
    }
    if (w < T(0)) {
        w = -w;
        x = -x;
        y = -y;
        z = -z;
    }
    const T n = sqrt(x * x + y * y + z * z);
    // 2·atan2(n, w)/n, with its series 2/w·(1 − (n/w)²/3) where n/w < 1e-8 (incl. n = 0).
    T f;
    if (n < T(1e-8) * w) {
        const T u = n / w;
        f = T(2) / w * (T(1) - u * u / T(3));
    } else {
        f = T(2) * atan2(n, w) / n;
    }
    phi[0] = f * x;
    phi[1] = f * y;
    phi[2] = f * z;
}

}  // namespace lie_detail

// =======================================================================================================
// Block scope
// =======================================================================================================

// S = [v]ₓ (3×3 column-major skew matrix, S·x = v × x). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void skew(const T* v, T* S) {
    T tmp[9];
    lie_detail::skew_core(v, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, S);
    trailing_sync<TRAILING_SYNC>();
}

// R = exp([φ]ₓ) (Rodrigues). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_exp(const T* phi, T* R) {
    T tmp[9];
    lie_detail::so3_exp_core(phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, R);
    trailing_sync<TRAILING_SYNC>();
}

// φ = log(R), canonical branch |φ| ≤ π (at exactly θ = π the axis sign is the w ≥ 0 cover's choice). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_log(const T* R, T* phi) {
    T tmp[3];
    lie_detail::so3_log_core(R, tmp);
    lie_detail::so3_store<T, 3>(block_rank(), block_size(), tmp, phi);
    trailing_sync<TRAILING_SYNC>();
}

// J = Jr(φ) = I − b·[φ]ₓ + c·[φ]ₓ². No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_right_jacobian(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_right_jacobian_core(phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// J = Jr(φ)⁻¹ = I + ½[φ]ₓ + e·[φ]ₓ² (singular only at θ = 2π). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_right_jacobian_inv(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_right_jacobian_inv_core(phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// J = Jl(φ) = Jr(−φ) = I + b·[φ]ₓ + c·[φ]ₓ² (the SE(3) "V matrix"). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_left_jacobian(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_left_jacobian_core(phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// J = Jl(φ)⁻¹ = Jr(−φ)⁻¹ = I − ½[φ]ₓ + e·[φ]ₓ². No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void so3_left_jacobian_inv(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_left_jacobian_inv_core(phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// =======================================================================================================
// Warp scope: the block-scope operations spread over the lanes of one warp, ending with warp_sync().
// =======================================================================================================
namespace warp {

// Single-warp hat map. See glass::skew.
template <typename T>
GLASS_HD void skew(const T* v, T* S) {
    T tmp[9];
    lie_detail::skew_core(v, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, S);
    warp_sync();
}

// Single-warp Rodrigues exponential. See glass::so3_exp.
template <typename T>
GLASS_HD void so3_exp(const T* phi, T* R) {
    T tmp[9];
    lie_detail::so3_exp_core(phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, R);
    warp_sync();
}

// Single-warp SO(3) log (canonical branch). See glass::so3_log.
template <typename T>
GLASS_HD void so3_log(const T* R, T* phi) {
    T tmp[3];
    lie_detail::so3_log_core(R, tmp);
    lie_detail::so3_store<T, 3>(warp_rank(), warp_size(), tmp, phi);
    warp_sync();
}

// Single-warp right Jacobian. See glass::so3_right_jacobian.
template <typename T>
GLASS_HD void so3_right_jacobian(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_right_jacobian_core(phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

// Single-warp inverse right Jacobian. See glass::so3_right_jacobian_inv.
template <typename T>
GLASS_HD void so3_right_jacobian_inv(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_right_jacobian_inv_core(phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

// Single-warp left Jacobian (SE(3) "V matrix"). See glass::so3_left_jacobian.
template <typename T>
GLASS_HD void so3_left_jacobian(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_left_jacobian_core(phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

// Single-warp inverse left Jacobian. See glass::so3_left_jacobian_inv.
template <typename T>
GLASS_HD void so3_left_jacobian_inv(const T* phi, T* J) {
    T tmp[9];
    lie_detail::so3_left_jacobian_inv_core(phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

}  // namespace warp

// =======================================================================================================
// Thread scope: one thread computes and stores the whole result.
// =======================================================================================================
namespace thread {

// Single-thread hat map. See glass::skew.
template <typename T>
GLASS_HD void skew(const T* v, T* S) {
    lie_detail::skew_core(v, S);
}

// Single-thread Rodrigues exponential. See glass::so3_exp.
template <typename T>
GLASS_HD void so3_exp(const T* phi, T* R) {
    lie_detail::so3_exp_core(phi, R);
}

// Single-thread SO(3) log (canonical branch). See glass::so3_log.
template <typename T>
GLASS_HD void so3_log(const T* R, T* phi) {
    lie_detail::so3_log_core(R, phi);
}

// Single-thread right Jacobian. See glass::so3_right_jacobian.
template <typename T>
GLASS_HD void so3_right_jacobian(const T* phi, T* J) {
    lie_detail::so3_right_jacobian_core(phi, J);
}

// Single-thread inverse right Jacobian. See glass::so3_right_jacobian_inv.
template <typename T>
GLASS_HD void so3_right_jacobian_inv(const T* phi, T* J) {
    lie_detail::so3_right_jacobian_inv_core(phi, J);
}

// Single-thread left Jacobian (SE(3) "V matrix"). See glass::so3_left_jacobian.
template <typename T>
GLASS_HD void so3_left_jacobian(const T* phi, T* J) {
    lie_detail::so3_left_jacobian_core(phi, J);
}

// Single-thread inverse left Jacobian. See glass::so3_left_jacobian_inv.
template <typename T>
GLASS_HD void so3_left_jacobian_inv(const T* phi, T* J) {
    lie_detail::so3_left_jacobian_inv_core(phi, J);
}

}  // namespace thread

}  // namespace glass
