// Scalar constraint terms of constrained trajectory optimization: interval violations, the PHR
// augmented-Lagrangian rows (hard and L1-elastic), the C² relaxed log barrier, and the smooth activations
// of collision and tracking costs (smooth hinge, log-cosh).
//
// All of these are per-row scalars: every function is tier-free (callable from any thread, no barriers).
// Interval rows lo <= g <= hi take ±inf for a missing bound; a finite lo == hi row is an equality.
#pragma once

#include "scope.cuh"

#include <cmath>
#include <cstdint>

namespace glass {

namespace constraint_detail {

// x is neither infinite nor NaN (inf − inf and NaN − NaN are NaN; avoids isfinite overload sets in
// device code).
template <typename T>
GLASS_HD bool is_finite(T x) {
    return x - x == T(0);
}

// dφ/dc and d²φ/dc² of one hinge side (see al_hinge_value). Active when λ + ρc > 0; saturated (elastic)
// when sigma > 0 and λ + ρc > sigma.
template <typename T>
GLASS_HD void hinge_grad_hess(T c, T lam, T rho, T sigma, T& gr, T& h) {
    const T a = lam + rho * c;
    if (a <= T(0)) {
        gr = T(0);
        h = T(0);
    } else if (sigma > T(0) && a > sigma) {
        gr = sigma;
        h = T(0);
    } else {
        gr = a;
        h = rho;
    }
}

// Equality row φ = λc + ρc²/2 = ((λ + ρc)² − λ²)/(2ρ), with the activation clamped to ±sigma when
// sigma > 0 (linear continuation, C¹ at both seams).
template <typename T>
GLASS_HD T eq_value(T c, T lam, T rho, T sigma) {
    const T a = lam + rho * c;
    if (sigma > T(0) && a > sigma) {
        const T d = sigma - lam;
        return sigma * c - d * d / (T(2) * rho);
    }
    if (sigma > T(0) && a < -sigma) {
        const T d = sigma + lam;
        return -sigma * c - d * d / (T(2) * rho);
    }
    return lam * c + T(0.5) * rho * c * c;
}

template <typename T>
GLASS_HD void eq_grad_hess(T c, T lam, T rho, T sigma, T& gr, T& h) {
    const T a = lam + rho * c;
    if (sigma > T(0) && a > sigma) {
        gr = sigma;
        h = T(0);
    } else if (sigma > T(0) && a < -sigma) {
        gr = -sigma;
        h = T(0);
    } else {
        gr = a;
        h = rho;
    }
}

}  // namespace constraint_detail

// Interval violation max(0, g − hi) + max(0, lo − g) (0 when feasible; infinite bounds never violate).
template <typename T>
GLASS_HD T interval_violation(T g, T lo, T hi) {
    const T up = g - hi, dn = lo - g;
    return (up > T(0) ? up : T(0)) + (dn > T(0) ? dn : T(0));
}

// Whether an interval row is an equality (lo == hi, finite).
template <typename T>
GLASS_HD bool al_is_eq_row(T lo, T hi) {
    return lo == hi && constraint_detail::is_finite(lo);
}

// One hinge side's PHR value for c <= 0: φ = (max(0, λ + ρc)² − λ²)/(2ρ); with sigma > 0 the activation
// saturates at sigma and φ continues linearly as σc − (σ − λ)²/(2ρ).
template <typename T>
GLASS_HD T al_hinge_value(T c, T lam, T rho, T sigma) {
    const T a = lam + rho * c;
    if (sigma > T(0) && a > sigma) {
        const T d = sigma - lam;
        return sigma * c - d * d / (T(2) * rho);
    }
    const T ap = a > T(0) ? a : T(0);
    return (ap * ap - lam * lam) / (T(2) * rho);
}

// PHR value of the interval row lo <= g <= hi (independent hinge sides; finite lo == hi is an equality
// with the signed multiplier lam_hi).
template <typename T>
GLASS_HD T al_interval_value(T g, T lo, T hi, T lam_hi, T lam_lo, T rho, T sigma) {
    using constraint_detail::is_finite;
    if (al_is_eq_row(lo, hi)) return constraint_detail::eq_value(g - hi, lam_hi, rho, sigma);
    T phi = T(0);
    if (is_finite(hi)) phi += al_hinge_value(g - hi, lam_hi, rho, sigma);
    if (is_finite(lo)) phi += al_hinge_value(lo - g, lam_lo, rho, sigma);
    return phi;
}

// Gradient dφ/dg and Gauss-Newton Hessian of al_interval_value (ρ per active side, 0 when saturated).
template <typename T>
GLASS_HD void al_interval_grad_hess(T g, T lo, T hi, T lam_hi, T lam_lo, T rho, T sigma, T& gr, T& h) {
    using constraint_detail::is_finite;
    if (al_is_eq_row(lo, hi)) {
        constraint_detail::eq_grad_hess(g - hi, lam_hi, rho, sigma, gr, h);
        return;
    }
    gr = T(0);
    h = T(0);
    T gs, hs;
    if (is_finite(hi)) {
        constraint_detail::hinge_grad_hess(g - hi, lam_hi, rho, sigma, gs, hs);
        gr += gs;
        h += hs;
    }
    if (is_finite(lo)) {
        // c = lo − g: dc/dg = −1 flips the gradient, not the Hessian.
        constraint_detail::hinge_grad_hess(lo - g, lam_lo, rho, sigma, gs, hs);
        gr -= gs;
        h += hs;
    }
}

// C² relaxed log barrier B(d): −μ·log d for d > δ, else the quadratic −μ·(log δ − 3/2 + 2d/δ − d²/(2δ²))
// that matches value, slope and curvature at d = δ (finite for every d, curvature capped at μ/δ²).
template <typename T>
GLASS_HD T relaxed_barrier_value(T d, T mu, T delta) {
    using std::log;
    if (d > delta) return -mu * log(d);
    const T t = d / delta;
    return -mu * (log(delta) - T(1.5) + T(2) * t - T(0.5) * t * t);
}

// dB/dd of the relaxed barrier.
template <typename T>
GLASS_HD T relaxed_barrier_grad(T d, T mu, T delta) {
    if (d > delta) return -mu / d;
    return -mu * (T(2) - d / delta) / delta;
}

// d²B/dd² of the relaxed barrier.
template <typename T>
GLASS_HD T relaxed_barrier_hess(T d, T mu, T delta) {
    if (d > delta) return mu / (d * d);
    return mu / (delta * delta);
}

// Two-sided relaxed barrier on lo <= g <= hi: B(g − lo) + B(hi − g), an infinite bound contributing 0.
template <typename T>
GLASS_HD T relaxed_barrier_interval_value(T g, T lo, T hi, T mu, T delta) {
    using constraint_detail::is_finite;
    T b = T(0);
    if (is_finite(lo)) b += relaxed_barrier_value(g - lo, mu, delta);
    if (is_finite(hi)) b += relaxed_barrier_value(hi - g, mu, delta);
    return b;
}

// dB/dg of the two-sided barrier (the upper side's distance decreases with g).
template <typename T>
GLASS_HD T relaxed_barrier_interval_grad(T g, T lo, T hi, T mu, T delta) {
    using constraint_detail::is_finite;
    T b = T(0);
    if (is_finite(lo)) b += relaxed_barrier_grad(g - lo, mu, delta);
    if (is_finite(hi)) b -= relaxed_barrier_grad(hi - g, mu, delta);
    return b;
}

// d²B/dg² of the two-sided barrier.
template <typename T>
GLASS_HD T relaxed_barrier_interval_hess(T g, T lo, T hi, T mu, T delta) {
    using constraint_detail::is_finite;
    T b = T(0);
    if (is_finite(lo)) b += relaxed_barrier_hess(g - lo, mu, delta);
    if (is_finite(hi)) b += relaxed_barrier_hess(hi - g, mu, delta);
    return b;
}

// Smooth hinge on a signed distance d (positive = clear): −d + η/2 for d <= 0, (d − η)²/(2η) on (0, η),
// 0 beyond η; C¹ at both seams.
template <typename T>
GLASS_HD T smooth_hinge(T d, T eta) {
    if (d <= T(0)) return -d + T(0.5) * eta;
    if (d < eta) {
        const T e = d - eta;
        return e * e / (T(2) * eta);
    }
    return T(0);
}

// d(smooth_hinge)/dd.
template <typename T>
GLASS_HD T smooth_hinge_grad(T d, T eta) {
    if (d <= T(0)) return T(-1);
    if (d < eta) return (d - eta) / eta;
    return T(0);
}

// log(cosh(x)) without overflow: |x| + log1p(exp(−2|x|)) − log 2. Below |x| = 1 that form loses all
// relative accuracy to cancellation (the value is ≈ x²/2), so the small branch uses the exact identity
// cosh x = 1 + 2·sinh²(x/2) instead.
template <typename T>
GLASS_HD T log_cosh(T x) {
    using std::exp;
    using std::fabs;
    using std::log1p;
    using std::sinh;
    const T a = fabs(x);
    if (a < T(1)) {
        const T s = sinh(T(0.5) * a);
        return log1p(T(2) * s * s);
    }
    return a + log1p(exp(T(-2) * a)) - T(0.69314718055994530941723212145817657);
}

// d(log_cosh)/dx = tanh(x).
template <typename T>
GLASS_HD T log_cosh_grad(T x) {
    using std::tanh;
    return tanh(x);
}

}  // namespace glass
