"""Spatial operators against NumPy compositions of their definitions (Featherstone's crm, angular first)."""

from __future__ import annotations

import numpy as np
import pytest

SCOPES = ("thread", "warp", "block")
TOL = {"double": 1e-12, "float": 2e-6}


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def crm(v):
    m = np.zeros((6, 6))
    m[:3, :3] = skew(v[:3])
    m[3:, 3:] = skew(v[:3])
    m[3:, :3] = skew(v[3:])
    return m


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("scope", SCOPES)
def test_motion_cross(harness, rng, scope, precision):
    for _ in range(50):
        v = rng.normal(size=6)
        got = harness.run(f"motion_cross/{scope}/{precision}", v, n_out=36).reshape(6, 6, order="F")
        np.testing.assert_allclose(got, crm(v), rtol=0, atol=TOL[precision] * np.abs(v).max())


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("scope", SCOPES)
def test_motion_cross_mul(harness, rng, scope, precision):
    for _ in range(50):
        alpha, beta = rng.normal(size=2)
        v, x, y = rng.normal(size=(3, 6))
        got = harness.run(f"motion_cross_mul/{scope}/{precision}", alpha, v, x, beta, y, n_out=6)
        want = alpha * crm(v) @ x + beta * y
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL[precision] * 10 * (1 + np.abs(want).max()))
