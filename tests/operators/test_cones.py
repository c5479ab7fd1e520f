"""Second-order-cone operators against explicit projection formulas, the Moreau decomposition and float64
central differences."""

from __future__ import annotations

import numpy as np
import pytest

PRECISIONS = ("double", "float")
SCOPES = ("thread", "warp", "block")
TOL = {"double": 1e-12, "float": 1e-5}
DIMS = (1, 2, 3, 4, 5, 8, 16)


def rounded(x, precision):
    """The inputs as the operator sees them (float calls round to float32)."""
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def soc_proj(w):
    """Π_K(w) by the three-case formula (inside / polar / boundary)."""
    w = np.asarray(w, dtype=np.float64)
    r = np.linalg.norm(w[1:])
    if r <= w[0]:
        return w.copy()
    if r <= -w[0]:
        return np.zeros_like(w)
    a = 0.5 * (w[0] + r)
    return np.concatenate([[a], a * w[1:] / r])


def in_cone(p, tol):
    return np.linalg.norm(p[1:]) <= p[0] + tol


def random_cone_vector(rng, m):
    """A vector in a random region: inside K, in the polar cone, or in between (roughly equally likely)."""
    tail = rng.normal(size=m - 1) * rng.choice([1e-3, 1.0, 1e3])
    r = np.linalg.norm(tail)
    region = rng.integers(3)
    scale = r if r > 0 else 1.0
    w0 = [scale * rng.uniform(1.0, 3.0), -scale * rng.uniform(1.0, 3.0), scale * rng.uniform(-0.99, 0.99)][region]
    return np.concatenate([[w0], tail])


def edge_vectors():
    """Exact cone boundaries, apexes and the m = 1 hinge."""
    return [
        np.array([5.0, 3.0, 4.0]),  # on ∂K (‖tail‖ = w0 exactly)
        np.array([-5.0, 3.0, 4.0]),  # on the polar boundary
        np.array([0.0, 0.0, 0.0]),  # apex
        np.array([0.0, 3.0, 4.0]),  # axis 0, nonzero tail: halfway boundary point
        np.array([2.0, 0.0, 0.0]),  # on the axis
        np.array([-2.0, 0.0, 0.0, 0.0]),  # negative axis: polar
        np.array([3.0]),
        np.array([-3.0]),
        np.array([0.0]),
        np.array([1e-300, 1e-300]),
        np.array([1e150, -1e150, 1e150]),
    ]


@pytest.mark.parametrize("precision", PRECISIONS)
def test_soc_tail_norm_and_violation(harness, rng, precision):
    cases = [random_cone_vector(rng, m) for m in DIMS for _ in range(8)] + edge_vectors()
    for g in cases:
        if precision == "float" and np.abs(g).max() > 1e30:
            continue
        g = rounded(g, precision)
        tail = np.linalg.norm(g[1:])
        got = harness.run(f"soc_tail_norm/scalar/{precision}", g, n_out=1)[0]
        np.testing.assert_allclose(got, tail, rtol=TOL[precision], atol=1e-300)
        viol = harness.run(f"soc_violation/scalar/{precision}", g, n_out=1)[0]
        want = max(0.0, tail - g[0])
        np.testing.assert_allclose(viol, want, rtol=0, atol=TOL[precision] * (1e-300 + np.abs(g).max()))
        assert viol >= 0.0
        # Outside K and its polar the Euclidean distance to K is the margin / √2.
        if tail > abs(g[0]) * (1 + 1e-6):
            dist = np.linalg.norm(g - soc_proj(g))
            np.testing.assert_allclose(viol / np.sqrt(2.0), dist, rtol=10 * TOL[precision])


def test_soc_violation_edges(harness):
    assert harness.run("soc_violation/scalar/double", [5.0, 3.0, 4.0], n_out=1)[0] == 0.0
    assert harness.run("soc_violation/scalar/double", [0.0, 3.0, 4.0], n_out=1)[0] == 5.0
    assert harness.run("soc_violation/scalar/double", [-1.0], n_out=1)[0] == 1.0
    assert harness.run("soc_violation/scalar/double", [0.0, 0.0], n_out=1)[0] == 0.0
    assert harness.run("soc_tail_norm/scalar/double", [7.0], n_out=1)[0] == 0.0


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_soc_project(harness, rng, scope, precision):
    cases = [random_cone_vector(rng, m) for m in DIMS for _ in range(10)] + edge_vectors()
    for w in cases:
        if precision == "float" and np.abs(w).max() > 1e30:
            continue
        w = rounded(w, precision)
        m = w.size
        scale = 1e-300 + np.abs(w).max()
        got = harness.run(f"soc_project/{scope}/{precision}", w, n_out=m)
        want = soc_proj(w)
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * TOL[precision] * scale)
        # Moreau: p ∈ K, w − p ∈ −K (K is self-dual), ⟨p, w − p⟩ = 0.
        tol = 10 * TOL[precision] * scale
        assert in_cone(got, tol)
        assert in_cone(got - w, tol)
        assert abs(np.dot(got, w - got)) <= tol * scale * m
        # Idempotent.
        again = harness.run(f"soc_project/{scope}/{precision}", rounded(got, precision), n_out=m)
        np.testing.assert_allclose(again, got, rtol=0, atol=tol)
        # The in-place thread form equals the out-of-place one.
        if scope == "thread":
            alias = harness.run(f"soc_project[alias]/thread/{precision}", w, n_out=m)
            np.testing.assert_array_equal(alias, got)


def test_soc_project_exact_cases(harness):
    # Points of K are fixed exactly, the polar cone maps exactly to 0, m = 1 is the hinge.
    for w in ([5.0, 3.0, 4.0], [2.0, 0.0, 0.0], [0.0, 0.0], [3.0]):
        np.testing.assert_array_equal(harness.run("soc_project/block/double", w, n_out=len(w)), w)
    for w in ([-5.0, 3.0, 4.0], [-2.0, 0.0, 0.0, 0.0], [-3.0], [-1.0, 1.0]):
        np.testing.assert_array_equal(harness.run("soc_project/warp/double", w, n_out=len(w)), np.zeros(len(w)))
    np.testing.assert_allclose(harness.run("soc_project/thread/double", [0.0, 3.0, 4.0], n_out=3), [2.5, 1.5, 2.0],
                               rtol=1e-15)


def al_soc_ref(g, lam, rho):
    p = soc_proj(lam - rho * g)
    return (p @ p - lam @ lam) / (2 * rho)


def al_soc_cases(rng, precision):
    cases = []
    for m in DIMS:
        for _ in range(8):
            g = random_cone_vector(rng, m) * rng.uniform(0.1, 2.0)
            lam = random_cone_vector(rng, m)
            if rng.random() < 0.5:
                lam = soc_proj(lam)  # a dual-feasible multiplier, the usual AL state
            rho = 10.0 ** rng.uniform(-2, 3)
            cases.append((rounded(g, precision), rounded(lam, precision), float(rounded(rho, precision))))
    return cases


@pytest.mark.parametrize("precision", PRECISIONS)
def test_al_soc_value(harness, rng, precision):
    for g, lam, rho in al_soc_cases(rng, precision):
        if precision == "float" and max(np.abs(g).max(), np.abs(lam).max()) * rho > 1e15:
            continue
        got = harness.run(f"al_soc_value/scalar/{precision}", rho, g, lam, n_out=1)[0]
        want = al_soc_ref(g, lam, rho)
        w = lam - rho * g
        scale = (w @ w + lam @ lam) / (2 * rho)
        np.testing.assert_allclose(got, want, rtol=0, atol=20 * TOL[precision] * scale + 1e-300)


def test_al_soc_value_gradient_and_hinge(harness, rng):
    # ∇_g φ = −Π_K(λ − ρg), by float64 central differences (away from the case boundaries, where the
    # gradient is only Lipschitz).
    checked = 0
    for g, lam, rho in al_soc_cases(rng, "double") + al_soc_cases(rng, "double"):
        w = lam - rho * g
        wn = np.linalg.norm(w)
        if abs(np.linalg.norm(w[1:]) - abs(w[0])) < 1e-4 * wn:
            continue
        m = g.size
        h = 1e-6 * (1e-3 + wn) / rho  # moves w by ~1e-6 of its size
        fd = np.empty(m)
        for i in range(m):
            e = np.zeros(m)
            e[i] = h
            fp = harness.run("al_soc_value/scalar/double", rho, g + e, lam, n_out=1)[0]
            fm = harness.run("al_soc_value/scalar/double", rho, g - e, lam, n_out=1)[0]
            fd[i] = (fp - fm) / (2 * h)
        want = -soc_proj(w)
        scale = wn + np.linalg.norm(lam) ** 2 / (wn + 1e-3)
        np.testing.assert_allclose(fd, want, rtol=0, atol=1e-7 * (1e-3 + scale))
        checked += 1
    assert checked >= 50
    # m = 1 is the g >= 0 hinge: (max(0, λ − ρg)² − λ²)/(2ρ).
    for _ in range(50):
        g, lam, rho = rng.normal(), abs(rng.normal()), 10.0 ** rng.uniform(-1, 2)
        got = harness.run("al_soc_value/scalar/double", rho, g, lam, n_out=1)[0]
        want = (max(0.0, lam - rho * g) ** 2 - lam**2) / (2 * rho)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        hinge = harness.run("al_hinge_value/scalar/double", -g, lam, rho, 0.0, n_out=1)[0]
        np.testing.assert_allclose(got, hinge, rtol=1e-12, atol=1e-14)
