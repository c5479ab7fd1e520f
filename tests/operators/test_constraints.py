"""Interval / augmented-Lagrangian / barrier scalars against their piecewise definitions and float64
central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

PRECISIONS = ("double", "float")
TOL = {"double": 1e-12, "float": 1e-5}
INF = math.inf


def f32(x):
    return float(np.float32(x))


def rounded(args, precision):
    return [f32(a) for a in args] if precision == "float" else [float(a) for a in args]


def run1(harness, name, precision, *args):
    return harness.run(f"{name}/scalar/{precision}", *args, n_out=1)[0]


def close(got, want, precision, scale=1.0, factor=1.0):
    np.testing.assert_allclose(got, want, rtol=factor * TOL[precision],
                               atol=factor * TOL[precision] * scale + 1e-300)


def central(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


# ---- references ---------------------------------------------------------------------------------------

def hinge_ref(c, lam, rho, sigma):
    a = lam + rho * c
    if sigma > 0 and a > sigma:
        return sigma * c - (sigma - lam) ** 2 / (2 * rho)
    return (max(0.0, a) ** 2 - lam**2) / (2 * rho)


def hinge_grad_ref(c, lam, rho, sigma):
    a = lam + rho * c
    if a <= 0:
        return 0.0, 0.0
    if sigma > 0 and a > sigma:
        return sigma, 0.0
    return a, rho


def eq_ref(c, lam, rho, sigma):
    a = lam + rho * c
    if sigma > 0 and a > sigma:
        return sigma * c - (sigma - lam) ** 2 / (2 * rho), sigma, 0.0
    if sigma > 0 and a < -sigma:
        return -sigma * c - (sigma + lam) ** 2 / (2 * rho), -sigma, 0.0
    return lam * c + 0.5 * rho * c * c, a, rho


def interval_ref(g, lo, hi, lam_hi, lam_lo, rho, sigma):
    """(value, gradient, GN Hessian) of the interval AL row."""
    if lo == hi and math.isfinite(lo):
        return eq_ref(g - hi, lam_hi, rho, sigma)
    v = gr = h = 0.0
    if math.isfinite(hi):
        v += hinge_ref(g - hi, lam_hi, rho, sigma)
        a, b = hinge_grad_ref(g - hi, lam_hi, rho, sigma)
        gr, h = gr + a, h + b
    if math.isfinite(lo):
        v += hinge_ref(lo - g, lam_lo, rho, sigma)
        a, b = hinge_grad_ref(lo - g, lam_lo, rho, sigma)
        gr, h = gr - a, h + b
    return v, gr, h


def barrier_ref(d, mu, delta):
    if d > delta:
        return -mu * math.log(d), -mu / d, mu / d**2
    t = d / delta
    return (-mu * (math.log(delta) - 1.5 + 2 * t - 0.5 * t * t), -mu * (2 - t) / delta, mu / delta**2)


def barrier_interval_ref(g, lo, hi, mu, delta):
    v = gr = h = 0.0
    if math.isfinite(lo):
        a = barrier_ref(g - lo, mu, delta)
        v, gr, h = v + a[0], gr + a[1], h + a[2]
    if math.isfinite(hi):
        a = barrier_ref(hi - g, mu, delta)
        v, gr, h = v + a[0], gr - a[1], h + a[2]
    return v, gr, h


def log_cosh_ref(x):
    """log cosh x to full relative precision: log1p((eˣ − 1)²/(2eˣ)) below |x| = 1, logaddexp above."""
    a = abs(x)
    if a < 1:
        e = math.expm1(a)
        return math.log1p(e * e / (2 * (1 + e)))
    return float(np.logaddexp(a, -a)) - math.log(2.0)


# ---- random rows -------------------------------------------------------------------------------------

def random_interval(rng):
    """(lo, hi) with occasional infinite or equal bounds."""
    lo, hi = sorted(rng.normal(size=2) * 2)
    kind = rng.integers(6)
    if kind == 0:
        lo = -INF
    elif kind == 1:
        hi = INF
    elif kind == 2:
        lo = hi
    return lo, hi


def random_al_row(rng):
    lo, hi = random_interval(rng)
    g = rng.normal() * 3
    lam_hi = abs(rng.normal()) * 2 if not (lo == hi) else rng.normal() * 2
    lam_lo = abs(rng.normal()) * 2
    rho = 10.0 ** rng.uniform(-1, 2)
    sigma = [0.0, -1.0, abs(rng.normal()) * 3 + 0.1][rng.integers(3)]
    return g, lo, hi, lam_hi, lam_lo, rho, sigma


def al_seam_distance(g, lo, hi, lam_hi, lam_lo, rho, sigma):
    """Distance in g to the nearest kink of the AL row's gradient."""
    seams = []
    for bound, lam, sign in ((hi, lam_hi, 1.0), (lo, lam_lo, -1.0)):
        if not math.isfinite(bound):
            continue
        # activation a = lam + rho * sign * (g - bound) hits 0, +sigma, -sigma at:
        for level in (0.0, sigma, -sigma):
            seams.append(bound + sign * (level - lam) / rho)
    return min(abs(g - s) for s in seams) if seams else INF


# ---- tests ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("precision", PRECISIONS)
def test_interval_violation(harness, rng, precision):
    cases = [(rng.normal() * 3, *random_interval(rng)) for _ in range(60)]
    cases += [(1.0, 1.0, 1.0), (0.5, 1.0, 1.0), (2.0, -INF, INF), (-1e30, -INF, 0.0), (1e30, 0.0, INF),
              (0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (-1.0, 0.0, 1.0), (3.0, 0.0, 1.0)]
    for g, lo, hi in cases:
        g, lo, hi = rounded((g, lo, hi), precision)
        got = run1(harness, "interval_violation", precision, g, lo, hi)
        want = max(0.0, g - hi) + max(0.0, lo - g)
        close(got, want, precision, scale=abs(g) + 1)
        assert got >= 0.0
        if lo <= g <= hi:
            assert got == 0.0


@pytest.mark.parametrize("precision", PRECISIONS)
def test_al_is_eq_row(harness, precision):
    for lo, hi, want in ((1.0, 1.0, 1), (0.0, 0.0, 1), (-2.5, -2.5, 1), (1.0, 2.0, 0), (2.0, 1.0, 0),
                         (INF, INF, 0), (-INF, -INF, 0), (-INF, INF, 0), (math.nan, math.nan, 0), (0.0, -0.0, 1)):
        assert run1(harness, "al_is_eq_row", precision, lo, hi) == want


@pytest.mark.parametrize("precision", PRECISIONS)
def test_al_hinge_value(harness, rng, precision):
    checked = 0
    for _ in range(80):
        c, lam = rng.normal() * 3, abs(rng.normal()) * 2
        rho = 10.0 ** rng.uniform(-1, 2)
        sigma = [0.0, -1.0, abs(rng.normal()) * 3 + 0.1][rng.integers(3)]
        c, lam, rho, sigma = rounded((c, lam, rho, sigma), precision)
        got = run1(harness, "al_hinge_value", precision, c, lam, rho, sigma)
        want = hinge_ref(c, lam, rho, sigma)
        scale = (lam + rho * abs(c)) ** 2 / rho + abs(sigma * c) + lam**2 / rho
        close(got, want, precision, scale=scale, factor=4)
        if precision == "double":
            # dφ/dc = clamp(λ + ρc, 0, σ): the activation, saturated at sigma.
            h = 1e-5
            fd = central(lambda t: run1(harness, "al_hinge_value", "double", t, lam, rho, sigma), c, h)
            a = lam + rho * c
            if min(abs(a), abs(a - sigma)) > 10 * rho * h:
                want_g = min(max(a, 0.0), sigma) if sigma > 0 else max(a, 0.0)
                np.testing.assert_allclose(fd, want_g, rtol=0, atol=1e-8 * (1 + scale))
                checked += 1
    assert precision == "float" or checked >= 50


def test_al_hinge_value_seams(harness):
    lam, rho, sigma = 0.5, 4.0, 2.0
    # C⁰ and C¹ at the elastic seam λ + ρc = σ and at the activation seam λ + ρc = 0.
    for c0 in ((sigma - lam) / rho, -lam / rho):
        lo = harness.run("al_hinge_value/scalar/double", c0 - 1e-9, lam, rho, sigma, n_out=1)[0]
        mid = harness.run("al_hinge_value/scalar/double", c0, lam, rho, sigma, n_out=1)[0]
        hi = harness.run("al_hinge_value/scalar/double", c0 + 1e-9, lam, rho, sigma, n_out=1)[0]
        assert abs(hi - mid) < 3e-9 and abs(mid - lo) < 3e-9
        slope_l = (mid - lo) / 1e-9
        slope_r = (hi - mid) / 1e-9
        assert abs(slope_l - slope_r) < 1e-4
    # Inactive side: φ = −λ²/(2ρ) exactly; sigma <= 0 is the hard path.
    assert harness.run("al_hinge_value/scalar/double", -10.0, lam, rho, sigma, n_out=1)[0] == -lam**2 / (2 * rho)
    assert harness.run("al_hinge_value/scalar/double", 10.0, lam, rho, 0.0, n_out=1)[0] == \
        ((lam + rho * 10.0) ** 2 - lam**2) / (2 * rho)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_al_interval_value_and_grad_hess(harness, rng, precision):
    rows = [random_al_row(rng) for _ in range(120)]
    rows += [(0.3, 1.0, 1.0, -0.7, 0.0, 2.0, 0.0), (5.0, 1.0, 1.0, 0.2, 0.0, 2.0, 1.5),
             (-5.0, 1.0, 1.0, 0.2, 0.0, 2.0, 1.5), (0.0, -INF, INF, 1.0, 1.0, 3.0, 0.0),
             (0.5, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0), (4.0, -INF, 1.0, 0.3, 9.0, 2.0, 1.0),
             (-4.0, -1.0, INF, 9.0, 0.3, 2.0, 1.0)]
    checked = 0
    for row in rows:
        row = rounded(row, precision)
        v = run1(harness, "al_interval_value", precision, *row)
        gr, h = harness.run(f"al_interval_grad_hess/scalar/{precision}", *row, n_out=2)
        wv, wg, wh = interval_ref(*row)
        g, lo, hi, lam_hi, lam_lo, rho, sigma = row
        scale = (abs(lam_hi) + abs(lam_lo) + rho * (abs(g) + 3) + abs(sigma)) ** 2 / rho
        close(v, wv, precision, scale=scale, factor=4)
        close(gr, wg, precision, scale=scale, factor=4)
        assert h == pytest.approx(wh, rel=TOL[precision])
        if math.isinf(lo) and math.isinf(hi):
            assert v == 0.0 and gr == 0.0 and h == 0.0
        if precision == "double" and al_seam_distance(*row) > 1e-3:
            # gradient and GN Hessian by central differences (piecewise quadratic / linear: exact up to rounding)
            step = 1e-5
            fv = central(lambda t: run1(harness, "al_interval_value", "double", t, *row[1:]), g, step)
            np.testing.assert_allclose(fv, gr, rtol=0, atol=1e-9 * (1 + scale))
            fh = central(lambda t: harness.run("al_interval_grad_hess/scalar/double", t, *row[1:], n_out=2)[0], g,
                         step)
            np.testing.assert_allclose(fh, h, rtol=0, atol=1e-9 * (1 + scale))
            checked += 1
    assert precision == "float" or checked >= 50


def test_al_interval_equality_rows(harness):
    # lo == hi: φ = λc + ρc²/2 with the signed multiplier in lam_hi; lam_lo unused.
    for lam in (-1.5, 0.0, 2.0):
        for g in (-2.0, 0.5, 1.0, 3.0):
            a = harness.run("al_interval_value/scalar/double", g, 1.0, 1.0, lam, 123.0, 2.0, 0.0, n_out=1)[0]
            c = g - 1.0
            assert a == pytest.approx(lam * c + c * c, rel=1e-14, abs=1e-15)
            gr, h = harness.run("al_interval_grad_hess/scalar/double", g, 1.0, 1.0, lam, 123.0, 2.0, 0.0, n_out=2)
            assert gr == pytest.approx(lam + 2 * c, abs=1e-15) and h == 2.0
    # Elastic equality saturates symmetrically at ±sigma.
    gr, h = harness.run("al_interval_grad_hess/scalar/double", 10.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, n_out=2)
    assert (gr, h) == (0.5, 0.0)
    gr, h = harness.run("al_interval_grad_hess/scalar/double", -10.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, n_out=2)
    assert (gr, h) == (-0.5, 0.0)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_relaxed_barrier(harness, rng, precision):
    cases = []
    for _ in range(80):
        delta = 10.0 ** rng.uniform(-3, 0)
        d = delta * rng.choice([rng.uniform(-5, 1), rng.uniform(1, 50)])
        cases.append((d, 10.0 ** rng.uniform(-2, 1), delta))
    cases += [(0.1, 1.0, 0.1), (0.0, 1.0, 0.1), (-3.0, 0.5, 0.1), (1e6, 1.0, 1e-3)]
    checked = 0
    for d, mu, delta in cases:
        d, mu, delta = rounded((d, mu, delta), precision)
        v, gr, h = (run1(harness, f"relaxed_barrier_{k}", precision, d, mu, delta) for k in ("value", "grad", "hess"))
        wv, wg, wh = barrier_ref(d, mu, delta)
        close(v, wv, precision, scale=mu * (abs(math.log(delta)) + 2 + abs(d / delta) ** 2), factor=4)
        close(gr, wg, precision, scale=mu / delta * (2 + abs(d / delta)), factor=4)
        close(h, wh, precision, factor=2)
        assert 0 < h <= mu / delta**2 * (1 + TOL[precision])
        if precision == "double" and abs(d - delta) > 1e-3 * delta and d > -1e3:
            step = 1e-6 * delta
            fv = central(lambda t: run1(harness, "relaxed_barrier_value", "double", t, mu, delta), d, step)
            np.testing.assert_allclose(fv, gr, rtol=1e-6, atol=1e-9 * mu / delta)
            fg = central(lambda t: run1(harness, "relaxed_barrier_grad", "double", t, mu, delta), d, step)
            np.testing.assert_allclose(fg, h, rtol=1e-6, atol=1e-9 * mu / delta**2)
            checked += 1
    assert precision == "float" or checked >= 50


def test_relaxed_barrier_is_c2_at_delta(harness):
    mu, delta = 0.7, 0.05
    for k in ("value", "grad", "hess"):
        at = harness.run(f"relaxed_barrier_{k}/scalar/double", delta, mu, delta, n_out=1)[0]
        above = harness.run(f"relaxed_barrier_{k}/scalar/double", delta * (1 + 1e-12), mu, delta, n_out=1)[0]
        assert at == pytest.approx(above, rel=1e-10)
    assert harness.run("relaxed_barrier_value/scalar/double", delta, mu, delta, n_out=1)[0] == \
        pytest.approx(-mu * math.log(delta), rel=1e-14)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_relaxed_barrier_interval(harness, rng, precision):
    cases = []
    for _ in range(80):
        lo, hi = random_interval(rng)
        if lo == hi:
            hi = lo + 1.0
        g = rng.uniform(-4, 4)
        cases.append((g, lo, hi, 10.0 ** rng.uniform(-2, 0), 10.0 ** rng.uniform(-2, -0.5)))
    cases += [(0.3, -INF, INF, 1.0, 0.1), (0.0, 0.0, 1.0, 1.0, 0.1), (1.0, 0.0, 1.0, 1.0, 0.1), (5.0, 0.0, 1.0, 1.0, 0.1)]
    checked = 0
    for row in cases:
        row = rounded(row, precision)
        g, lo, hi, mu, delta = row
        got = [run1(harness, f"relaxed_barrier_interval_{k}", precision, *row) for k in ("value", "grad", "hess")]
        want = barrier_interval_ref(*row)
        spread = 2 + max(abs(g - lo) if math.isfinite(lo) else 0, abs(hi - g) if math.isfinite(hi) else 0) / delta
        close(got[0], want[0], precision, scale=mu * (abs(math.log(delta)) + spread**2), factor=4)
        close(got[1], want[1], precision, scale=mu / delta * spread, factor=4)
        close(got[2], want[2], precision, scale=mu / delta**2, factor=4)
        if math.isinf(lo) and math.isinf(hi):
            assert got == [0.0, 0.0, 0.0]
        kinks = [abs(g - lo - delta) if math.isfinite(lo) else INF, abs(hi - g - delta) if math.isfinite(hi) else INF]
        if precision == "double" and min(kinks) > 1e-3 * delta:
            step = 1e-6 * delta
            fv = central(lambda t: run1(harness, "relaxed_barrier_interval_value", "double", t, *row[1:]), g, step)
            np.testing.assert_allclose(fv, got[1], rtol=1e-6, atol=1e-8 * mu / delta * spread)
            fg = central(lambda t: run1(harness, "relaxed_barrier_interval_grad", "double", t, *row[1:]), g, step)
            np.testing.assert_allclose(fg, got[2], rtol=1e-6, atol=1e-8 * mu / delta**2)
            checked += 1
    assert precision == "float" or checked >= 50


@pytest.mark.parametrize("precision", PRECISIONS)
def test_smooth_hinge(harness, rng, precision):
    cases = [(rng.uniform(-2, 3) * eta, eta) for eta in 10.0 ** rng.uniform(-2, 1, size=80)]
    cases += [(0.0, 0.5), (0.5, 0.5), (-1.0, 0.5), (2.0, 0.5), (0.25, 0.5)]
    checked = 0
    for d, eta in cases:
        d, eta = rounded((d, eta), precision)
        v = run1(harness, "smooth_hinge", precision, d, eta)
        gr = run1(harness, "smooth_hinge_grad", precision, d, eta)
        wv = -d + eta / 2 if d <= 0 else ((d - eta) ** 2 / (2 * eta) if d < eta else 0.0)
        wg = -1.0 if d <= 0 else ((d - eta) / eta if d < eta else 0.0)
        close(v, wv, precision, scale=abs(d) + eta)
        close(gr, wg, precision, scale=1.0)
        assert v >= 0.0
        if precision == "double" and min(abs(d), abs(d - eta)) > 1e-3 * eta:
            step = 1e-6 * eta
            fd = central(lambda t: run1(harness, "smooth_hinge", "double", t, eta), d, step)
            np.testing.assert_allclose(fd, gr, rtol=0, atol=1e-8)
            checked += 1
    assert precision == "float" or checked >= 50
    # C¹ at both seams: value and slope match from each side.
    eta = 0.5
    for seam in (0.0, eta):
        for k in ("smooth_hinge", "smooth_hinge_grad"):
            a = run1(harness, k, "double", seam - 1e-12, eta)
            b = run1(harness, k, "double", seam + 1e-12, eta)
            assert abs(a - b) < 1e-10


@pytest.mark.parametrize("precision", PRECISIONS)
def test_log_cosh(harness, rng, precision):
    xs = list(rng.normal(size=40) * 3) + list(10.0 ** rng.uniform(-8, 0, size=20) * rng.choice([-1, 1], size=20))
    xs += [0.0, 1.0, -1.0, 1 - 1e-12, 1e-300, 30.0, -30.0, 100.0, 500.0, -1000.0, 1e10]
    checked = 0
    for x in xs:
        if precision == "float" and abs(x) > 1e30:
            continue
        (x,) = rounded((x,), precision)
        v = run1(harness, "log_cosh", precision, x)
        gr = run1(harness, "log_cosh_grad", precision, x)
        # relative precision everywhere (including x ≈ 0, where the value is ≈ x²/2), no overflow
        np.testing.assert_allclose(v, log_cosh_ref(x), rtol=4 * TOL[precision], atol=1e-300)
        np.testing.assert_allclose(gr, math.tanh(x), rtol=TOL[precision], atol=1e-300)
        assert math.isfinite(v) and v >= 0
        if precision == "double" and abs(x) < 50 and abs(x - 1) > 1e-4 and abs(x + 1) > 1e-4:
            step = 1e-6 * max(1.0, abs(x))
            fd = central(lambda t: run1(harness, "log_cosh", "double", t), x, step)
            np.testing.assert_allclose(fd, gr, rtol=1e-7, atol=1e-9)
            checked += 1
    assert precision == "float" or checked >= 50
    # The two evaluation branches agree at |x| = 1 and the asymptote is |x| − log 2.
    assert run1(harness, "log_cosh", "double", 1.0) == pytest.approx(math.log(math.cosh(1.0)), rel=1e-15)
    assert run1(harness, "log_cosh", "double", 1e6) == 1e6 - math.log(2.0)
    assert run1(harness, "log_cosh", "float", 100.0) == pytest.approx(100 - math.log(2.0), rel=1e-7)
