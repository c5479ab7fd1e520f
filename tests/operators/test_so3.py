"""SO(3) exp / log / Jacobians against SciPy (Rotation, expm/logm), Pinocchio and float64 central differences.

Pinocchio mapping: pin.exp3/log3 are the same maps; pin.Jexp3(φ) is the RIGHT Jacobian Jr(φ)
(exp(φ + δ) ≈ exp(φ)·exp(Jr·δ)) and pin.Jlog3(exp3(φ)) its inverse Jr(φ)⁻¹ for |φ| < π. The left forms follow
from Jl(φ) = Jr(−φ). All matrices are column-major in the harness (reshape with order="F").
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm, logm
from scipy.spatial.transform import Rotation

try:
    import pinocchio as pin
except ImportError:  # the GPU machines: conftest deselects the tests marked pinocchio there
    pin = None

SCOPES = ("thread", "warp", "block")
PRECISIONS = ("double", "float")
TOL = {"double": 1e-12, "float": 1e-5}
FD_H = 1e-6


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def rounded(x, precision):
    """The inputs as the call sees them (float calls get float-rounded inputs)."""
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def random_axis(rng):
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def rotvec_cases(rng, n=50):
    """Random rotation vectors over the canonical range plus the edge cases of the branch policy."""
    cases = [rng.normal(size=3) * s for s in np.geomspace(1e-3, 1.0, n // 2)]
    cases += [random_axis(rng) * rng.uniform(0, np.pi) for _ in range(n - n // 2)]
    edges = [np.zeros(3), np.array([1e-9, 0, 0]), random_axis(rng) * 1e-9, random_axis(rng) * 1e-8,
             random_axis(rng) * 0.99e-8, random_axis(rng) * 1e-5, random_axis(rng) * 1e-4,
             random_axis(rng) * 0.4999999, random_axis(rng) * 0.5, random_axis(rng) * 0.5000001,
             random_axis(rng) * (np.pi - 1e-6), random_axis(rng) * (np.pi - 1e-9), random_axis(rng) * np.pi,
             np.array([0, 0, np.pi]), np.array([-np.pi, 0, 0])]
    return cases + edges


def call(harness, name, scope, precision, *inputs, n_out):
    return harness.run(f"{name}/{scope}/{precision}", *inputs, n_out=n_out)


def mat(harness, name, scope, precision, *inputs):
    return call(harness, name, scope, precision, *inputs, n_out=9).reshape(3, 3, order="F")


def jr_ref(phi):
    return pin.Jexp3(np.asarray(phi, dtype=np.float64))


def exp_ref(phi):
    return Rotation.from_rotvec(phi).as_matrix()


def log_ref(R):
    return Rotation.from_matrix(R).as_rotvec()


def fd_right_jacobian(phi):
    """Column k = log(exp(φ)ᵀ·exp(φ + h·e_k)) / h, central: the definition of Jr."""
    J = np.zeros((3, 3))
    R0 = exp_ref(phi)
    for k in range(3):
        e = np.zeros(3)
        e[k] = FD_H
        J[:, k] = (log_ref(R0.T @ exp_ref(phi + e)) - log_ref(R0.T @ exp_ref(phi - e))) / (2 * FD_H)
    return J


def fd_left_jacobian(phi):
    J = np.zeros((3, 3))
    R0 = exp_ref(phi)
    for k in range(3):
        e = np.zeros(3)
        e[k] = FD_H
        J[:, k] = (log_ref(exp_ref(phi + e) @ R0.T) - log_ref(exp_ref(phi - e) @ R0.T)) / (2 * FD_H)
    return J


def assert_scopes_equal(harness, name, precision, *inputs, n_out):
    """Block and warp scope must reproduce thread scope bit for bit on the host."""
    ref = call(harness, name, "thread", precision, *inputs, n_out=n_out)
    for scope in ("warp", "block"):
        got = call(harness, name, scope, precision, *inputs, n_out=n_out)
        np.testing.assert_array_equal(got, ref, err_msg=f"{name}/{scope}/{precision} differs from thread scope")


# ---- operators ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_skew(harness, rng, scope, precision):
    for _ in range(50):
        v = rounded(rng.normal(size=3), precision)
        S = mat(harness, "skew", scope, precision, v)
        np.testing.assert_array_equal(S, skew(v))
        x = rng.normal(size=3)
        np.testing.assert_allclose(S @ x, np.cross(v, x), rtol=0, atol=1e-14 * 10)
    np.testing.assert_array_equal(mat(harness, "skew", scope, precision, np.zeros(3)), np.zeros((3, 3)))


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_so3_exp(harness, rng, scope, precision):
    tol = TOL[precision]
    for phi in rotvec_cases(rng):
        phi = rounded(phi, precision)
        R = mat(harness, "so3_exp", scope, precision, phi)
        np.testing.assert_allclose(R, exp_ref(phi), rtol=0, atol=4 * tol)
        np.testing.assert_allclose(R, expm(skew(phi)), rtol=0, atol=4 * tol)
        np.testing.assert_allclose(R.T @ R, np.eye(3), rtol=0, atol=4 * tol)
    # exactly the identity at 0, and the first-order term survives at 1e-9 (no premature rounding to I)
    np.testing.assert_array_equal(mat(harness, "so3_exp", scope, "double", np.zeros(3)), np.eye(3))
    R = mat(harness, "so3_exp", scope, "double", np.array([1e-9, 0, 0]))
    assert R[2, 1] == pytest.approx(1e-9, rel=1e-15)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_so3_log(harness, rng, scope, precision):
    tol = TOL[precision]
    for phi in rotvec_cases(rng):
        R = rounded(exp_ref(phi), precision)
        got = call(harness, "so3_log", scope, precision, R.ravel(order="F"), n_out=3)
        theta = np.linalg.norm(phi)
        assert np.linalg.norm(got) <= np.pi * (1 + tol)
        if precision == "double" and theta < np.pi - 1e-3:
            # conditioning of log: the axis costs ~eps/sin(θ) near π; elsewhere full accuracy
            np.testing.assert_allclose(got, log_ref(R), rtol=0, atol=10 * tol)
            np.testing.assert_allclose(got, phi, rtol=0, atol=10 * tol)
        if theta < np.pi - 1e-3 and theta > 1e-3:
            np.testing.assert_allclose(skew(got), np.real(logm(exp_ref(got.astype(np.float64)))), rtol=0,
                                       atol=1e-10)
        # round trip exp(log(R)) == R everywhere, including θ = π (either axis sign is exact there)
        np.testing.assert_allclose(exp_ref(got), R, rtol=0, atol=40 * tol)
        if theta > np.pi - 1e-6:
            # the two covers at θ = π: ±φ
            ok = min(np.linalg.norm(got - phi), np.linalg.norm(got + phi))
            assert ok < (1e-5 if precision == "double" else 1e-2)
    np.testing.assert_array_equal(call(harness, "so3_log", scope, precision, np.eye(3).ravel(), n_out=3),
                                  np.zeros(3))
    # a rotation of exactly π about z and about x: |φ| = π, the round trip is exact
    for axis in np.eye(3):
        R = exp_ref(np.pi * axis)
        got = call(harness, "so3_log", scope, "double", R.ravel(order="F"), n_out=3)
        assert abs(np.linalg.norm(got) - np.pi) < 1e-12
        np.testing.assert_allclose(np.abs(got), np.pi * axis, atol=1e-12)


@pytest.mark.pinocchio
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_so3_right_left_jacobians(harness, rng, scope, precision):
    tol = TOL[precision]
    for phi in rotvec_cases(rng):
        phi = rounded(phi, precision)
        Jr = mat(harness, "so3_right_jacobian", scope, precision, phi)
        Jl = mat(harness, "so3_left_jacobian", scope, precision, phi)
        np.testing.assert_allclose(Jr, jr_ref(phi), rtol=0, atol=4 * tol)
        np.testing.assert_allclose(Jl, jr_ref(-phi), rtol=0, atol=4 * tol)
        np.testing.assert_allclose(Jl, Jr.T, rtol=0, atol=4 * tol)
        np.testing.assert_allclose(Jl, exp_ref(phi) @ Jr, rtol=0, atol=4 * tol)
        if np.linalg.norm(phi) < np.pi - 1e-3:
            np.testing.assert_allclose(Jr, fd_right_jacobian(phi), rtol=0, atol=1e-8 if precision == "double" else tol)
            np.testing.assert_allclose(Jl, fd_left_jacobian(phi), rtol=0, atol=1e-8 if precision == "double" else tol)
    np.testing.assert_array_equal(mat(harness, "so3_right_jacobian", scope, "double", np.zeros(3)), np.eye(3))


@pytest.mark.pinocchio
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_so3_jacobian_inverses(harness, rng, scope, precision):
    tol = TOL[precision]
    for phi in rotvec_cases(rng):
        phi = rounded(phi, precision)
        Jri = mat(harness, "so3_right_jacobian_inv", scope, precision, phi)
        Jli = mat(harness, "so3_left_jacobian_inv", scope, precision, phi)
        np.testing.assert_allclose(Jri @ jr_ref(phi), np.eye(3), rtol=0, atol=10 * tol)
        np.testing.assert_allclose(Jli @ jr_ref(-phi), np.eye(3), rtol=0, atol=10 * tol)
        np.testing.assert_allclose(Jli, Jri.T, rtol=0, atol=4 * tol)
        if 1e-2 < np.linalg.norm(phi) < np.pi - 1e-3:
            # through R: log3 inside Jlog3 costs ~eps/θ, so only where that is well conditioned
            np.testing.assert_allclose(Jri, pin.Jlog3(exp_ref(phi)), rtol=0, atol=100 * tol)
        if np.linalg.norm(phi) < np.pi - 1e-6:
            # Jr⁻¹ is the derivative of log on the right: log(exp(φ)·exp(δ)) ≈ φ + Jr⁻¹·δ
            R0 = exp_ref(phi)
            fd = np.zeros((3, 3))
            for k in range(3):
                e = np.zeros(3)
                e[k] = FD_H
                fd[:, k] = (log_ref(R0 @ exp_ref(e)) - log_ref(R0 @ exp_ref(-e))) / (2 * FD_H)
            if np.linalg.norm(phi) < np.pi - 1e-3:
                np.testing.assert_allclose(Jri, fd, rtol=0, atol=1e-7 if precision == "double" else 1e-4)
    # exactly at θ = π: e = 1/π², finite
    phi = np.array([0, np.pi, 0])
    J = mat(harness, "so3_right_jacobian_inv", scope, "double", phi)
    np.testing.assert_allclose(J, np.eye(3) + skew(phi) / 2 + skew(phi) @ skew(phi) / np.pi**2, atol=1e-14)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize(
    "name", ["skew", "so3_exp", "so3_right_jacobian", "so3_right_jacobian_inv", "so3_left_jacobian",
             "so3_left_jacobian_inv"])
def test_scopes_agree(harness, rng, name, precision):
    for phi in rotvec_cases(rng):
        assert_scopes_equal(harness, name, precision, phi, n_out=9)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_scopes_agree_log(harness, rng, precision):
    for phi in rotvec_cases(rng):
        assert_scopes_equal(harness, "so3_log", precision, exp_ref(phi).ravel(order="F"), n_out=3)


# ---- lie_detail cores -----------------------------------------------------------------------------------


def coefs_ref(t):
    """a, b, c, e in high-accuracy form (series below 1e-2, where the closed forms would cancel)."""
    if t < 1e-2:
        t2 = t * t
        a = 1 - t2 / 6 + t2**2 / 120 - t2**3 / 5040
        b = 0.5 - t2 / 24 + t2**2 / 720 - t2**3 / 40320
        c = 1 / 6 - t2 / 120 + t2**2 / 5040 - t2**3 / 362880
        e = 1 / 12 + t2 / 720 + t2**2 / 30240 + t2**3 / 1209600
        return a, b, c, e
    return (np.sin(t) / t, (1 - np.cos(t)) / t**2, (t - np.sin(t)) / t**3,
            1 / t**2 - np.cos(t / 2) / (2 * t * np.sin(t / 2)))


def coef_angles(rng):
    return [0.0, 1e-12, 1e-9, 1e-8, 1.0000001e-8, 1e-6, 1e-4, 1e-3, 0.01, 0.3, 0.4999999, 0.5, 0.5000001, 1.5,
            *rng.uniform(0, np.pi, 50), np.pi - 1e-9, np.pi]


@pytest.mark.parametrize("precision", PRECISIONS)
def test_rodrigues_coefs_and_inv_jacobian_coef(harness, rng, precision):
    for t in coef_angles(rng):
        t = float(rounded(t, precision))
        a, b, c, e = coefs_ref(t)
        got = harness.run(f"rodrigues_coefs/detail/{precision}", t, n_out=3)
        # relative accuracy, independent of the angle (the point of the branch policy)
        rtol = 2e-15 if precision == "double" else 2e-6
        if t >= 1e-2 and precision == "double":
            rtol = 4e-16 / (t * t) + 1e-14  # the reference itself cancels for c and e
        np.testing.assert_allclose(got, [a, b, c], rtol=rtol)
        got_e = harness.run(f"inv_jacobian_coef/detail/{precision}", t, n_out=1)[0]
        assert got_e == pytest.approx(e, rel=rtol)
    assert harness.run("inv_jacobian_coef/detail/double", np.pi, n_out=1)[0] == pytest.approx(1 / np.pi**2,
                                                                                              rel=1e-15)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_detail_cores(harness, rng, precision):
    tol = TOL[precision]
    for phi in rotvec_cases(rng):
        phi = rounded(phi, precision)
        run = lambda name, *x, n: harness.run(f"{name}/detail/{precision}", *x, n_out=n)  # noqa: E731
        np.testing.assert_array_equal(run("skew_core", phi, n=9).reshape(3, 3, order="F"), skew(phi))
        assert run("vec3_norm", phi, n=1)[0] == pytest.approx(np.linalg.norm(phi), rel=tol, abs=1e-300)
        A, B = rounded(rng.normal(size=(3, 3)), precision), rounded(rng.normal(size=(3, 3)), precision)
        v = rounded(rng.normal(size=3), precision)
        np.testing.assert_allclose(run("mat3_mul_core", A.ravel(order="F"), B.ravel(order="F"), n=9)
                                   .reshape(3, 3, order="F"), A @ B, rtol=0, atol=10 * tol)
        np.testing.assert_allclose(run("mat3_vec_core", A.ravel(order="F"), v, n=3), A @ v, rtol=0, atol=10 * tol)
        ca, cb = rounded(rng.normal(size=2), precision)
        np.testing.assert_allclose(run("rodrigues_core", phi, ca, cb, n=9).reshape(3, 3, order="F"),
                                   np.eye(3) + ca * skew(phi) + cb * skew(phi) @ skew(phi), rtol=0,
                                   atol=10 * tol * (1 + np.abs(phi).max() ** 2))
        for core, op in [("so3_exp_core", "so3_exp"), ("so3_right_jacobian_core", "so3_right_jacobian"),
                         ("so3_left_jacobian_core", "so3_left_jacobian"),
                         ("so3_right_jacobian_inv_core", "so3_right_jacobian_inv"),
                         ("so3_left_jacobian_inv_core", "so3_left_jacobian_inv")]:
            np.testing.assert_array_equal(run(core, phi, n=9), call(harness, op, "thread", precision, phi, n_out=9))
        R = exp_ref(phi).ravel(order="F")
        np.testing.assert_array_equal(run("so3_log_core", R, n=3), call(harness, "so3_log", "thread", precision, R,
                                                                        n_out=3))
