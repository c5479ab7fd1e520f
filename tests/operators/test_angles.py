"""Planar angle scalars against NumPy (arctan2 wrapping) and their edge cases at ±π."""

from __future__ import annotations

import numpy as np
import pytest

PRECISIONS = ("double", "float")
PI = {"double": np.pi, "float": float(np.float32(np.pi))}
EPS = {"double": 2.2e-16, "float": 1.2e-7}


def rounded(x, precision):
    return float(np.float32(x)) if precision == "float" else float(x)


def run(harness, name, precision, *x):
    return harness.run(f"{name}/scalar/{precision}", *x, n_out=1)[0]


def same_angle(a, b, atol):
    """a and b name the same direction (compared on the circle, so −π and π agree)."""
    return abs(np.angle(np.exp(1j * (a - b)))) <= atol


@pytest.mark.parametrize("precision", PRECISIONS)
def test_angle_wrap(harness, rng, precision):
    p = PI[precision]
    xs = list(rng.uniform(-p, p, 50)) + list(rng.uniform(-1e3, 1e3, 50)) + list(rng.normal(size=20) * 1e6)
    for x in xs:
        x = rounded(x, precision)
        got = run(harness, "angle_wrap", precision, x)
        assert -p < got <= p
        want = np.arctan2(np.sin(x), np.cos(x))
        assert same_angle(got, want, 8 * EPS[precision] * max(1.0, abs(x))), (x, got, want)
        if -p < x <= p:
            assert got == x  # in range: returned unchanged
    # the branch: (−π, π]
    assert run(harness, "angle_wrap", precision, p) == p
    assert run(harness, "angle_wrap", precision, -p) == p
    assert run(harness, "angle_wrap", precision, 3 * p) == pytest.approx(p, abs=8 * EPS[precision])
    assert run(harness, "angle_wrap", precision, 2 * p) == 0.0
    assert run(harness, "angle_wrap", precision, -2 * p) == 0.0
    assert run(harness, "angle_wrap", precision, 0.0) == 0.0
    nxt = float(np.nextafter(np.float64(p) if precision == "double" else np.float32(p), np.inf))
    assert run(harness, "angle_wrap", precision, nxt) == pytest.approx(-p, abs=4 * EPS[precision] * p)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_angle_diff(harness, rng, precision):
    p = PI[precision]
    for _ in range(50):
        a, b = (rounded(v, precision) for v in rng.uniform(-10, 10, 2))
        got = run(harness, "angle_diff", precision, a, b)
        assert -p < got <= p
        assert same_angle(got, a - b, 64 * EPS[precision])
        assert abs(got) <= np.pi
    # 179° − (−179°) is −2°, not 358°
    d = run(harness, "angle_diff", precision, rounded(np.radians(179), precision), rounded(np.radians(-179), precision))
    assert d == pytest.approx(np.radians(-2), abs=1e-6)
    assert run(harness, "angle_diff", precision, 1.0, 1.0) == 0.0


@pytest.mark.parametrize("precision", PRECISIONS)
def test_angle_lerp(harness, rng, precision):
    p = PI[precision]
    for _ in range(50):
        a, b = (rounded(v, precision) for v in rng.uniform(-p, p, 2))
        t = rounded(rng.uniform(0, 1), precision)
        got = run(harness, "angle_lerp", precision, a, b, t)
        d = np.angle(np.exp(1j * (b - a)))  # shortest arc b ⊖ a
        assert -p < got <= p
        assert same_angle(got, a + t * d, 64 * EPS[precision])
        assert same_angle(run(harness, "angle_lerp", precision, a, b, 0.0), a, 8 * EPS[precision])
        assert same_angle(run(harness, "angle_lerp", precision, a, b, 1.0), b, 64 * EPS[precision])
    # 179° → −179° passes through 180°, not 0°
    mid = run(harness, "angle_lerp", precision, rounded(np.radians(179), precision),
              rounded(np.radians(-179), precision), 0.5)
    assert abs(abs(mid) - np.pi) < 1e-6


@pytest.mark.parametrize("precision", PRECISIONS)
def test_clamp_unit(harness, rng, precision):
    for v in list(rng.normal(size=50) * 2) + [1.0, -1.0, 1 + 1e-7, -1 - 1e-7, 0.0, 1e30, -1e30]:
        v = rounded(v, precision)
        assert run(harness, "clamp_unit", precision, v) == min(1.0, max(-1.0, v))
    assert np.isnan(run(harness, "clamp_unit", precision, np.nan))
    # the point of the guard: acos of a drifted dot product stays finite
    assert np.arccos(run(harness, "clamp_unit", precision, 1 + 1e-7)) == 0.0


@pytest.mark.parametrize("precision", PRECISIONS)
def test_pi(harness, precision):
    assert harness.run(f"pi/detail/{precision}", n_out=1)[0] == PI[precision]
