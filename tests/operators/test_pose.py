"""Pose-error operators against scipy.spatial.transform.Rotation (scalar-last xyzw; wxyz inputs are permuted
before calling), the frame identities of the spec (LOCAL: quat_retract(q_des, e) == q; WORLD:
exp(e) ⊗ q_des == q and e_WORLD = R(q_des)·e_LOCAL), antisymmetry under swapping the arguments, the folded
double cover, and the edges θ → 0 and θ → π. Block and warp scope must equal thread scope exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

SCOPES = ("thread", "warp", "block")
LAYOUTS = ("xyzw", "wxyz")
FRAMES = ("LOCAL", "WORLD")
PRECISIONS = ("double", "float")
TOL = {"double": 1e-12, "float": 1e-5}
N = 60


def rounded(x, precision):
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def store(q, layout):
    q = np.asarray(q, dtype=np.float64)
    return q if layout == "xyzw" else q[[3, 0, 1, 2]]


def hamilton(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), [aw * bw - av @ bv]])


def random_unit(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def rot(q):
    return Rotation.from_quat(q)


def error_ref(q, q_des, frame):
    if frame == "LOCAL":
        return (rot(q_des).inv() * rot(q)).as_rotvec()
    return (rot(q) * rot(q_des).inv()).as_rotvec()


def call(harness, fn, tag, precision, *inputs, n_out):
    results = [harness.run(f"{fn}[{tag}]/{scope}/{precision}", *inputs, n_out=n_out) for scope in SCOPES]
    assert not np.isnan(results[0]).any(), f"{fn}[{tag}] left outputs unwritten"
    for scope, r in zip(SCOPES[1:], results[1:]):
        np.testing.assert_array_equal(r, results[0], err_msg=f"{fn}[{tag}]/{scope} differs from thread scope")
    return results[0]


def pairs(rng, n):
    """Random orientation pairs, then the edges: equal, negated (double cover), tiny and near-π offsets."""
    out = [(random_unit(rng), random_unit(rng)) for _ in range(n)]
    q = random_unit(rng)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    out += [(q, q), (q, -q), (-q, q), (np.array([0.0, 0, 0, 1]), np.array([0.0, 0, 0, -1]))]
    for th in (1e-9, 1e-6, 1e-3, np.pi - 1e-3, np.pi - 1e-6, np.pi + 1e-3):
        step = Rotation.from_rotvec(axis * th).as_quat(canonical=False)
        out.append((hamilton(q, step), q))
        out.append((-hamilton(q, step), q))
    return out


params = pytest.mark.parametrize("precision", PRECISIONS)
layouts = pytest.mark.parametrize("layout", LAYOUTS)
frames = pytest.mark.parametrize("frame", FRAMES)


@params
@layouts
@frames
def test_quat_error(harness, rng, layout, frame, precision):
    tol = TOL[precision]
    tag = f"{layout},{frame}"
    for q, qd in pairs(rng, N):
        q, qd = rounded(q, precision), rounded(qd, precision)
        e = call(harness, "quat_error", tag, precision, store(q, layout), store(qd, layout), n_out=3)
        np.testing.assert_allclose(e, error_ref(q, qd, frame), rtol=0, atol=4 * tol)
        assert np.linalg.norm(e) <= np.pi + 4 * tol
        # from q_des to q: LOCAL retracts q_des onto q, WORLD pre-multiplies it
        step = Rotation.from_rotvec(e)
        back = rot(qd) * step if frame == "LOCAL" else step * rot(qd)
        np.testing.assert_allclose(back.as_matrix(), rot(q).as_matrix(), rtol=0, atol=8 * tol)
        # swapping the arguments negates the error; the double cover of either argument is folded
        swapped = call(harness, "quat_error", tag, precision, store(qd, layout), store(q, layout), n_out=3)
        if np.linalg.norm(e) < np.pi - 1e-4:
            np.testing.assert_allclose(swapped, -e, rtol=0, atol=4 * tol)
            flipped = call(harness, "quat_error", tag, precision, store(-q, layout), store(qd, layout), n_out=3)
            np.testing.assert_allclose(flipped, e, rtol=0, atol=4 * tol)


@params
@layouts
def test_quat_error_frames(harness, rng, layout, precision):
    """e_WORLD = R(q_des)·e_LOCAL, and both have the geodesic angle as their norm."""
    tol = TOL[precision]
    for q, qd in pairs(rng, N):
        q, qd = rounded(q, precision), rounded(qd, precision)
        args = (store(q, layout), store(qd, layout))
        el = call(harness, "quat_error", f"{layout},LOCAL", precision, *args, n_out=3)
        ew = call(harness, "quat_error", f"{layout},WORLD", precision, *args, n_out=3)
        if np.linalg.norm(el) < np.pi - 1e-4:  # at π the two frames may pick opposite (equivalent) signs
            np.testing.assert_allclose(ew, rot(qd).apply(el), rtol=0, atol=8 * tol)
        np.testing.assert_allclose(np.linalg.norm(ew), np.linalg.norm(el), rtol=0, atol=8 * tol)


@params
@layouts
def test_quat_error_small_angle_relative(harness, rng, layout, precision):
    """Tiny errors keep their relative accuracy (no acos cliff): exact rotation steps about the identity."""
    for _ in range(N):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        th = 10 ** rng.uniform(-12, -4) if precision == "double" else 10 ** rng.uniform(-3, -1)
        qd = np.array([0.0, 0, 0, 1])
        q = rounded(Rotation.from_rotvec(axis * th).as_quat(), precision)
        e = call(harness, "quat_error", f"{layout},LOCAL", precision, store(q, layout), store(qd, layout), n_out=3)
        want = Rotation.from_quat(q).as_rotvec()
        np.testing.assert_allclose(e, want, rtol=4 * TOL[precision], atol=0)


@params
@layouts
@frames
def test_pose_error(harness, rng, layout, frame, precision):
    tol = TOL[precision]
    for q, qd in pairs(rng, N):
        p, pd = rng.normal(size=3) * 3, rng.normal(size=3) * 3
        pose, pose_d = rounded(np.concatenate([p, q]), precision), rounded(np.concatenate([pd, qd]), precision)
        e = call(harness, "pose_error", f"{layout},{frame}", precision,
                 np.concatenate([pose[:3], store(pose[3:], layout)]),
                 np.concatenate([pose_d[:3], store(pose_d[3:], layout)]), n_out=6)
        np.testing.assert_array_equal(e[:3], rounded(pose[:3] - pose_d[:3], precision))
        np.testing.assert_allclose(e[3:], error_ref(pose[3:], pose_d[3:], frame), rtol=0, atol=4 * tol)
        # the rotation block is exactly quat_error
        np.testing.assert_array_equal(
            e[3:], harness.run(f"quat_error[{layout},{frame}]/thread/{precision}", store(pose[3:], layout),
                               store(pose_d[3:], layout), n_out=3))


@params
@layouts
def test_quat_angle(harness, rng, layout, precision):
    tol = TOL[precision]
    for q, qd in pairs(rng, N):
        q, qd = rounded(q, precision), rounded(qd, precision)
        args = (store(q, layout), store(qd, layout))
        th = harness.run(f"quat_angle[{layout}]/scalar/{precision}", *args, n_out=1)[0]
        np.testing.assert_allclose(th, (rot(qd).inv() * rot(q)).magnitude(), rtol=0, atol=4 * tol)
        assert 0.0 <= th <= np.pi
        # frame-invariant: the norm of either error; symmetric; double cover folded
        for frame in FRAMES:
            e = harness.run(f"quat_error[{layout},{frame}]/thread/{precision}", *args, n_out=3)
            np.testing.assert_allclose(th, np.linalg.norm(e), rtol=0, atol=4 * tol)
        np.testing.assert_allclose(
            harness.run(f"quat_angle[{layout}]/scalar/{precision}", store(qd, layout), store(q, layout), n_out=1)[0],
            th, rtol=0, atol=4 * tol)
        assert harness.run(f"quat_angle[{layout}]/scalar/{precision}", store(-q, layout), store(qd, layout),
                           n_out=1)[0] == th


@params
@layouts
def test_quat_angle_edges(harness, rng, layout, precision):
    q = rounded(random_unit(rng), precision)
    # identical and negated orientations: zero (exactly on the host; on the device the fused multiply-adds of
    # the quaternion product leave a rounding residue of the vector part)
    for other in (q, -q):
        angle = harness.run(f"quat_angle[{layout}]/scalar/{precision}", store(q, layout), store(other, layout),
                            n_out=1)[0]
        if harness.gpu:
            assert abs(angle) <= 4 * np.finfo(np.float32 if precision == "float" else np.float64).eps
        else:
            assert angle == 0.0
    # tiny angles keep relative accuracy, π is reached exactly for a half-turn
    for th in ((1e-10, 1e-7, 1e-4) if precision == "double" else (1e-3, 1e-2)):
        step = rounded(Rotation.from_rotvec(np.array([0.0, 0, th])).as_quat(), precision)
        got = harness.run(f"quat_angle[{layout}]/scalar/{precision}", store(step, layout),
                          store(np.array([0.0, 0, 0, 1]), layout), n_out=1)[0]
        np.testing.assert_allclose(got, 2 * np.arctan2(step[2], step[3]), rtol=4 * TOL[precision])
    half = np.array([0.0, 1.0, 0.0, 0.0])
    got = harness.run(f"quat_angle[{layout}]/scalar/{precision}", store(half, layout),
                      store(np.array([0.0, 0, 0, 1]), layout), n_out=1)[0]
    np.testing.assert_allclose(got, np.pi, rtol=TOL[precision])


@params
@layouts
@frames
def test_error_cores(harness, rng, layout, frame, precision):
    """quat_error_core / pose_error_core are the computations of the scope functions: the same bits."""
    tag = f"{layout},{frame}"
    for q, qd in pairs(rng, N):
        q, qd = rounded(q, precision), rounded(qd, precision)
        args = (store(q, layout), store(qd, layout))
        got = harness.run(f"quat_error_core[{tag}]/serial/{precision}", *args, n_out=3)
        np.testing.assert_array_equal(got, call(harness, "quat_error", tag, precision, *args, n_out=3))
        np.testing.assert_allclose(got, error_ref(q, qd, frame), rtol=0, atol=4 * TOL[precision])
        p, pd = rounded(rng.normal(size=3), precision), rounded(rng.normal(size=3), precision)
        poses = (np.concatenate([p, args[0]]), np.concatenate([pd, args[1]]))
        got = harness.run(f"pose_error_core[{tag}]/serial/{precision}", *poses, n_out=6)
        np.testing.assert_array_equal(got, call(harness, "pose_error", tag, precision, *poses, n_out=6))
