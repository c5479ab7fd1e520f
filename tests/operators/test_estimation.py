"""The 3x3 estimation kit (eig3, svd3, closest_rotation and the est_detail helpers) against NumPy / SciPy:
np.linalg.eigh (up to eigenvector signs), np.linalg.svd (up to paired column signs), the orthogonal-Procrustes
formula and scipy's Rotation.align_vectors (Kabsch). Column-major storage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

SCOPES = ("thread", "warp", "block", "est_detail")
PRECISIONS = ("double", "float")
CASES = 60

OPS = {"eig3": "eig3_core", "svd3": "svd3_core", "closest_rotation": "closest_rotation_core"}


def name(op, scope, precision):
    return f"{OPS[op]}/est_detail/{precision}" if scope == "est_detail" else f"{op}/{scope}/{precision}"


def eps(precision):
    return 2.2e-16 if precision == "double" else 1.2e-7


def rounded(a, precision):
    """The inputs the operator actually sees (float calls round them)."""
    return np.asarray(a, dtype=np.float32).astype(np.float64) if precision == "float" else np.asarray(a, float)


def cm(m):
    return np.asarray(m).ravel(order="F")


def mat(v):
    return np.asarray(v).reshape(3, 3, order="F")


def rotation(rng):
    return Rotation.random(random_state=rng).as_matrix()


def sym(rng):
    a = rng.normal(size=(3, 3))
    return a + a.T


def assert_close(got, want, tol, what=""):
    err = float(np.max(np.abs(np.asarray(got) - np.asarray(want))))
    assert err <= tol, f"{what}: error {err:.3e} > {tol:.3e}\ngot  {got}\nwant {want}"


def assert_orthogonal(q, precision, what):
    assert_close(q.T @ q, np.eye(3), 50 * eps(precision), what + " orthogonality")


# ---- eig3 ---------------------------------------------------------------------------------------------


def check_eig(harness, a, scope, precision):
    a = rounded(a, precision)
    out = harness.run(name("eig3", scope, precision), cm(a), n_out=12)
    w, v = out[:3], mat(out[3:])
    w_ref, v_ref = np.linalg.eigh(a)
    scale = max(1.0, float(np.max(np.abs(a)))) if np.any(a) else 1.0
    tol = 60 * eps(precision) * scale
    assert np.all(np.diff(w) >= 0), f"W not ascending: {w}"
    assert_close(w, w_ref, tol, "eigenvalues")
    assert_orthogonal(v, precision, "V")
    assert_close(v @ np.diag(w) @ v.T, a, tol, "V diag(W) V^T")
    # eigenvectors of well-separated eigenvalues agree with eigh up to sign
    gaps = np.diff(w_ref)
    for k in range(3):
        sep = min([abs(gaps[k - 1]) if k > 0 else np.inf, abs(gaps[k]) if k < 2 else np.inf])
        if sep > 1e-3 * scale:
            assert abs(abs(v[:, k] @ v_ref[:, k]) - 1) <= 1e3 * eps(precision) * scale / sep, f"eigenvector {k}"


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_eig3_random(harness, rng, scope, precision):
    for k in range(CASES):
        a = sym(rng) * 10.0 ** rng.uniform(-3, 3) if k % 2 else sym(rng)
        check_eig(harness, a, scope, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_eig3_edge_cases(harness, rng, scope, precision):
    q = rotation(rng)
    cases = [
        np.zeros((3, 3)),
        np.eye(3),
        -2.5 * np.eye(3),
        np.diag([3.0, -1.0, 2.0]),
        np.diag([0.0, 0.0, 1.0]),
        q @ np.diag([1.0, 1.0, 2.0]) @ q.T,  # repeated
        q @ np.diag([-1.0, 3.0, 3.0]) @ q.T,
        q @ np.diag([0.0, 0.0, 5.0]) @ q.T,  # rank 1 (two zero eigenvalues)
        q @ np.diag([0.0, 2.0, 5.0]) @ q.T,  # one zero eigenvalue
        q @ np.diag([1.0, 1.0 + 1e-9, 1.0 + 2e-9]) @ q.T,  # clustered
        q @ np.diag([-1e8, 1.0, 1e8]) @ q.T,  # wide range
        np.outer([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),
        np.array([[1.0, 1e-300, 0.0], [1e-300, 2.0, 0.0], [0.0, 0.0, 3.0]]),
    ]
    for a in cases:
        check_eig(harness, a, scope, precision)


def test_eig3_scopes_bit_identical(harness, rng):
    """The fixed-sweep core is deterministic: every scope returns the same bits."""
    for _ in range(CASES):
        a = cm(sym(rng))
        outs = [harness.run(name("eig3", s, "double"), a, n_out=12) for s in SCOPES]
        for o in outs[1:]:
            assert np.array_equal(o, outs[0])


# ---- svd3 ---------------------------------------------------------------------------------------------


def check_svd(harness, a, scope, precision, paired=True):
    a = rounded(a, precision)
    out = harness.run(name("svd3", scope, precision), cm(a), n_out=21)
    u, s, v = mat(out[:9]), out[9:12], mat(out[12:])
    u_ref, s_ref, vt_ref = np.linalg.svd(a)
    scale = max(float(s_ref[0]), np.finfo(float).tiny)
    e = eps(precision)
    assert np.all(s >= 0) and np.all(np.diff(s) <= 0), f"S not descending/non-negative: {s}"
    assert_close(s, s_ref, 100 * e * scale, "singular values")
    assert_orthogonal(u, precision, "U")
    assert_orthogonal(v, precision, "V")
    # reconstruction: the AᵀA route keeps this at rounding level relative to σ₁ away from near-ties
    assert_close(u @ np.diag(s) @ v.T, a, (1e3 if precision == "double" else 200) * e * scale, "U S V^T")
    if paired:
        # columns of well-separated σ match NumPy's up to one sign shared by u_k and v_k
        gaps = np.abs(np.diff(s_ref))
        for k in range(3):
            sep = min([gaps[k - 1] if k > 0 else np.inf, gaps[k] if k < 2 else np.inf])
            if sep > 1e-2 * scale and s_ref[k] > 1e-2 * scale:
                su, sv = u[:, k] @ u_ref[:, k], v[:, k] @ vt_ref[k]
                assert abs(abs(su) - 1) < 1e4 * e and abs(su - sv) < 1e4 * e, f"column {k}: {su} {sv}"
    return u, s, v


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_svd3_random(harness, rng, scope, precision):
    for k in range(CASES):
        a = rng.normal(size=(3, 3)) * (10.0 ** rng.uniform(-4, 4) if k % 3 == 0 else 1.0)
        check_svd(harness, a, scope, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_svd3_rank_deficient(harness, rng, scope, precision):
    for _ in range(20):
        x, y = rng.normal(size=(2, 3, 3))
        rank2 = x[:, :2] @ y[:2, :]
        rank1 = np.outer(x[:, 0], y[0])
        for a in (rank2, rank1):
            u, s, v = check_svd(harness, a, scope, precision)
            assert s[-1] <= 100 * eps(precision) * s[0]
    # rank 0, axis-aligned rank 1 (the completion must still give orthogonal U, V), tiny and huge scales
    for a in (np.zeros((3, 3)), np.diag([2.0, 0.0, 0.0]), np.outer([0, 0, 1.0], [1.0, 0, 0]),
              np.outer([1e-30, 0, 0], [0, 1, 0]), 1e30 * rng.normal(size=(3, 3)), 1e-30 * rng.normal(size=(3, 3))):
        if precision == "float" and np.max(np.abs(a)) > 1e30:
            continue
        u, s, v = check_svd(harness, a, scope, precision)
    out = harness.run(name("svd3", scope, precision), np.zeros(9), n_out=21)
    assert np.array_equal(out[9:12], np.zeros(3))
    assert np.array_equal(mat(out[:9]), np.eye(3)) and np.array_equal(mat(out[12:]), np.eye(3))


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_svd3_repeated_and_reflections(harness, rng, scope, precision):
    for _ in range(20):
        q1, q2 = rotation(rng), rotation(rng)
        for d in ([1.0, 1.0, 1.0], [2.0, 2.0, 1.0], [3.0, 1.0, 1.0], [1.0, 1.0, -1.0]):
            check_svd(harness, q1 @ np.diag(d) @ q2.T, scope, precision)
        check_svd(harness, -q1, scope, precision)


# ---- closest_rotation -------------------------------------------------------------------------------


def procrustes(a):
    u, _, vt = np.linalg.svd(a)
    return u @ np.diag([1.0, 1.0, np.sign(np.linalg.det(u @ vt))]) @ vt


def check_rotation(harness, a, scope, precision, want=None, tol=None):
    a = rounded(a, precision)
    r = mat(harness.run(name("closest_rotation", scope, precision), cm(a), n_out=9))
    e = eps(precision)
    assert_orthogonal(r, precision, "R")
    assert abs(np.linalg.det(r) - 1) < 50 * e, f"det {np.linalg.det(r)}"
    want = procrustes(a) if want is None else want
    s = np.linalg.svd(a, compute_uv=False)
    # always a minimiser of ‖R − A‖_F over SO(3)
    best = np.linalg.norm(procrustes(a) - a)
    assert np.linalg.norm(r - a) <= best + 100 * e * max(s[0], 1.0), "not a minimiser"
    # unique only when σ₂ + sign(det A)·σ₃ > 0; its sensitivity is ~ε·σ₁/(σ₂ ± σ₃)
    gap = s[1] + np.sign(np.linalg.det(a)) * s[2]
    if gap > 1e-6 * s[0]:
        tol = tol if tol is not None else 200 * e * s[0] / gap
        assert_close(r, want, tol, "rotation")
    return r


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_closest_rotation_random(harness, rng, scope, precision):
    for _ in range(CASES):
        check_rotation(harness, rng.normal(size=(3, 3)), scope, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_closest_rotation_jobs(harness, rng, scope, precision):
    e = eps(precision)
    for _ in range(CASES):
        r0 = rotation(rng)
        # re-orthonormalisation of a drifted rotation
        check_rotation(harness, r0 + 1e-4 * rng.normal(size=(3, 3)), scope, precision)
        check_rotation(harness, r0, scope, precision, want=r0, tol=50 * e)
        # polar factor: A = R S with S symmetric positive definite
        b = rng.normal(size=(3, 3))
        check_rotation(harness, r0 @ (b @ b.T + 0.5 * np.eye(3)), scope, precision, want=r0,
                       tol=1e4 * e if precision == "float" else 1e-10)
        # Kabsch: cross covariance of centred correspondences vs scipy's align_vectors
        pts = rng.normal(size=(8, 3))
        pts -= pts.mean(axis=0)
        moved = pts @ r0.T + 1e-3 * rng.normal(size=(8, 3))
        moved -= moved.mean(axis=0)
        m = moved.T @ pts  # Σ b_i a_iᵀ
        ref, _ = Rotation.align_vectors(moved, pts)
        check_rotation(harness, m, scope, precision, want=ref.as_matrix(), tol=1e-9 if precision == "double" else 1e-4)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_closest_rotation_reflections(harness, rng, scope, precision):
    for _ in range(20):
        r0 = rotation(rng)
        # det < 0 inputs: the det fix must still return a proper rotation (the Procrustes solution)
        check_rotation(harness, r0 @ np.diag([3.0, 2.0, -1.0]), scope, precision)
        check_rotation(harness, r0 @ np.diag([1.0, 1.0, -1.0]) @ rotation(rng), scope, precision)
        check_rotation(harness, -(r0 @ np.diag([3.0, 2.0, 1.0])), scope, precision)
    # degenerate inputs still give some rotation (deterministic completion)
    for a in (np.zeros((3, 3)), np.outer([1.0, 2.0, 3.0], [0.5, -1.0, 2.0]), -np.eye(3)):
        r = mat(harness.run(name("closest_rotation", scope, precision), cm(a), n_out=9))
        assert_orthogonal(r, precision, "R")
        assert abs(np.linalg.det(r) - 1) < 50 * eps(precision)


# ---- est_detail helpers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
def test_est_detail_helpers(harness, rng, precision):
    e = eps(precision)
    for k in range(CASES):
        a = rounded(rng.normal(size=(3, 3)), precision)
        assert_close(harness.run(f"det3/est_detail/{precision}", cm(a), n_out=1)[0], np.linalg.det(a), 50 * e, "det3")
        x, y = rounded(rng.normal(size=(2, 3)), precision)
        assert_close(harness.run(f"dot3/est_detail/{precision}", x, y, n_out=1)[0], x @ y, 20 * e, "dot3")
        u = x * 10.0 ** rng.uniform(-5, 5) if k else np.array([0.0, 0.0, 1.0])
        p = harness.run(f"perp3/est_detail/{precision}", u, n_out=3)
        assert abs(np.linalg.norm(p) - 1) < 10 * e and abs(p @ u) < 10 * e * np.linalg.norm(u), f"perp3 {u} {p}"
    assert_close(harness.run(f"det3/est_detail/{precision}", cm(np.eye(3)[[1, 0, 2]]), n_out=1), [-1.0], 0, "det3")
    p = harness.run(f"perp3/est_detail/{precision}", np.zeros(3), n_out=3)
    assert abs(np.linalg.norm(p) - 1) < 10 * e
