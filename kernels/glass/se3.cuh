// SE(3) retract (free-flyer manifold update), its inverse, and its first and second derivatives.
//
// Conventions:
//   * the SE(3) tangent is LINEAR FIRST, w = [ρ; φ] (Pinocchio's motion ordering; the spatial operators of
//     spatial.cuh are angular first);
//   * a pose block is [p(3); q(4)], q a Hamilton unit quaternion stored in the QuatLayout L (default xyzw, the
//     Pinocchio free-flyer nq layout);
//   * exp([ρ; φ]) = (exp([φ]ₓ), Jl(φ)·ρ); the retract is pose ⊞ w = pose·exp(w) (body-frame tangent), exactly
//     Pinocchio's integrate on the free-flyer joint, and se3_difference is its inverse (Pinocchio difference);
//   * matrices are column-major; 6×6 Jacobians act on [ρ; φ].
//
// Coefficients of θ = |φ| (series below θ = 2, where the closed forms start to cancel; 16 terms leave the
// truncation below 1e-18 there):
//   A = sinθ/θ, B = (1−cosθ)/θ², C = (θ−sinθ)/θ³, D = (θ²+2cosθ−2)/(2θ⁴), E = (2θ−3sinθ+θcosθ)/(2θ⁵),
// and their derivatives carried as dX = X'(θ)/θ (smooth even functions), so ∂X/∂φ_k = dX·φ_k.
// With P = [φ]ₓ and R = [ρ]ₓ the Barfoot coupling block of the right Jacobian (Pinocchio's sign) is
//   Q(ρ, φ) = −½R + C·(PR + RP − PRP) − D·(PPR + RPP − 3PRP) + E·(PRPP + PPRP)   (= Barfoot's Q_l(−ρ, −φ)).
//
// Scopes follow so3.cuh: glass:: (block) and glass::warp compute the small result on every thread and spread
// the stores; glass::thread computes and stores everything (its output may alias the inputs except where
// noted). The Hessian strides its six direction slices over the threads instead.
#pragma once

#include "quaternion.cuh"
#include "scope.cuh"
#include "so3.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

namespace lie_detail {

// Storage index of quaternion component c (0..3 = x, y, z, w) in layout L.
template <QuatLayout L>
GLASS_HD constexpr uint32_t se3_qslot(uint32_t c) {
    return c == 0u ? layout<L>::X : c == 1u ? layout<L>::Y : c == 2u ? layout<L>::Z : layout<L>::W;
}

// Loads the quaternion of a pose block as (x, y, z, w), normalised.
template <typename T, QuatLayout L>
GLASS_HD void se3_load_quat(const T* pose, T* q) {
    T raw[4];
    GLASS_LIE_UNROLL
    for (uint32_t c = 0; c < 4u; ++c) raw[c] = pose[3u + se3_qslot<L>(c)];
    quat_normalize_core<T, QuatLayout::xyzw, false>(raw, q);
}

// out = R(q)·x for a unit (x, y, z, w) quaternion, with the vector part scaled by s (s = −1 applies Rᵀ).
// out must not alias x.
template <typename T>
GLASS_HD void se3_quat_rotate(const T* q, T s, const T* x, T* out) {
    const T qs[4] = {s * q[0], s * q[1], s * q[2], q[3]};
    quat_rotate_core<T, QuatLayout::xyzw>(qs, x, out);
}

// c = {A, B, C, D, E} of the file header and, with WITH_DC, dc = {X'(θ)/θ}. The closed-form derivatives use
// A' = (cosθ − A)/θ, B' = (A − 2B)/θ, C' = (B − 3C)/θ, D' = (C − 4D)/θ, E' = ((2B − A)/(2θ²) − 5E)/θ.
template <typename T, bool WITH_DC>
GLASS_HD void se3_coefs(T t, T* c, T* dc) {
    using std::cos;
    using std::sin;
    const T t2 = t * t;
    if (t < T(2)) {
        // c_i = Σ s_{i,n}·θ²ⁿ with s = (−1)ⁿ/(2n+k)! for A..D (k = 1..4) and (−1)ⁿ(n+1)/(2n+5)! for E;
        // dc_i = Σ 2n·s_{i,n}·θ²ⁿ⁻².
        T s[5] = {T(1), T(0.5), T(1) / T(6), T(1) / T(24), T(1) / T(120)};
        GLASS_LIE_UNROLL
        for (uint32_t i = 0; i < 5u; ++i) {
            c[i] = s[i];
            if constexpr (WITH_DC) dc[i] = T(0);
        }
        T p = T(1);  // θ²⁽ⁿ⁻¹⁾
        GLASS_LIE_UNROLL
        for (uint32_t n = 1; n < 16u; ++n) {
            GLASS_LIE_UNROLL
            for (uint32_t i = 0; i < 5u; ++i) {
                const T m = T(2 * n + i + 1u);  // k = i + 1: (2n+k)! = (2n+k−2)!·(m−1)·m
                s[i] *= T(-1) / ((m - T(1)) * m);
            }
            // E's coefficient is (n+1) times the running (−1)ⁿ/(2n+5)!.
            const T e_n = s[4] * T(n + 1);
            if constexpr (WITH_DC) {
                GLASS_LIE_UNROLL
                for (uint32_t i = 0; i < 4u; ++i) dc[i] += T(2 * n) * s[i] * p;
                dc[4] += T(2 * n) * e_n * p;
            }
            p *= t2;
            GLASS_LIE_UNROLL
            for (uint32_t i = 0; i < 4u; ++i) c[i] += s[i] * p;
            c[4] += e_n * p;
        }
        return;
    }
    const T sn = sin(t), cs = cos(t);
    c[0] = sn / t;
    c[1] = (T(1) - cs) / t2;
    c[2] = (t - sn) / (t2 * t);
    c[3] = (t2 + T(2) * cs - T(2)) / (T(2) * t2 * t2);
    c[4] = (T(2) * t - T(3) * sn + t * cs) / (T(2) * t2 * t2 * t);
    if constexpr (WITH_DC) {
        dc[0] = (cs - c[0]) / t2;
        dc[1] = (c[0] - T(2) * c[1]) / t2;
        dc[2] = (c[1] - T(3) * c[2]) / t2;
        dc[3] = (c[2] - T(4) * c[3]) / t2;
        dc[4] = ((T(2) * c[1] - c[0]) / (T(2) * t2) - T(5) * c[4]) / t2;
    }
}

// C = A·B and, with DUAL, its directional derivative dC = dA·B + A·dB (no aliasing).
template <typename T, bool DUAL>
GLASS_HD void se3_mul_dual(const T* A, const T* dA, const T* B, const T* dB, T* C, T* dC) {
    mat3_mul_core(A, B, C);
    if constexpr (DUAL) {
        T t1[9], t2[9];
        mat3_mul_core(dA, B, t1);
        mat3_mul_core(A, dB, t2);
        GLASS_LIE_UNROLL
        for (uint32_t i = 0; i < 9u; ++i) dC[i] = t1[i] + t2[i];
    } else {
        (void)dA;
        (void)dB;
        (void)dC;
    }
}

// Q = −½R + cf[0]·G1 − cf[1]·G2 + cf[2]·G3 (G1 = PR + RP − PRP, G2 = PPR + RPP − 3PRP, G3 = PRPP + PPRP) for
// P = [φ]ₓ, R = [ρ]ₓ, cf = {C, D, E}; with DUAL also its derivative along (dP, dR, dcf).
template <typename T, bool DUAL>
GLASS_HD void se3_q_eval(const T* P, const T* dP, const T* R, const T* dR, const T* cf, const T* dcf, T* Q,
                         T* dQ) {
    T PR[9], RP[9], PRP[9], PPR[9], RPP[9], PRPP[9], PPRP[9];
    T dPR[9], dRP[9], dPRP[9], dPPR[9], dRPP[9], dPRPP[9], dPPRP[9];
    se3_mul_dual<T, DUAL>(P, dP, R, dR, PR, dPR);
    se3_mul_dual<T, DUAL>(R, dR, P, dP, RP, dRP);
    se3_mul_dual<T, DUAL>(P, dP, RP, dRP, PRP, dPRP);
    se3_mul_dual<T, DUAL>(P, dP, PR, dPR, PPR, dPPR);
    se3_mul_dual<T, DUAL>(RP, dRP, P, dP, RPP, dRPP);
    se3_mul_dual<T, DUAL>(PRP, dPRP, P, dP, PRPP, dPRPP);
    se3_mul_dual<T, DUAL>(P, dP, PRP, dPRP, PPRP, dPPRP);
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 9u; ++i) {
        const T g1 = PR[i] + RP[i] - PRP[i];
        const T g2 = PPR[i] + RPP[i] - T(3) * PRP[i];
        const T g3 = PRPP[i] + PPRP[i];
        Q[i] = T(-0.5) * R[i] + cf[0] * g1 - cf[1] * g2 + cf[2] * g3;
        if constexpr (DUAL) {
            const T dg1 = dPR[i] + dRP[i] - dPRP[i];
            const T dg2 = dPPR[i] + dRPP[i] - T(3) * dPRP[i];
            const T dg3 = dPRPP[i] + dPPRP[i];
            dQ[i] = T(-0.5) * dR[i] + dcf[0] * g1 + cf[0] * dg1 - dcf[1] * g2 - cf[1] * dg2 + dcf[2] * g3 +
                    cf[2] * dg3;
        }
    }
    if constexpr (!DUAL) (void)dQ;
}

// Q(ρ, φ), the coupling block of the SE(3) right Jacobian [[Jr, Q], [0, Jr]] (no aliasing).
template <typename T>
GLASS_HD void se3_Q_block_core(const T* rho, const T* phi, T* Q) {
    T c[5], P[9], R[9];
    se3_coefs<T, false>(vec3_norm(phi), c, nullptr);
    skew_core(phi, P);
    skew_core(rho, R);
    se3_q_eval<T, false>(P, nullptr, R, nullptr, c + 2, nullptr, Q, nullptr);
}

// out = pose ⊞ (ρ, φ): q_new = normalize(q ⊗ exp(φ/2)), p_new = p + R(q)·Jl(φ)·ρ (q normalised first).
// out may alias pose.
template <typename T, QuatLayout L>
GLASS_HD void se3_retract_core(const T* pose, const T* rho, const T* phi, T* out) {
    using std::cos;
    using std::sin;
    using std::sqrt;
    T q[4], Jl[9], d[3], Rd[3];
    se3_load_quat<T, L>(pose, q);
    const T theta = vec3_norm(phi);
    // exp(φ/2) = (s·φ, cos(θ/2)), s = sin(θ/2)/θ with its Taylor head below θ = 1e-8.
    const T s = theta < T(1e-8) ? T(0.5) - theta * theta / T(48) : sin(T(0.5) * theta) / theta;
    const T e[4] = {s * phi[0], s * phi[1], s * phi[2], cos(T(0.5) * theta)};
    T qn[4];
    qn[0] = q[3] * e[0] + e[3] * q[0] + (q[1] * e[2] - q[2] * e[1]);
    qn[1] = q[3] * e[1] + e[3] * q[1] + (q[2] * e[0] - q[0] * e[2]);
    qn[2] = q[3] * e[2] + e[3] * q[2] + (q[0] * e[1] - q[1] * e[0]);
    qn[3] = q[3] * e[3] - (q[0] * e[0] + q[1] * e[1] + q[2] * e[2]);
    const T inv = T(1) / sqrt(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]);
    so3_left_jacobian_core(phi, Jl);
    mat3_vec_core(Jl, rho, d);
    se3_quat_rotate(q, T(1), d, Rd);
    const T p[3] = {pose[0] + Rd[0], pose[1] + Rd[1], pose[2] + Rd[2]};
    out[0] = p[0];
    out[1] = p[1];
    out[2] = p[2];
    GLASS_LIE_UNROLL
    for (uint32_t c = 0; c < 4u; ++c) out[3u + se3_qslot<L>(c)] = qn[c] * inv;
}

// The tangent [ρ; φ] with se3_retract(pose_from, ρ, φ) == pose_to: φ = log(q_from⁻¹ ⊗ q_to) on the w ≥ 0
// cover (|φ| ≤ π), ρ = Jl(φ)⁻¹·R(q_from)ᵀ·(p_to − p_from). rho/phi must not alias each other; the inputs are
// fully read before they are written.
template <typename T, QuatLayout L>
GLASS_HD void se3_difference_core(const T* pose_from, const T* pose_to, T* rho, T* phi) {
    using std::atan2;
    using std::sqrt;
    T qf[4], qt[4];
    se3_load_quat<T, L>(pose_from, qf);
    se3_load_quat<T, L>(pose_to, qt);
    // dq = conj(qf) ⊗ qt.
    T x = qf[3] * qt[0] - qt[3] * qf[0] - (qf[1] * qt[2] - qf[2] * qt[1]);
    T y = qf[3] * qt[1] - qt[3] * qf[1] - (qf[2] * qt[0] - qf[0] * qt[2]);
    T z = qf[3] * qt[2] - qt[3] * qf[2] - (qf[0] * qt[1] - qf[1] * qt[0]);
    T w = qf[3] * qt[3] + qf[0] * qt[0] + qf[1] * qt[1] + qf[2] * qt[2];
    if (w < T(0)) {
        x = -x;
        y = -y;
        z = -z;
        w = -w;
    }
    const T n = sqrt(x * x + y * y + z * z);
    T f;
    if (n < T(1e-8) * w) {
        const T u = n / w;
        f = T(2) / w * (T(1) - u * u / T(3));
    } else {
        f = T(2) * atan2(n, w) / n;
    }
    const T ph[3] = {f * x, f * y, f * z};
    const T dp[3] = {pose_to[0] - pose_from[0], pose_to[1] - pose_from[1], pose_to[2] - pose_from[2]};
    T d[3], Ji[9];
    se3_quat_rotate(qf, T(-1), dp, d);
    so3_left_jacobian_inv_core(ph, Ji);
    mat3_vec_core(Ji, d, rho);
    phi[0] = ph[0];
    phi[1] = ph[1];
    phi[2] = ph[2];
}

// Writes the 3×3 block B at block (bi, bj) of a column-major 6×6 J.
template <typename T>
GLASS_HD void se3_put_block(const T* B, uint32_t bi, uint32_t bj, T* J) {
    GLASS_LIE_UNROLL
    for (uint32_t j = 0; j < 3u; ++j) {
        GLASS_LIE_UNROLL
        for (uint32_t i = 0; i < 3u; ++i) J[(3u * bi + i) + 6u * (3u * bj + j)] = B[i + 3u * j];
    }
}

// Zeroes the lower-left 3×3 block of a column-major 6×6 J.
template <typename T>
GLASS_HD void se3_zero_lower_left(T* J) {
    GLASS_LIE_UNROLL
    for (uint32_t j = 0; j < 3u; ++j) {
        GLASS_LIE_UNROLL
        for (uint32_t i = 3u; i < 6u; ++i) J[i + 6u * j] = T(0);
    }
}

// J = Ad(exp(−w)) = [[R⁻, [p⁻]ₓ·R⁻], [0, R⁻]], R⁻ = exp(−[φ]ₓ), p⁻ = −Jl(−φ)·ρ = −Jr(φ)·ρ (no aliasing).
template <typename T>
GLASS_HD void se3_retract_jacobian_q_core(const T* rho, const T* phi, T* J) {
    T a, b, c, Rm[9], Jr[9], pm[3], S[9], off[9];
    rodrigues_coefs(vec3_norm(phi), a, b, c);
    rodrigues_core(phi, -a, b, Rm);
    rodrigues_core(phi, -b, c, Jr);
    mat3_vec_core(Jr, rho, pm);
    pm[0] = -pm[0];
    pm[1] = -pm[1];
    pm[2] = -pm[2];
    skew_core(pm, S);
    mat3_mul_core(S, Rm, off);
    se3_put_block(Rm, 0u, 0u, J);
    se3_put_block(off, 0u, 1u, J);
    se3_put_block(Rm, 1u, 1u, J);
    se3_zero_lower_left(J);
}

// J = [[Jr(φ), Q(ρ, φ)], [0, Jr(φ)]], the SE(3) right Jacobian (no aliasing).
template <typename T>
GLASS_HD void se3_retract_jacobian_v_core(const T* rho, const T* phi, T* J) {
    T Jr[9], Q[9];
    so3_right_jacobian_core(phi, Jr);
    se3_Q_block_core(rho, phi, Q);
    se3_put_block(Jr, 0u, 0u, J);
    se3_put_block(Q, 0u, 1u, J);
    se3_put_block(Jr, 1u, 1u, J);
    se3_zero_lower_left(J);
}

// ---- second derivatives (double internals) -------------------------------------------------------------

// c = {A, B, C, D, E}(t), dc = {X'(t)/t} (see the file header).
GLASS_HD void se3_d2_coefs(double t, double c[5], double dc[5]) { se3_coefs<double, true>(t, c, dc); }

// ∂M/∂φ_k of M = I + s1·ca·P + s2·cb·P² given the coefficient derivatives dca, dcb (= X'/θ): the shared shape
// of ∂Jr (ca = B, cb = C, s1 = −1) and ∂R⁻ (ca = A, cb = B, s1 = −1).
GLASS_HD void se3_d2_drodrigues(const double phi[3], double ca, double cb, double dca, double dcb, int k,
                                double out[9]) {
    double P[9], P2[9], Ek[9], EP[9], PE[9];
    const double ek[3] = {k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0};
    skew_core(phi, P);
    mat3_mul_core(P, P, P2);
    skew_core(ek, Ek);
    mat3_mul_core(Ek, P, EP);
    mat3_mul_core(P, Ek, PE);
    const double pk = phi[k];
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 9u; ++i)
        out[i] = -(dca * pk * P[i] + ca * Ek[i]) + dcb * pk * P2[i] + cb * (EP[i] + PE[i]);
}

// ∂Jr(φ)/∂φ_k, Jr = I − B·P + C·P² (k in 0..2).
GLASS_HD void se3_d2_dJr(const double phi[3], double t, const double c[5], const double dc[5], int k,
                         double out[9]) {
    (void)t;
    se3_d2_drodrigues(phi, c[1], c[2], dc[1], dc[2], k, out);
}

// ∂R⁻/∂φ_k, R⁻ = exp(−P) = I − A·P + B·P² (k in 0..2).
GLASS_HD void se3_d2_dRinv(const double phi[3], double t, const double c[5], const double dc[5], int k,
                           double out[9]) {
    (void)t;
    se3_d2_drodrigues(phi, c[0], c[1], dc[0], dc[1], k, out);
}

// ∂Q(ρ, φ)/∂w_kk, w = [ρ; φ] (kk in 0..5): the dual-number pass of se3_q_eval along the unit direction.
GLASS_HD void se3_d2_dQ(const double rho[3], const double phi[3], double t, const double c[5], const double dc[5],
                        int kk, double out[9]) {
    (void)t;
    const int k = kk < 3 ? kk : kk - 3;
    const double ek[3] = {k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0};
    double P[9], R[9], E[9], Z[9], Q[9];
    skew_core(phi, P);
    skew_core(rho, R);
    skew_core(ek, E);
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 9u; ++i) Z[i] = 0.0;
    double dcf[3] = {0.0, 0.0, 0.0};
    if (kk >= 3) {
        dcf[0] = dc[2] * phi[k];
        dcf[1] = dc[3] * phi[k];
        dcf[2] = dc[4] * phi[k];
    }
    se3_q_eval<double, true>(P, kk >= 3 ? E : Z, R, kk >= 3 ? Z : E, c + 2, dcf, Q, out);
}

// ∂([p⁻]ₓ·R⁻)/∂w_kk, p⁻ = −Jr(φ)·ρ (kk in 0..5): the off-diagonal block of the base-pose Jacobian.
GLASS_HD void se3_d2_doff(const double rho[3], const double phi[3], double t, const double c[5], const double dc[5],
                          int kk, double out[9]) {
    double Rm[9], Jr[9], dp[3], S[9];
    rodrigues_core(phi, -c[0], c[1], Rm);
    rodrigues_core(phi, -c[1], c[2], Jr);
    if (kk < 3) {
        // ∂p⁻/∂ρ_kk = −Jr·e_kk.
        dp[0] = -Jr[3 * kk];
        dp[1] = -Jr[1 + 3 * kk];
        dp[2] = -Jr[2 + 3 * kk];
        skew_core(dp, S);
        mat3_mul_core(S, Rm, out);
        return;
    }
    const int k = kk - 3;
    double dJr[9], dRm[9], pm[3], Sp[9], t1[9], t2[9];
    se3_d2_dJr(phi, t, c, dc, k, dJr);
    se3_d2_dRinv(phi, t, c, dc, k, dRm);
    mat3_vec_core(dJr, rho, dp);
    mat3_vec_core(Jr, rho, pm);
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 3u; ++i) {
        dp[i] = -dp[i];
        pm[i] = -pm[i];
    }
    skew_core(dp, S);
    skew_core(pm, Sp);
    mat3_mul_core(S, Rm, t1);
    mat3_mul_core(Sp, dRm, t2);
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 9u; ++i) out[i] = t1[i] + t2[i];
}

// Slice k of the retract Hessian: J2_slice[c·6 + r] = ∂J(r, c)/∂w_k for J = se3_retract_jacobian_q (IS_Q)
// or se3_retract_jacobian_v, cast to T.
template <typename T, bool IS_Q>
GLASS_HD void se3_retract_hessian_slice(const double rho[3], const double phi[3], double t, const double c[5],
                                        const double dc[5], int k, T* J2_slice) {
    double diag[9], off[9], S[36];
    if (k < 3) {
        GLASS_LIE_UNROLL
        for (uint32_t i = 0; i < 9u; ++i) diag[i] = 0.0;
    } else if constexpr (IS_Q) {
        se3_d2_dRinv(phi, t, c, dc, k - 3, diag);
    } else {
        se3_d2_dJr(phi, t, c, dc, k - 3, diag);
    }
    if constexpr (IS_Q) {
        se3_d2_doff(rho, phi, t, c, dc, k, off);
    } else {
        se3_d2_dQ(rho, phi, t, c, dc, k, off);
    }
    se3_put_block(diag, 0u, 0u, S);
    se3_put_block(off, 0u, 1u, S);
    se3_put_block(diag, 1u, 1u, S);
    se3_zero_lower_left(S);
    GLASS_LIE_UNROLL
    for (uint32_t i = 0; i < 36u; ++i) J2_slice[i] = T(S[i]);
}

// The Hessian slices k = first, first + step, ... < 6 (the per-scope driver).
template <typename T, bool IS_Q>
GLASS_HD void se3_hessian_slices(const T* rho, const T* phi, T* J2, uint32_t first, uint32_t step) {
    const double r[3] = {double(rho[0]), double(rho[1]), double(rho[2])};
    const double p[3] = {double(phi[0]), double(phi[1]), double(phi[2])};
    const double t = vec3_norm(p);
    double c[5], dc[5];
    se3_d2_coefs(t, c, dc);
    for (uint32_t k = first; k < 6u; k += step) se3_retract_hessian_slice<T, IS_Q>(r, p, t, c, dc, int(k), J2 + 36u * k);
}

}  // namespace lie_detail

// =======================================================================================================
// Block scope
// =======================================================================================================

// Q = the Barfoot coupling block of the SE(3) right Jacobian (Pinocchio's sign). No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void se3_Q_block(const T* rho, const T* phi, T* Q) {
    T tmp[9];
    lie_detail::se3_Q_block_core(rho, phi, tmp);
    lie_detail::so3_store<T, 9>(block_rank(), block_size(), tmp, Q);
    trailing_sync<TRAILING_SYNC>();
}

// pose_new = pose ⊞ (ρ, φ) (body-frame tangent, linear first; Pinocchio integrate on the free flyer).
// No aliasing.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void se3_retract(const T* pose, const T* rho, const T* phi, T* pose_new) {
    T tmp[7];
    lie_detail::se3_retract_core<T, L>(pose, rho, phi, tmp);
    lie_detail::so3_store<T, 7>(block_rank(), block_size(), tmp, pose_new);
    trailing_sync<TRAILING_SYNC>();
}

// [ρ; φ] = pose_to ⊟ pose_from (the exact inverse of se3_retract, |φ| ≤ π). No aliasing.
template <typename T, QuatLayout L = QuatLayout::xyzw, bool TRAILING_SYNC = true>
GLASS_HD void se3_difference(const T* pose_from, const T* pose_to, T* rho, T* phi) {
    T tmp[6];
    lie_detail::se3_difference_core<T, L>(pose_from, pose_to, tmp, tmp + 3);
    for (uint32_t k = block_rank(); k < 6u; k += block_size()) {
        if (k < 3u) {
            rho[k] = tmp[k];
        } else {
            phi[k - 3u] = tmp[k];
        }
    }
    trailing_sync<TRAILING_SYNC>();
}

// J = ∂(pose ⊞ w)/∂pose = Ad(exp(−w)) (Pinocchio dIntegrate ARG0), 6×6 column-major, linear first.
// No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void se3_retract_jacobian_q(const T* rho, const T* phi, T* J) {
    T tmp[36];
    lie_detail::se3_retract_jacobian_q_core(rho, phi, tmp);
    lie_detail::so3_store<T, 36>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// J = ∂(pose ⊞ w)/∂w = [[Jr, Q], [0, Jr]] (Pinocchio dIntegrate ARG1), 6×6 column-major, linear first.
// No aliasing.
template <typename T, bool TRAILING_SYNC = true>
GLASS_HD void se3_retract_jacobian_v(const T* rho, const T* phi, T* J) {
    T tmp[36];
    lie_detail::se3_retract_jacobian_v_core(rho, phi, tmp);
    lie_detail::so3_store<T, 36>(block_rank(), block_size(), tmp, J);
    trailing_sync<TRAILING_SYNC>();
}

// J2[k·36 + c·6 + r] = ∂J(r, c)/∂w_k for J = se3_retract_jacobian_q (IS_Q) or se3_retract_jacobian_v,
// computed in double; the six direction slices are strided over the threads. No aliasing.
template <typename T, bool IS_Q, bool TRAILING_SYNC = true>
GLASS_HD void se3_retract_hessian(const T* rho, const T* phi, T* J2) {
    lie_detail::se3_hessian_slices<T, IS_Q>(rho, phi, J2, block_rank(), block_size());
    trailing_sync<TRAILING_SYNC>();
}

// =======================================================================================================
// Warp scope
// =======================================================================================================
namespace warp {

// Single-warp Barfoot Q block. See glass::se3_Q_block.
template <typename T>
GLASS_HD void se3_Q_block(const T* rho, const T* phi, T* Q) {
    T tmp[9];
    lie_detail::se3_Q_block_core(rho, phi, tmp);
    lie_detail::so3_store<T, 9>(warp_rank(), warp_size(), tmp, Q);
    warp_sync();
}

// Single-warp SE(3) retract. See glass::se3_retract.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void se3_retract(const T* pose, const T* rho, const T* phi, T* pose_new) {
    T tmp[7];
    lie_detail::se3_retract_core<T, L>(pose, rho, phi, tmp);
    lie_detail::so3_store<T, 7>(warp_rank(), warp_size(), tmp, pose_new);
    warp_sync();
}

// Single-warp SE(3) difference (boxminus). See glass::se3_difference.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void se3_difference(const T* pose_from, const T* pose_to, T* rho, T* phi) {
    T tmp[6];
    lie_detail::se3_difference_core<T, L>(pose_from, pose_to, tmp, tmp + 3);
    for (uint32_t k = warp_rank(); k < 6u; k += warp_size()) {
        if (k < 3u) {
            rho[k] = tmp[k];
        } else {
            phi[k - 3u] = tmp[k];
        }
    }
    warp_sync();
}

// Single-warp retract Jacobian w.r.t. the base pose. See glass::se3_retract_jacobian_q.
template <typename T>
GLASS_HD void se3_retract_jacobian_q(const T* rho, const T* phi, T* J) {
    T tmp[36];
    lie_detail::se3_retract_jacobian_q_core(rho, phi, tmp);
    lie_detail::so3_store<T, 36>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

// Single-warp retract Jacobian w.r.t. the tangent. See glass::se3_retract_jacobian_v.
template <typename T>
GLASS_HD void se3_retract_jacobian_v(const T* rho, const T* phi, T* J) {
    T tmp[36];
    lie_detail::se3_retract_jacobian_v_core(rho, phi, tmp);
    lie_detail::so3_store<T, 36>(warp_rank(), warp_size(), tmp, J);
    warp_sync();
}

// Single-warp retract Hessian (double internals). See glass::se3_retract_hessian.
template <typename T, bool IS_Q>
GLASS_HD void se3_retract_hessian(const T* rho, const T* phi, T* J2) {
    lie_detail::se3_hessian_slices<T, IS_Q>(rho, phi, J2, warp_rank(), warp_size());
    warp_sync();
}

}  // namespace warp

// =======================================================================================================
// Thread scope
// =======================================================================================================
namespace thread {

// Single-thread Barfoot Q block. See glass::se3_Q_block.
template <typename T>
GLASS_HD void se3_Q_block(const T* rho, const T* phi, T* Q) {
    lie_detail::se3_Q_block_core(rho, phi, Q);
}

// Single-thread SE(3) retract (pose_new may alias pose). See glass::se3_retract.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void se3_retract(const T* pose, const T* rho, const T* phi, T* pose_new) {
    T tmp[7];
    lie_detail::se3_retract_core<T, L>(pose, rho, phi, tmp);
    GLASS_LIE_UNROLL
    for (uint32_t k = 0; k < 7u; ++k) pose_new[k] = tmp[k];
}

// Single-thread SE(3) difference (boxminus). See glass::se3_difference.
template <typename T, QuatLayout L = QuatLayout::xyzw>
GLASS_HD void se3_difference(const T* pose_from, const T* pose_to, T* rho, T* phi) {
    lie_detail::se3_difference_core<T, L>(pose_from, pose_to, rho, phi);
}

// Single-thread retract Jacobian w.r.t. the base pose. See glass::se3_retract_jacobian_q.
template <typename T>
GLASS_HD void se3_retract_jacobian_q(const T* rho, const T* phi, T* J) {
    lie_detail::se3_retract_jacobian_q_core(rho, phi, J);
}

// Single-thread retract Jacobian w.r.t. the tangent. See glass::se3_retract_jacobian_v.
template <typename T>
GLASS_HD void se3_retract_jacobian_v(const T* rho, const T* phi, T* J) {
    lie_detail::se3_retract_jacobian_v_core(rho, phi, J);
}

// Single-thread retract Hessian (double internals). See glass::se3_retract_hessian.
template <typename T, bool IS_Q>
GLASS_HD void se3_retract_hessian(const T* rho, const T* phi, T* J2) {
    lie_detail::se3_hessian_slices<T, IS_Q>(rho, phi, J2, 0u, 1u);
}

}  // namespace thread

}  // namespace glass
