"""Spatial operators (cross products, coordinate transforms, 10-parameter inertia) against NumPy
compositions of their definitions: Featherstone's crm / crf, X = [[E, 0], [-E[r]x, E]], angular first,
column-major storage."""

from __future__ import annotations

import numpy as np
import pytest

SCOPES = ("thread", "warp", "block")
PRECISIONS = ("double", "float")
CASES = 50


def tol(precision: str) -> float:
    return 1e-13 if precision == "double" else 3e-6


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def crm(v):
    m = np.zeros((6, 6))
    m[:3, :3] = m[3:, 3:] = skew(v[:3])
    m[3:, :3] = skew(v[3:])
    return m


def crf(v):
    return -crm(v).T


def motion_x(E, r):
    x = np.zeros((6, 6))
    x[:3, :3] = x[3:, 3:] = E
    x[3:, :3] = -E @ skew(r)
    return x


def force_x(E, r):
    return np.linalg.inv(motion_x(E, r)).T


def inertia(pi):
    m, h = pi[0], pi[1:4]
    ixx, ixy, ixz, iyy, iyz, izz = pi[4:]
    i_o = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    out = np.zeros((6, 6))
    out[:3, :3] = i_o
    out[:3, 3:] = skew(h)
    out[3:, :3] = skew(h).T
    out[3:, 3:] = m * np.eye(3)
    return out


def rotation(rng):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


def random_inertia(rng):
    m = rng.uniform(0.1, 5.0)
    c = rng.normal(size=3)
    a = rng.normal(size=(3, 3))
    ic = a @ a.T + 0.1 * np.eye(3)
    i_o = ic + m * (c @ c * np.eye(3) - np.outer(c, c))
    return np.array([m, *(m * c), i_o[0, 0], i_o[0, 1], i_o[0, 2], i_o[1, 1], i_o[1, 2], i_o[2, 2]])


def check(got, want, precision, scale=None):
    scale = max(1.0, float(np.max(np.abs(want)))) if scale is None else scale
    err = float(np.max(np.abs(np.asarray(got) - np.asarray(want))))
    assert err <= tol(precision) * scale * 10, f"error {err:.3e} (scale {scale:.3g})\ngot  {got}\nwant {want}"


def cm(m):
    """Column-major flattening, the operators' storage."""
    return np.asarray(m).ravel(order="F")


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("op,ref", [("motion_cross", crm), ("force_cross", crf)])
def test_cross_matrices(harness, rng, op, ref, scope, precision):
    for _ in range(CASES):
        v = rng.normal(size=6)
        check(harness.run(f"{op}/{scope}/{precision}", v, n_out=36), cm(ref(v)), precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_force_cross_dual_identity(harness, rng, scope, precision):
    """Defined by force_cross(v) f == force_cross_dual(f) v for all v."""
    for _ in range(CASES):
        f, v = rng.normal(size=(2, 6))
        m = harness.run(f"force_cross_dual/{scope}/{precision}", f, n_out=36).reshape(6, 6, order="F")
        check(m @ v, crf(v) @ f, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("variant", ["", "[beta]", "[axis=0]", "[axis=2,beta]", "[axis=3]", "[axis=5,beta]"])
def test_motion_cross_mul(harness, rng, variant, scope, precision):
    axis = int(variant.split("axis=")[1].split(",")[0].rstrip("]")) if "axis" in variant else -1
    has_beta = "beta" in variant
    for k in range(CASES):
        alpha, beta = rng.normal(size=2)
        if k == 0:
            beta = 0.0
        v, x, y = rng.normal(size=(3, 6))
        if not has_beta:
            y = np.full(6, np.nan)  # beta = 0 semantics: y is never read
        xs = np.eye(6)[axis] if axis >= 0 else x
        want = alpha * crm(v) @ xs + (beta * y if has_beta else 0)
        check(harness.run(f"motion_cross_mul{variant}/{scope}/{precision}", alpha, v, x, beta, y, n_out=6), want,
              precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("variant", ["", "[beta]"])
def test_force_cross_mul(harness, rng, variant, scope, precision):
    for _ in range(CASES):
        alpha, beta = rng.normal(size=2)
        v, f, y = rng.normal(size=(3, 6))
        if variant == "":
            y = np.full(6, np.nan)
        want = alpha * crf(v) @ f + (beta * y if variant else 0)
        check(harness.run(f"force_cross_mul{variant}/{scope}/{precision}", alpha, v, f, beta, y, n_out=6), want,
              precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("op,ref", [("motion_transform", motion_x), ("force_transform", force_x)])
def test_transform_matrices(harness, rng, op, ref, scope, precision):
    for _ in range(CASES):
        E, r = rotation(rng), rng.normal(size=3)
        check(harness.run(f"{op}/{scope}/{precision}", cm(E), r, n_out=36), cm(ref(E, r)), precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("op", ["motion_transform_mul", "force_transform_mul"])
@pytest.mark.parametrize("variant", ["", "[beta]", "[inverse]", "[inverse,beta]"])
def test_transform_mul(harness, rng, op, variant, scope, precision):
    for _ in range(CASES):
        alpha, beta = rng.normal(size=2)
        E, r = rotation(rng), rng.normal(size=3)
        v, y = rng.normal(size=(2, 6))
        x = (motion_x if op.startswith("motion") else force_x)(E, r)
        if "inverse" in variant:
            x = np.linalg.inv(x)
        if "beta" not in variant:
            y = np.full(6, np.nan)
        want = alpha * x @ v + (beta * y if "beta" in variant else 0)
        got = harness.run(f"{op}{variant}/{scope}/{precision}", alpha, cm(E), r, v, beta, y, n_out=6)
        check(got, want, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_spatial_inertia(harness, rng, scope, precision):
    for _ in range(CASES):
        pi = random_inertia(rng)
        check(harness.run(f"spatial_inertia/{scope}/{precision}", pi, n_out=36), cm(inertia(pi)), precision)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("variant", ["", "[beta]"])
def test_spatial_inertia_mul(harness, rng, variant, scope, precision):
    for _ in range(CASES):
        alpha, beta = rng.normal(size=2)
        pi, (v, y) = random_inertia(rng), rng.normal(size=(2, 6))
        if not variant:
            y = np.full(6, np.nan)
        want = alpha * inertia(pi) @ v + (beta * y if variant else 0)
        check(harness.run(f"spatial_inertia_mul{variant}/{scope}/{precision}", alpha, pi, v, beta, y, n_out=6), want,
              precision)


def test_inertia_of_a_rigid_body_is_positive_definite(harness, rng):
    for _ in range(CASES):
        m = harness.run("spatial_inertia/thread/double", random_inertia(rng), n_out=36).reshape(6, 6, order="F")
        assert np.all(np.linalg.eigvalsh(m) > 0)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_serial_building_blocks(harness, rng, precision):
    """The per-entry and per-row cores the scoped operators share."""
    p = precision
    for _ in range(CASES):
        v, x = rng.normal(size=(2, 6))
        E, r, pi = rotation(rng), rng.normal(size=3), random_inertia(rng)
        check(harness.run(f"motion_cross_entry/detail/{p}", v, n_out=36), cm(crm(v)), p)
        check(harness.run(f"force_cross_entry/detail/{p}", v, n_out=36), cm(crf(v)), p)
        dual = harness.run(f"force_cross_dual_entry/detail/{p}", x, n_out=36).reshape(6, 6, order="F")
        check(dual @ v, crf(v) @ x, p)
        check(harness.run(f"inertia_entry/detail/{p}", pi, n_out=36), cm(inertia(pi)), p)
        check(harness.run(f"motion_cross_mul_row/detail/{p}", v, x, n_out=6), crm(v) @ x, p)
        check(harness.run(f"force_cross_mul_row/detail/{p}", v, x, n_out=6), crf(v) @ x, p)
        check(harness.run(f"xform_skew_entry/detail/{p}", cm(E), r, n_out=9), cm(-E @ skew(r)), p)
        check(harness.run(f"xform_entry/detail/{p}", cm(E), r, n_out=36), cm(motion_x(E, r)), p)
        check(harness.run(f"xform_entry[force]/detail/{p}", cm(E), r, n_out=36), cm(force_x(E, r)), p)
        for op, mat in (("motion_transform_mul_core", motion_x), ("force_transform_mul_core", force_x)):
            check(harness.run(f"{op}/detail/{p}", cm(E), r, v, n_out=6), mat(E, r) @ v, p)
            check(harness.run(f"{op}[inverse]/detail/{p}", cm(E), r, v, n_out=6), np.linalg.solve(mat(E, r), v), p)
        check(harness.run(f"spatial_inertia_mul_core/detail/{p}", pi, v, n_out=6), inertia(pi) @ v, p)
        check(harness.run(f"rot_apply/detail/{p}", cm(E), x[:3], n_out=3), E @ x[:3], p)
        check(harness.run(f"rot_apply_t/detail/{p}", cm(E), x[:3], n_out=3), E.T @ x[:3], p)
        check(harness.run(f"cross3/detail/{p}", v[:3], x[:3], n_out=3), np.cross(v[:3], x[:3]), p)
        alpha, beta = rng.normal(size=2)
        check(harness.run(f"blend_out/detail/{p}", alpha, v, beta, np.full(6, np.nan), n_out=6), alpha * v, p)
        check(harness.run(f"blend_out[beta]/detail/{p}", alpha, v, beta, x, n_out=6), alpha * v + beta * x, p)


def test_scopes_agree_exactly(harness, rng):
    """Block and warp scope run the thread scope's serial core: identical results on the host."""
    for _ in range(CASES):
        alpha, beta = rng.normal(size=2)
        E, r = rotation(rng), rng.normal(size=3)
        v, y = rng.normal(size=(2, 6))
        runs = [harness.run(f"motion_transform_mul[inverse,beta]/{s}/double", alpha, cm(E), r, v, beta, y, n_out=6)
                for s in SCOPES]
        assert all(np.array_equal(runs[0], other) for other in runs[1:])


def test_unknown_call_and_bad_sizes_are_reported(harness):
    with pytest.raises(KeyError):
        harness.run("no_such_op/thread/double", np.zeros(6), n_out=36)
    with pytest.raises(ValueError):
        harness.run("motion_cross/thread/double", np.zeros(5), n_out=36)
