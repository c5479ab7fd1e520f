"""SE(3) retract, difference and their Jacobians/Hessians against Pinocchio and float64 central differences.

Mapping to Pinocchio (pin 3.x/4.x):
  * the GLASS SE(3) tangent w = [ρ; φ] is linear first, exactly pin.Motion(linear=ρ, angular=φ) and the
    free-flyer velocity v = [v_lin; ω] — no reordering (unlike the angular-first spatial operators);
  * a pose block [p; qx, qy, qz, qw] (xyzw) is the free-flyer configuration q; wxyz moves qw first;
  * se3_retract(pose, ρ, φ) = pin.integrate(model, q, w) = M·exp6(w) (body-frame tangent);
  * se3_difference(pose_from, pose_to) = pin.difference(model, q_from, q_to) = log6(M_from⁻¹·M_to);
  * se3_retract_jacobian_v = pin.Jexp6(w) = pin.dIntegrate(model, q, w, ARG1) (RIGHT Jacobian:
    exp(w + δ) ≈ exp(w)·exp(J·δ)), and se3_Q_block is its upper-right 3×3;
  * se3_retract_jacobian_q = pin.dIntegrate(model, q, w, ARG0) = Ad(exp6(−w)) = pin.exp6(−w).toActionMatrix()
    (the action matrix is [[R, [p]ₓR], [0, R]] in the same linear-first order).
Harness matrices are column-major (reshape order="F"); the Hessian is J2[k·36 + c·6 + r] = ∂J(r, c)/∂w_k.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

try:
    import pinocchio as pin
except ImportError:  # the GPU machines: conftest deselects the tests marked pinocchio there
    pin = None

SCOPES = ("thread", "warp", "block")
PRECISIONS = ("double", "float")
LAYOUTS = ("xyzw", "wxyz")
TOL = {"double": 1e-12, "float": 1e-5}

MODEL = None
if pin is not None:
    MODEL = pin.Model()
    MODEL.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "ff")


def rounded(x, precision):
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def random_axis(rng):
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def phi_cases(rng, n=50):
    """Angular tangents over the canonical range plus the branch edges (0, 1e-9, series ends, π)."""
    cases = [rng.normal(size=3) * s for s in np.geomspace(1e-3, 1.0, n // 2)]
    cases += [random_axis(rng) * rng.uniform(0, np.pi) for _ in range(n - n // 2)]
    edges = [np.zeros(3), np.array([1e-9, 0, 0]), random_axis(rng) * 1e-9, random_axis(rng) * 1e-8,
             random_axis(rng) * 1e-5, random_axis(rng) * 0.2, random_axis(rng) * 0.5, random_axis(rng) * 1.5,
             random_axis(rng) * 1.9999999, random_axis(rng) * 2.0, random_axis(rng) * 2.0000001,
             random_axis(rng) * (np.pi - 1e-6), random_axis(rng) * np.pi]
    return cases + edges


def tangent_cases(rng):
    out = [(rng.normal(size=3) * rng.choice([0.1, 1.0, 3.0]), phi) for phi in phi_cases(rng)]
    return out + [(np.zeros(3), np.zeros(3)), (np.zeros(3), random_axis(rng)), (rng.normal(size=3), np.zeros(3))]


def motion(rho, phi):
    return pin.Motion(np.asarray(rho, dtype=np.float64), np.asarray(phi, dtype=np.float64))


def to_layout(pose_xyzw, layout):
    return pose_xyzw if layout == "xyzw" else pose_xyzw[[0, 1, 2, 6, 3, 4, 5]]


def from_layout(pose, layout):
    return pose if layout == "xyzw" else pose[[0, 1, 2, 4, 5, 6, 3]]


def random_pose(rng):
    return np.concatenate([rng.normal(size=3) * 2, Rotation.random(random_state=rng).as_quat()])


def se3_of(pose_xyzw):
    return pin.XYZQUATToSE3(np.asarray(pose_xyzw, dtype=np.float64))


def J6(harness, name, scope, precision, rho, phi):
    return harness.run(f"{name}/{scope}/{precision}", rho, phi, n_out=36).reshape(6, 6, order="F")


def same_pose(a, b, atol):
    """Positions equal and quaternions equal up to the double cover."""
    np.testing.assert_allclose(a[:3], b[:3], rtol=0, atol=atol * (1 + np.abs(b[:3]).max()))
    s = 1.0 if np.dot(a[3:], b[3:]) >= 0 else -1.0
    np.testing.assert_allclose(s * a[3:], b[3:], rtol=0, atol=atol)


def log6(M):
    return pin.log6(M).vector


def ad(rho, phi):
    """ad of the twist [ρ; φ] in the linear-first order: [[φₓ, ρₓ], [0, φₓ]]."""
    A = np.zeros((6, 6))
    A[:3, :3] = A[3:, 3:] = pin.skew(np.asarray(phi, dtype=np.float64))
    A[:3, 3:] = pin.skew(np.asarray(rho, dtype=np.float64))
    return A


def jexp6_series(rho, phi, terms=60):
    """The SE(3) right Jacobian as its power series Σ (−ad)ⁿ/(n+1)!: free of the small-angle cancellation of
    closed forms (Pinocchio's Jexp6 loses ~1e-8 near θ = 1e-3), so a tight independent reference."""
    A = -ad(rho, phi)
    term, out = np.eye(6), np.eye(6)
    for n in range(1, terms):
        term = term @ A / (n + 1)
        out = out + term
    return out


def scale(rho, phi):
    return 1.0 + np.abs(rho).max() + np.abs(phi).max()


# ---- first derivatives ----------------------------------------------------------------------------------


@pytest.mark.pinocchio
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_Q_block_and_jacobian_v(harness, rng, scope, precision):
    tol = TOL[precision]
    for rho, phi in tangent_cases(rng):
        rho, phi = rounded(rho, precision), rounded(phi, precision)
        ref = jexp6_series(rho, phi)
        J = J6(harness, "se3_retract_jacobian_v", scope, precision, rho, phi)
        # Pinocchio's own closed forms cancel near θ ~ 1e-3 (~1e-8 there), hence the looser bound
        np.testing.assert_allclose(J, pin.Jexp6(motion(rho, phi)), rtol=0, atol=max(1e-7, 4 * tol) * scale(rho, phi) ** 2)
        Q = harness.run(f"se3_Q_block/{scope}/{precision}", rho, phi, n_out=9).reshape(3, 3, order="F")
        atol = 4 * tol * scale(rho, phi) ** 2
        np.testing.assert_allclose(J, ref, rtol=0, atol=atol)
        np.testing.assert_allclose(Q, ref[:3, 3:], rtol=0, atol=atol)
        q0 = pin.neutral(MODEL)
        np.testing.assert_allclose(J, pin.dIntegrate(MODEL, q0, np.concatenate([rho, phi]), pin.ARG1), rtol=0,
                                   atol=max(1e-7, 4 * tol) * scale(rho, phi) ** 2)
    # Q is linear in ρ: Q(0, φ) = 0, and at φ = 0 it is −½[ρ]ₓ
    np.testing.assert_array_equal(harness.run(f"se3_Q_block/{scope}/double", np.zeros(3), random_axis(rng),
                                              n_out=9), np.zeros(9))
    rho = rng.normal(size=3)
    Q0 = harness.run(f"se3_Q_block/{scope}/double", rho, np.zeros(3), n_out=9).reshape(3, 3, order="F")
    np.testing.assert_allclose(Q0, -0.5 * np.array(pin.skew(rho)), rtol=0, atol=1e-16)


@pytest.mark.pinocchio
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_retract_jacobian_q(harness, rng, scope, precision):
    tol = TOL[precision]
    for rho, phi in tangent_cases(rng):
        rho, phi = rounded(rho, precision), rounded(phi, precision)
        J = J6(harness, "se3_retract_jacobian_q", scope, precision, rho, phi)
        atol = 4 * tol * scale(rho, phi) ** 2
        np.testing.assert_allclose(J, pin.exp6(motion(-rho, -phi)).toActionMatrix(), rtol=0, atol=atol)
        np.testing.assert_allclose(J, expm(-ad(rho, phi)), rtol=0, atol=atol)
        q = pin.randomConfiguration(MODEL, -np.ones(7), np.ones(7))
        np.testing.assert_allclose(J, pin.dIntegrate(MODEL, q, np.concatenate([rho, phi]), pin.ARG0), rtol=0,
                                   atol=atol)


@pytest.mark.pinocchio
def test_se3_jacobians_central_differences(harness, rng):
    """Jv columns = log6(exp(w)⁻¹·exp(w + h·e_k))/h; Jq columns = log6(exp(w)⁻¹·exp(h·e_k)·exp(w))/h."""
    h = 1e-6
    for rho, phi in tangent_cases(rng):
        if np.linalg.norm(phi) > np.pi - 1e-3:
            continue  # log6 jumps cover at π
        w = np.concatenate([rho, phi])
        E = pin.exp6(motion(rho, phi))
        Jv = J6(harness, "se3_retract_jacobian_v", "thread", "double", rho, phi)
        Jq = J6(harness, "se3_retract_jacobian_q", "thread", "double", rho, phi)
        fv, fq = np.zeros((6, 6)), np.zeros((6, 6))
        for k in range(6):
            d = np.zeros(6)
            d[k] = h
            fv[:, k] = (log6(E.inverse() * pin.exp6(w + d)) - log6(E.inverse() * pin.exp6(w - d))) / (2 * h)
            fq[:, k] = (log6(E.inverse() * pin.exp6(d) * E) - log6(E.inverse() * pin.exp6(-d) * E)) / (2 * h)
        np.testing.assert_allclose(Jv, fv, rtol=0, atol=1e-7 * scale(rho, phi) ** 2)
        np.testing.assert_allclose(Jq, fq, rtol=0, atol=1e-7 * scale(rho, phi) ** 2)


# ---- retract / difference -------------------------------------------------------------------------------


@pytest.mark.pinocchio
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_retract(harness, rng, scope, precision, layout):
    tol = TOL[precision]
    for rho, phi in tangent_cases(rng):
        pose = rounded(random_pose(rng), precision)
        rho, phi = rounded(rho, precision), rounded(phi, precision)
        got = harness.run(f"se3_retract[{layout}]/{scope}/{precision}", to_layout(pose, layout), rho, phi, n_out=7)
        got = from_layout(got, layout)
        want = pin.integrate(MODEL, pose, np.concatenate([rho, phi]))
        same_pose(got, want, 4 * tol * scale(rho, phi))
        same_pose(got, pin.SE3ToXYZQUAT(se3_of(pose) * pin.exp6(motion(rho, phi))), 4 * tol * scale(rho, phi))
        assert abs(np.linalg.norm(got[3:]) - 1) < 4 * tol
        if np.linalg.norm(phi) < np.pi - 1e-6:
            # the quaternion stays on the input's hemisphere (Pinocchio's choice), not just the same rotation
            assert np.dot(got[3:], pose[3:]) > 0
    # zero step: the (normalised) input back
    pose = random_pose(rng)
    got = harness.run(f"se3_retract[{layout}]/{scope}/double", to_layout(pose, layout), np.zeros(3), np.zeros(3),
                      n_out=7)
    np.testing.assert_allclose(from_layout(got, layout), pose, rtol=0, atol=1e-15)


@pytest.mark.pinocchio
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_difference(harness, rng, scope, precision, layout):
    tol = TOL[precision]
    for rho, phi in tangent_cases(rng):
        a = random_pose(rng)
        b = pin.integrate(MODEL, a, np.concatenate([rho, phi]))
        a, b = rounded(a, precision), rounded(b, precision)
        got = harness.run(f"se3_difference[{layout}]/{scope}/{precision}", to_layout(a, layout),
                          to_layout(b, layout), n_out=6)
        assert np.linalg.norm(got[3:]) <= np.pi * (1 + 4 * tol)
        theta = np.linalg.norm(phi)
        if theta < np.pi - 1e-3:
            np.testing.assert_allclose(got, pin.difference(MODEL, a, b), rtol=0,
                                       atol=40 * tol * scale(rho, phi) ** 2)
        # the exact inverse of the retract, at every angle (π included, either cover)
        back = harness.run(f"se3_retract[{layout}]/thread/double", to_layout(a, layout), got[:3], got[3:], n_out=7)
        same_pose(from_layout(back, layout), b, 40 * tol * scale(rho, phi) ** 2)
    a = random_pose(rng)
    np.testing.assert_allclose(harness.run(f"se3_difference[{layout}]/{scope}/double", to_layout(a, layout),
                                           to_layout(a, layout), n_out=6), np.zeros(6), rtol=0, atol=1e-15)


# ---- second derivatives ---------------------------------------------------------------------------------


def fd_hessian(harness, which, rho, phi, h=1e-5):
    w = np.concatenate([rho, phi])
    out = np.zeros((6, 6, 6))
    for k in range(6):
        d = np.zeros(6)
        d[k] = h
        jp = J6(harness, which, "thread", "double", (w + d)[:3], (w + d)[3:])
        jm = J6(harness, which, "thread", "double", (w - d)[:3], (w - d)[3:])
        out[k] = (jp - jm) / (2 * h)
    return out


def hessian(harness, tag, scope, precision, rho, phi):
    """J2 as [k, r, c]."""
    flat = harness.run(f"se3_retract_hessian[{tag}]/{scope}/{precision}", rho, phi, n_out=216)
    return flat.reshape(6, 6, 6).transpose(0, 2, 1)  # stored [k][c][r]


@pytest.mark.parametrize("tag,which", [("q", "se3_retract_jacobian_q"), ("v", "se3_retract_jacobian_v")])
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_retract_hessian_central_differences(harness, rng, scope, tag, which):
    for rho, phi in tangent_cases(rng):
        H = hessian(harness, tag, scope, "double", rho, phi)
        np.testing.assert_allclose(H, fd_hessian(harness, which, rho, phi), rtol=0, atol=2e-8 * scale(rho, phi) ** 3)


@pytest.mark.parametrize("tag", ["q", "v"])
@pytest.mark.parametrize("scope", SCOPES)
def test_se3_retract_hessian_float(harness, rng, scope, tag):
    """Double internals: the float call is the double result on the float-rounded inputs, rounded once."""
    for rho, phi in tangent_cases(rng):
        rho, phi = rounded(rho, "float"), rounded(phi, "float")
        got = hessian(harness, tag, scope, "float", rho, phi)
        want = hessian(harness, tag, "thread", "double", rho, phi)
        np.testing.assert_array_equal(got, want.astype(np.float32).astype(np.float64))


@pytest.mark.pinocchio
def test_se3_retract_hessian_at_zero(harness):
    """Closed form at w = 0: ∂Jv/∂φ_k = −½[e_k]ₓ on the diagonal blocks, ∂Jv/∂ρ_k = −½[e_k]ₓ in Q."""
    Hv = hessian(harness, "v", "thread", "double", np.zeros(3), np.zeros(3))
    Hq = hessian(harness, "q", "thread", "double", np.zeros(3), np.zeros(3))
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1
        S = np.array(pin.skew(e))
        np.testing.assert_allclose(Hv[k][:3, 3:], -0.5 * S, atol=1e-16)
        np.testing.assert_allclose(Hv[3 + k][:3, :3], -0.5 * S, atol=1e-16)
        np.testing.assert_allclose(Hq[k][:3, 3:], -S, atol=1e-16)
        np.testing.assert_allclose(Hq[3 + k][:3, :3], -S, atol=1e-16)


# ---- scopes agree ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
def test_scopes_agree(harness, rng, precision):
    for rho, phi in tangent_cases(rng):
        calls = [("se3_Q_block", (rho, phi), 9), ("se3_retract_jacobian_q", (rho, phi), 36),
                 ("se3_retract_jacobian_v", (rho, phi), 36), ("se3_retract_hessian[q]", (rho, phi), 216),
                 ("se3_retract_hessian[v]", (rho, phi), 216)]
        pose, pose2 = random_pose(rng), random_pose(rng)
        for layout in LAYOUTS:
            calls += [(f"se3_retract[{layout}]", (pose, rho, phi), 7), (f"se3_difference[{layout}]", (pose, pose2), 6)]
        for name, inputs, n in calls:
            ref = harness.run(f"{name}/thread/{precision}", *inputs, n_out=n)
            assert not np.isnan(ref).any()
            for scope in ("warp", "block"):
                harness.assert_same(harness.run(f"{name}/{scope}/{precision}", *inputs, n_out=n), ref, precision)


# ---- lie_detail -----------------------------------------------------------------------------------------


def coefs_closed(t):
    s, c = np.sin(t), np.cos(t)
    return np.array([s / t, (1 - c) / t**2, (t - s) / t**3, (t**2 + 2 * c - 2) / (2 * t**4),
                     (2 * t - 3 * s + t * c) / (2 * t**5)])


def test_se3_d2_coefs(harness, rng):
    ts = [0.0, 1e-9, 1e-4, 0.1, 0.2, 0.5, 1.0, 1.5, 1.9999999, 2.0, 2.0000001, 2.5, np.pi, *rng.uniform(0, np.pi, 50)]
    at0 = harness.run("se3_d2_coefs/detail/double", 0.0, n_out=10)
    np.testing.assert_allclose(at0, [1, 1 / 2, 1 / 6, 1 / 24, 1 / 120, -1 / 3, -1 / 12, -1 / 60, -1 / 360,
                                     -2 / 2520], rtol=1e-15)
    for t in ts:
        got = harness.run("se3_d2_coefs/detail/double", t, n_out=10)
        if t >= 1.0:  # closed forms are well conditioned here
            np.testing.assert_allclose(got[:5], coefs_closed(t), rtol=1e-12)
            h = 1e-5
            fd = (coefs_closed(t + h) - coefs_closed(t - h)) / (2 * h) / t
            np.testing.assert_allclose(got[5:], fd, rtol=1e-8)
        if 1e-3 < t:
            h = 1e-5 * t
            lo = harness.run("se3_d2_coefs/detail/double", t - h, n_out=10)[:5]
            hi = harness.run("se3_d2_coefs/detail/double", t + h, n_out=10)[:5]
            np.testing.assert_allclose(got[5:], (hi - lo) / (2 * h) / t, rtol=1e-6, atol=1e-12)
    # the two branches meet at t = 2
    lo = harness.run("se3_d2_coefs/detail/double", np.nextafter(2.0, 0), n_out=10)
    hi = harness.run("se3_d2_coefs/detail/double", 2.0, n_out=10)
    np.testing.assert_allclose(lo, hi, rtol=1e-13)


def test_se3_d2_helpers(harness, rng):
    h = 1e-6
    for rho, phi in tangent_cases(rng):
        for k in range(3):
            e = np.zeros(3)
            e[k] = h
            jr = lambda p: harness.run("so3_right_jacobian/thread/double", p, n_out=9)  # noqa: E731
            rm = lambda p: harness.run("so3_exp/thread/double", -p, n_out=9)  # noqa: E731
            np.testing.assert_allclose(harness.run("se3_d2_dJr/detail/double", phi, k, n_out=9),
                                       (jr(phi + e) - jr(phi - e)) / (2 * h), rtol=0, atol=1e-8)
            np.testing.assert_allclose(harness.run("se3_d2_dRinv/detail/double", phi, k, n_out=9),
                                       (rm(phi + e) - rm(phi - e)) / (2 * h), rtol=0, atol=1e-8)
        w = np.concatenate([rho, phi])
        for kk in range(6):
            d = np.zeros(6)
            d[kk] = h
            q = lambda x: harness.run("se3_Q_block/thread/double", x[:3], x[3:], n_out=9)  # noqa: E731
            off = lambda x: J6(harness, "se3_retract_jacobian_q", "thread", "double", x[:3], x[3:])[:3, 3:]  # noqa: E731
            np.testing.assert_allclose(harness.run("se3_d2_dQ/detail/double", rho, phi, kk, n_out=9),
                                       (q(w + d) - q(w - d)) / (2 * h), rtol=0, atol=1e-7 * scale(rho, phi) ** 3)
            np.testing.assert_allclose(harness.run("se3_d2_doff/detail/double", rho, phi, kk, n_out=9)
                                       .reshape(3, 3, order="F"), (off(w + d) - off(w - d)) / (2 * h), rtol=0,
                                       atol=1e-7 * scale(rho, phi) ** 3)
        for tag in ("q", "v"):
            full = harness.run(f"se3_retract_hessian[{tag}]/thread/double", rho, phi, n_out=216)
            for k in range(6):
                for precision in PRECISIONS:
                    got = harness.run(f"se3_retract_hessian_slice[{tag}]/detail/{precision}", rho, phi, k, n_out=36)
                    want = full[36 * k:36 * (k + 1)]
                    if precision == "float":
                        want = want.astype(np.float32).astype(np.float64)
                    harness.assert_same(got, want, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_se3_detail_cores(harness, rng, precision):
    for rho, phi in tangent_cases(rng):
        rho, phi = rounded(rho, precision), rounded(phi, precision)
        for core, op, n in [("se3_Q_block_core", "se3_Q_block", 9),
                            ("se3_retract_jacobian_q_core", "se3_retract_jacobian_q", 36),
                            ("se3_retract_jacobian_v_core", "se3_retract_jacobian_v", 36)]:
            np.testing.assert_array_equal(harness.run(f"{core}/detail/{precision}", rho, phi, n_out=n),
                                          harness.run(f"{op}/thread/{precision}", rho, phi, n_out=n))
        pose, pose2 = rounded(random_pose(rng), precision), rounded(random_pose(rng), precision)
        for layout in LAYOUTS:
            np.testing.assert_array_equal(
                harness.run(f"se3_retract_core[{layout}]/detail/{precision}", pose, rho, phi, n_out=7),
                harness.run(f"se3_retract[{layout}]/thread/{precision}", pose, rho, phi, n_out=7))
            np.testing.assert_array_equal(
                harness.run(f"se3_difference_core[{layout}]/detail/{precision}", pose, pose2, n_out=6),
                harness.run(f"se3_difference[{layout}]/thread/{precision}", pose, pose2, n_out=6))
