"""Quaternion operators against NumPy Hamilton products and scipy.spatial.transform.Rotation (scalar-last xyzw,
so wxyz results are permuted before comparing), with edge cases at the identity, at θ = π and on the negative-w
half of the double cover. Every call runs at thread, warp and block scope; on the host the three must agree
bit for bit, so the checks compare the thread result and assert the other scopes equal it exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

SCOPES = ("thread", "warp", "block")
LAYOUTS = ("xyzw", "wxyz")
PRECISIONS = ("double", "float")
TOL = {"double": 1e-12, "float": 1e-5}
N = 60  # random cases per parametrisation


# ---- helpers ----------------------------------------------------------------------------------------------

def rounded(x, precision):
    """The inputs exactly as the call sees them (float calls round to float32)."""
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def store(q, layout):
    """xyzw -> the layout's storage order."""
    q = np.asarray(q, dtype=np.float64)
    return q if layout == "xyzw" else q[[3, 0, 1, 2]]


def load(q, layout):
    """The layout's storage order -> xyzw."""
    q = np.asarray(q, dtype=np.float64)
    return q if layout == "xyzw" else q[[1, 2, 3, 0]]


def hamilton(a, b):
    """a ⊗ b, both xyzw."""
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), [aw * bw - av @ bv]])


def exp_ref(phi):
    th = np.linalg.norm(phi)
    if th == 0:
        return np.array([0.0, 0.0, 0.0, 1.0])
    return np.concatenate([np.sin(th / 2) / th * phi, [np.cos(th / 2)]])


def random_unit(rng, negative_w=None):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    if negative_w is not None:
        q *= -1 if (q[3] > 0) == negative_w else 1
    return q


def random_rotvec(rng, max_angle=np.pi):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return axis * rng.uniform(0, max_angle)


def same_rotation_quat(got, want, atol):
    """Quaternions equal up to the double-cover sign."""
    sign = 1.0 if got @ want >= 0 else -1.0
    np.testing.assert_allclose(got, sign * want, rtol=0, atol=atol)


def call(harness, fn, tag, precision, *inputs, n_out):
    """Runs fn[tag] at every scope; returns the thread result after checking warp and block equal it exactly."""
    results = [harness.run(f"{fn}[{tag}]/{scope}/{precision}", *inputs, n_out=n_out) for scope in SCOPES]
    assert not np.isnan(results[0]).any(), f"{fn}[{tag}] left outputs unwritten"
    for scope, r in zip(SCOPES[1:], results[1:]):
        np.testing.assert_array_equal(r, results[0], err_msg=f"{fn}[{tag}]/{scope} differs from thread scope")
    return results[0]


params = pytest.mark.parametrize("precision", PRECISIONS)
layouts = pytest.mark.parametrize("layout", LAYOUTS)


# ---- quat_mul ---------------------------------------------------------------------------------------------

@params
@layouts
def test_quat_mul(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [(random_unit(rng), random_unit(rng)) for _ in range(N)]
    ident = np.array([0.0, 0.0, 0.0, 1.0])
    q = random_unit(rng)
    cases += [(ident, q), (q, ident), (ident, ident), (-q, q), (q, -q),
              (random_unit(rng, True), random_unit(rng, True)), (q, q * np.array([-1, -1, -1, 1]))]
    for a, b in cases:
        a, b = rounded(a, precision), rounded(b, precision)
        got = load(call(harness, "quat_mul", layout, precision, store(a, layout), store(b, layout), n_out=4),
                   layout)
        np.testing.assert_allclose(got, hamilton(a, b), rtol=0, atol=tol)
        same_rotation_quat(got, (Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat(), 4 * tol)
        # R(a ⊗ b) = R(a)·R(b)
        np.testing.assert_allclose(Rotation.from_quat(got).as_matrix(),
                                   Rotation.from_quat(a).as_matrix() @ Rotation.from_quat(b).as_matrix(),
                                   rtol=0, atol=8 * tol)


@params
def test_quat_mul_non_unit(harness, rng, precision):
    """The product is bilinear: no unit assumption."""
    for _ in range(N):
        a, b = rounded(rng.normal(size=4) * 3, precision), rounded(rng.normal(size=4) * 3, precision)
        got = call(harness, "quat_mul", "xyzw", precision, a, b, n_out=4)
        want = hamilton(a, b)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL[precision] * 4 * np.abs(want).max())


# ---- quat_conj --------------------------------------------------------------------------------------------

@params
@layouts
def test_quat_conj(harness, rng, layout, precision):
    cases = [random_unit(rng) for _ in range(N)] + [np.array([0.0, 0, 0, 1]), random_unit(rng, True)]
    for a in cases:
        a = rounded(a, precision)
        got = load(call(harness, "quat_conj", layout, precision, store(a, layout), n_out=4), layout)
        np.testing.assert_array_equal(got, a * np.array([-1, -1, -1, 1]))
        # the inverse of a unit quaternion
        np.testing.assert_allclose(hamilton(a, got), [0, 0, 0, 1], rtol=0, atol=4 * TOL[precision])
        np.testing.assert_allclose(Rotation.from_quat(got).as_matrix(), Rotation.from_quat(a).as_matrix().T,
                                   rtol=0, atol=4 * TOL[precision])


# ---- quat_normalize ---------------------------------------------------------------------------------------

@params
@layouts
@pytest.mark.parametrize("canonical", [False, True])
def test_quat_normalize(harness, rng, layout, precision, canonical):
    tol = TOL[precision]
    tag = f"{layout},canonical" if canonical else layout
    cases = [rng.normal(size=4) * 10 ** rng.uniform(-3, 3) for _ in range(N)]
    cases += [np.array([0.0, 0, 0, -2]), np.array([0.0, 0, 0, 5]), np.array([1e-20, 0, 0, -1e-20]),
              np.array([3.0, -4, 1e-9, -1e-12]), np.array([1.0, 2, 3, 0]), random_unit(rng, True) * 7]
    for q in cases:
        q = rounded(q, precision)
        got = load(call(harness, "quat_normalize", tag, precision, store(q, layout), n_out=4), layout)
        want = q / np.linalg.norm(q)
        if canonical and want[3] < 0:
            want = -want
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
        np.testing.assert_allclose(np.linalg.norm(got), 1.0, rtol=0, atol=tol)
        if canonical:
            assert got[3] >= 0
        else:
            assert np.sign(got[3]) == np.sign(q[3]) or q[3] == 0
        if canonical:
            # the scipy canonical form (w >= 0) wherever w is not zero
            if abs(want[3]) > 1e-3:
                np.testing.assert_allclose(got, Rotation.from_quat(q).as_quat(canonical=True), rtol=0, atol=tol)
    # thread scope may normalise in place
    for q in cases[:10]:
        q = rounded(q, precision)
        got = harness.run(f"quat_normalize[xyzw,canonical]/thread_inplace/{precision}", q, n_out=4)
        np.testing.assert_array_equal(got, harness.run(f"quat_normalize[xyzw,canonical]/thread/{precision}", q,
                                                       n_out=4))


# ---- quat_exp ---------------------------------------------------------------------------------------------

@params
@layouts
def test_quat_exp(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [random_rotvec(rng) for _ in range(N)] + [random_rotvec(rng, 3 * np.pi) for _ in range(20)]
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    cases += [np.zeros(3), axis * 1e-14, axis * 1e-12, axis * 1e-11, axis * 1e-8, axis * 1e-4, axis * np.pi,
              axis * (np.pi - 1e-7), axis * 2 * np.pi, np.array([np.pi, 0, 0]), np.array([0, 0, -1e-300])]
    for phi in cases:
        phi = rounded(phi, precision)
        got = load(call(harness, "quat_exp", layout, precision, phi, n_out=4), layout)
        np.testing.assert_allclose(got, exp_ref(phi), rtol=0, atol=tol)
        same_rotation_quat(got, Rotation.from_rotvec(phi).as_quat(), tol)
        np.testing.assert_allclose(np.linalg.norm(got), 1.0, rtol=0, atol=tol)


@pytest.mark.parametrize("h", [1e-13, 1e-6])
def test_quat_exp_derivative_at_identity(harness, h):
    """d exp/dφ at φ = 0 is [½·1₃; 0] (central differences, float64), on both sides of the Taylor switch."""
    jac = np.zeros((4, 3))
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        jac[:, i] = (harness.run("quat_exp[xyzw]/thread/double", e, n_out=4)
                     - harness.run("quat_exp[xyzw]/thread/double", -e, n_out=4)) / (2 * h)
    np.testing.assert_allclose(jac, np.vstack([0.5 * np.eye(3), np.zeros((1, 3))]), rtol=0, atol=1e-9)


def test_quat_exp_derivative_random(harness, rng):
    """The full 4x3 derivative of exp away from the identity, central differences against the analytic form."""
    for _ in range(N):
        phi = random_rotvec(rng)
        th = np.linalg.norm(phi)
        n = phi / th
        s, c = np.sin(th / 2), np.cos(th / 2)
        # d(sin(θ/2)/θ·φ)/dφ and d cos(θ/2)/dφ
        want = np.vstack([s / th * (np.eye(3) - np.outer(n, n)) + 0.5 * c * np.outer(n, n), -0.5 * s * n[None]])
        h = 1e-6
        jac = np.zeros((4, 3))
        for i in range(3):
            e = np.zeros(3)
            e[i] = h
            jac[:, i] = (harness.run("quat_exp[xyzw]/thread/double", phi + e, n_out=4)
                         - harness.run("quat_exp[xyzw]/thread/double", phi - e, n_out=4)) / (2 * h)
        np.testing.assert_allclose(jac, want, rtol=0, atol=1e-8)


# ---- quat_log ---------------------------------------------------------------------------------------------

@params
@layouts
def test_quat_log(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [random_unit(rng) for _ in range(N)] + [random_unit(rng, True) for _ in range(20)]
    for q in cases:
        q = rounded(q, precision)
        got = call(harness, "quat_log", layout, precision, store(q, layout), n_out=3)
        want = Rotation.from_quat(q).as_rotvec()
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * tol)
        assert np.linalg.norm(got) <= np.pi + 4 * tol
        # the double cover is folded: −q gives the same vector, exactly
        np.testing.assert_array_equal(call(harness, "quat_log", layout, precision, store(-q, layout), n_out=3), got)


@params
@layouts
def test_quat_log_exp_roundtrip(harness, rng, layout, precision):
    tol = TOL[precision]
    for _ in range(N):
        phi = rounded(random_rotvec(rng, np.pi * 0.999), precision)
        q = load(call(harness, "quat_exp", layout, precision, phi, n_out=4), layout)
        got = call(harness, "quat_log", layout, precision, store(rounded(q, precision), layout), n_out=3)
        np.testing.assert_allclose(got, phi, rtol=0, atol=10 * tol)


@params
@layouts
def test_quat_log_edges(harness, rng, layout, precision):
    tol = TOL[precision]
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    # identity and ±identity
    for q in (np.array([0.0, 0, 0, 1]), np.array([0.0, 0, 0, -1])):
        got = call(harness, "quat_log", layout, precision, store(q, layout), n_out=3)
        np.testing.assert_array_equal(got, np.zeros(3))
    # tiny angles on both sides of the |v| = 1e-8 series switch: relative accuracy is kept
    for th in (1e-15, 1e-10, 2e-8 * 0.99, 2e-8 * 1.01, 1e-6, 1e-3):
        for sign in (1.0, -1.0):
            phi = axis * th
            q = rounded(sign * exp_ref(phi), precision)
            got = call(harness, "quat_log", layout, precision, store(q, layout), n_out=3)
            want = Rotation.from_quat(q).as_rotvec() if th > 1e-9 else 2 * np.sign(q[3]) * q[:3] / abs(q[3])
            np.testing.assert_allclose(got, want, rtol=tol, atol=0)
    # near π from either side: the shortest path flips to the opposite axis past π
    for th in (np.pi - 1e-3, np.pi - 1e-6, np.pi + 1e-6, np.pi + 1e-3):
        q = rounded(exp_ref(axis * th), precision)
        got = call(harness, "quat_log", layout, precision, store(q, layout), n_out=3)
        np.testing.assert_allclose(got, Rotation.from_quat(q).as_rotvec(), rtol=0, atol=4 * tol)
        want_dir = axis if th < np.pi else -axis
        np.testing.assert_allclose(got / np.linalg.norm(got), want_dir, rtol=0, atol=4 * tol)
    # exactly π (w = 0): |φ| = π and q, −q still give the same vector
    for a in (axis, np.array([1.0, 0, 0]), np.array([0.0, -1, 0]), np.array([0.0, 0, -1])):
        q = rounded(np.concatenate([a, [0.0]]), precision)
        got = call(harness, "quat_log", layout, precision, store(q, layout), n_out=3)
        np.testing.assert_allclose(np.linalg.norm(got), np.pi, rtol=tol)
        same_rotation_quat(got / np.pi, q[:3] / np.linalg.norm(q[:3]), 4 * tol)
        for neg in (-q, np.concatenate([-q[:3], [-0.0]])):
            np.testing.assert_array_equal(call(harness, "quat_log", layout, precision, store(neg, layout), n_out=3),
                                          got)


@pytest.mark.parametrize("h", [1e-12, 1e-6])
def test_quat_log_derivative_at_identity(harness, h):
    """d log/dv at the identity is 2·1₃ (central differences through the series head and the atan2 path)."""
    jac = np.zeros((3, 3))
    for i in range(3):
        qp, qm = np.array([0.0, 0, 0, 1]), np.array([0.0, 0, 0, 1])
        qp[i], qm[i] = h, -h
        qp /= np.linalg.norm(qp)
        qm /= np.linalg.norm(qm)
        jac[:, i] = (harness.run("quat_log[xyzw]/thread/double", qp, n_out=3)
                     - harness.run("quat_log[xyzw]/thread/double", qm, n_out=3)) / (2 * h)
    np.testing.assert_allclose(jac, 2 * np.eye(3), rtol=0, atol=1e-9)


# ---- quat_rotate ------------------------------------------------------------------------------------------

@params
@layouts
def test_quat_rotate(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [(random_unit(rng), rng.normal(size=3) * 5) for _ in range(N)]
    p = rng.normal(size=3)
    cases += [(np.array([0.0, 0, 0, 1]), p), (np.array([0.0, 0, 0, -1]), p), (random_unit(rng, True), p),
              (np.array([1.0, 0, 0, 0]), p), (random_unit(rng), np.zeros(3)), (random_unit(rng), p * 1e-30)]
    for q, p in cases:
        q, p = rounded(q, precision), rounded(p, precision)
        got = call(harness, "quat_rotate", layout, precision, store(q, layout), p, n_out=3)
        want = Rotation.from_quat(q).apply(p)
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * tol * max(1.0, np.abs(p).max()) if np.any(p) else 0)
        # the same as multiplying by quat_to_rot's matrix
        np.testing.assert_allclose(got, Rotation.from_quat(q).as_matrix() @ p, rtol=0,
                                   atol=4 * tol * max(1.0, np.abs(p).max()))
    for q, p in cases[:10]:
        q, p = rounded(q, precision), rounded(p, precision)
        got = harness.run(f"quat_rotate[xyzw]/thread_inplace/{precision}", q, p, n_out=3)
        np.testing.assert_array_equal(got, harness.run(f"quat_rotate[xyzw]/thread/{precision}", q, p, n_out=3))


# ---- quat_to_rot / rot_to_quat ----------------------------------------------------------------------------

@params
@layouts
def test_quat_to_rot(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [random_unit(rng) for _ in range(N)]
    cases += [np.array([0.0, 0, 0, 1]), np.array([0.0, 0, 0, -1]), np.array([1.0, 0, 0, 0]),
              np.array([0.0, 1, 0, 0]), np.array([0.0, 0, 1, 0]), random_unit(rng, True)]
    for q in cases:
        q = rounded(q, precision)
        want = Rotation.from_quat(q).as_matrix()
        got = call(harness, "quat_to_rot", f"{layout},3", precision, store(q, layout), n_out=9)
        np.testing.assert_allclose(got.reshape(3, 3, order="F"), want, rtol=0, atol=4 * tol)
        # LDA = 4: the rotation block of a 4x4 transform in place, the other seven entries untouched
        m = rng.normal(size=16)
        got4 = call(harness, "quat_to_rot", f"{layout},4", precision, store(q, layout), m, n_out=16)
        got4 = got4.reshape(4, 4, order="F")
        m = rounded(m, precision).reshape(4, 4, order="F")
        np.testing.assert_array_equal(got4[:3, :3], got.reshape(3, 3, order="F"))
        np.testing.assert_array_equal(got4[3, :], m[3, :])
        np.testing.assert_array_equal(got4[:3, 3], m[:3, 3])


def rotations_with_edges(rng, n):
    """Random rotations plus the identity, the θ = π family (each Shepperd pivot) and θ near π."""
    mats = list(Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix())
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    mats.append(np.eye(3))
    for a in (np.eye(3)[0], np.eye(3)[1], np.eye(3)[2], axis, np.array([1.0, 1, 0]) / np.sqrt(2)):
        for th in (np.pi, np.pi - 1e-7, np.pi * 0.9, 1e-9):
            mats.append(Rotation.from_rotvec(a * th).as_matrix())
    # each Shepperd branch with its pivot clearly dominant
    mats += [Rotation.from_rotvec(np.eye(3)[i] * 2.5).as_matrix() for i in range(3)]
    return mats


@params
@layouts
def test_rot_to_quat(harness, rng, layout, precision):
    tol = TOL[precision]
    for R in rotations_with_edges(rng, N):
        R = rounded(R, precision)
        got = load(call(harness, "rot_to_quat", f"{layout},3", precision, R.ravel(order="F"), n_out=4), layout)
        want = Rotation.from_matrix(R).as_quat(canonical=True)
        assert got[3] >= 0
        np.testing.assert_allclose(np.linalg.norm(got), 1.0, rtol=0, atol=tol)
        if want[3] > 1e-6:
            np.testing.assert_allclose(got, want, rtol=0, atol=4 * tol)
        else:  # θ = π: both signs have w = 0
            same_rotation_quat(got, want, 4 * tol)
        np.testing.assert_allclose(Rotation.from_quat(got).as_matrix(), R, rtol=0, atol=8 * tol)
        # LDA = 4 reads the rotation block of a 4x4 transform in place
        m = rng.normal(size=(4, 4))
        m[:3, :3] = R
        got4 = call(harness, "rot_to_quat", f"{layout},4", precision, m.ravel(order="F"), n_out=4)
        np.testing.assert_array_equal(load(got4, layout), got)


@params
@layouts
def test_rot_quat_roundtrip(harness, rng, layout, precision):
    tol = TOL[precision]
    for _ in range(N):
        q = random_unit(rng)
        q = rounded(q if q[3] >= 0 else -q, precision)
        R = call(harness, "quat_to_rot", f"{layout},3", precision, store(q, layout), n_out=9)
        back = load(call(harness, "rot_to_quat", f"{layout},3", precision, R, n_out=4), layout)
        np.testing.assert_allclose(back, q, rtol=0, atol=4 * tol)


# ---- quat_to_basis ----------------------------------------------------------------------------------------

@params
@layouts
def test_quat_to_basis(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [rng.normal(size=4) * 10 ** rng.uniform(-3, 3) for _ in range(N)]
    cases += [np.array([0.0, 0, 0, 3]), np.array([0.0, 0, 0, -0.5]), np.array([2.0, 0, 0, 0]),
              random_unit(rng, True) * 1e-4]
    for q in cases:
        q = rounded(q, precision)
        got = call(harness, "quat_to_basis", layout, precision, store(q, layout), n_out=9)
        want = Rotation.from_quat(q).as_matrix()  # scipy normalises
        np.testing.assert_allclose(got.reshape(3, 3, order="F"), want, rtol=0, atol=4 * tol)
        # a right-handed orthonormal frame
        u, v, w = got[:3], got[3:6], got[6:]
        np.testing.assert_allclose(np.cross(u, v), w, rtol=0, atol=8 * tol)


# ---- quat_retract -----------------------------------------------------------------------------------------

@params
@layouts
def test_quat_retract(harness, rng, layout, precision):
    tol = TOL[precision]
    cases = [(random_unit(rng), random_rotvec(rng)) for _ in range(N)]
    q = random_unit(rng)
    cases += [(q, np.zeros(3)), (np.array([0.0, 0, 0, 1]), random_rotvec(rng)), (random_unit(rng, True),
              random_rotvec(rng)), (q, random_rotvec(rng) * 1e-13), (q, np.array([np.pi, 0, 0]))]
    for q, phi in cases:
        q, phi = rounded(q, precision), rounded(phi, precision)
        got = load(call(harness, "quat_retract", layout, precision, store(q, layout), phi, n_out=4), layout)
        want = hamilton(q, exp_ref(phi))
        want /= np.linalg.norm(want)
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * tol)
        same_rotation_quat(got, (Rotation.from_quat(q) * Rotation.from_rotvec(phi)).as_quat(), 4 * tol)
        np.testing.assert_allclose(np.linalg.norm(got), 1.0, rtol=0, atol=tol)
    for q, phi in cases[:10]:
        q, phi = rounded(q, precision), rounded(phi, precision)
        got = harness.run(f"quat_retract[xyzw]/thread_inplace/{precision}", q, phi, n_out=4)
        np.testing.assert_array_equal(got, harness.run(f"quat_retract[xyzw]/thread/{precision}", q, phi, n_out=4))


@params
def test_quat_retract_stays_unit(harness, rng, precision):
    """Repeated retracts (an integrator loop) do not drift off the unit sphere; the composition matches."""
    q = rounded(random_unit(rng), precision)
    omega_dt = rounded(random_rotvec(rng, 0.05), precision)
    for _ in range(500):
        q = harness.run(f"quat_retract[xyzw]/thread/{precision}", q, omega_dt, n_out=4)
    np.testing.assert_allclose(np.linalg.norm(q), 1.0, rtol=0, atol=TOL[precision])


# ---- the serial lie_detail cores --------------------------------------------------------------------------

def _core_inputs(rng, kind):
    if kind == "q2":
        return (random_unit(rng), random_unit(rng))
    if kind == "phi":
        return (random_rotvec(rng, 1.5 * np.pi),)
    if kind == "raw":
        return (rng.normal(size=4) * 10 ** rng.uniform(-2, 2),)
    if kind == "q":
        return (random_unit(rng),)
    if kind == "qp":
        return (random_unit(rng), rng.normal(size=3))
    if kind == "qphi":
        return (random_unit(rng), random_rotvec(rng))
    raise AssertionError(kind)


# core name, its bracket tags -> the scope call it must equal exactly, input kind, n_out
CORES = [
    ("quat_mul_core", "{L}", "quat_mul[{L}]", "q2", 4),
    ("quat_exp_core", "{L}", "quat_exp[{L}]", "phi", 4),
    ("quat_normalize_core", "{L}", "quat_normalize[{L}]", "raw", 4),
    ("quat_normalize_core", "{L},canonical", "quat_normalize[{L},canonical]", "raw", 4),
    ("quat_rotate_core", "{L}", "quat_rotate[{L}]", "qp", 3),
    ("quat_to_rot_core", "{L}", "quat_to_rot[{L},3]", "q", 9),
    ("quat_retract_core", "{L}", "quat_retract[{L}]", "qphi", 4),
    ("quat_log_core", "{L}", "quat_log[{L}]", "q", 3),
]


@params
@layouts
@pytest.mark.parametrize("core,tag,scoped,kind,n_out", CORES, ids=[f"{c[0]}[{c[1]}]" for c in CORES])
def test_cores_match_scopes(harness, rng, layout, precision, core, tag, scoped, kind, n_out):
    """Each serial core is the computation of its scope functions (which the tests above check against
    NumPy/SciPy): the same bits for the same inputs."""
    for _ in range(N):
        inputs = [rounded(x, precision) for x in _core_inputs(rng, kind)]
        stored = [store(x, layout) if x.size == 4 else x for x in inputs]
        got = harness.run(f"{core}[{tag.format(L=layout)}]/serial/{precision}", *stored, n_out=n_out)
        want = call(harness, scoped.format(L=layout).split("[")[0], scoped.format(L=layout).split("[")[1][:-1],
                    precision, *stored, n_out=n_out)
        np.testing.assert_array_equal(got, want)


@params
@layouts
@pytest.mark.parametrize("lda", [3, 4])
def test_rot_to_quat_core(harness, rng, layout, precision, lda):
    tol = TOL[precision]
    for R in rotations_with_edges(rng, N):
        R = rounded(R, precision)
        m = rng.normal(size=(lda, lda))  # LDA = 4: a whole 4x4 transform
        m[:3, :3] = R
        got = load(harness.run(f"rot_to_quat_core[{layout},{lda}]/serial/{precision}", m.ravel(order="F"), n_out=4),
                   layout)
        np.testing.assert_array_equal(
            got, load(call(harness, "rot_to_quat", f"{layout},3", precision, R.ravel(order="F"), n_out=4), layout))
        same_rotation_quat(got, Rotation.from_matrix(R).as_quat(), 4 * tol)


@params
@pytest.mark.parametrize("n", [3, 4, 6])
def test_copy_out(harness, rng, precision, n):
    """Each cooperating rank stores exactly its stride class rank, rank + size, ... of the N entries."""
    for size in (1, 2, 3, 4, 7, 32):
        for rank in range(min(size, 8)):
            tmp, dst = rounded(rng.normal(size=n), precision), rounded(rng.normal(size=n), precision)
            got = harness.run(f"copy_out[{n}]/serial/{precision}", rank, size, tmp, dst, n_out=n)
            mine = (np.arange(n) >= rank) & ((np.arange(n) - rank) % size == 0)
            np.testing.assert_array_equal(got, np.where(mine, tmp, dst))
    # all ranks of a group together store everything
    tmp, dst = rounded(rng.normal(size=n), precision), rounded(rng.normal(size=n), precision)
    for size in (1, 2, 5):
        acc = dst.copy()
        for rank in range(size):
            acc = harness.run(f"copy_out[{n}]/serial/{precision}", rank, size, tmp, acc, n_out=n)
        np.testing.assert_array_equal(acc, tmp)


@params
@pytest.mark.parametrize("lda", [3, 4])
def test_copy_out_mat3(harness, rng, precision, lda):
    """The column-major 3x3 lands at rows 0..2 of an LDA-strided destination; the padding rows are untouched."""
    for size in (1, 2, 4, 9, 32):
        for rank in range(min(size, 9)):
            tmp, dst = rounded(rng.normal(size=9), precision), rounded(rng.normal(size=3 * lda), precision)
            got = harness.run(f"copy_out_mat3[{lda}]/serial/{precision}", rank, size, tmp, dst, n_out=3 * lda)
            want = dst.reshape(lda, 3, order="F").copy()
            for k in range(rank, 9, size):
                want[k % 3, k // 3] = tmp[k]
            np.testing.assert_array_equal(got, want.ravel(order="F"))
