"""Geometry distance primitives (sphere-sphere, sphere-box, transform_sphere, frame_from_vector,
segment_segment_closest) against closed forms computed independently in NumPy / SciPy, plus central
differences for the gradients."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

PRECISIONS = ("double", "float")
CASES = 60


def eps(precision):
    return 2.2e-16 if precision == "double" else 1.2e-7


def rounded(a, precision):
    return np.asarray(a, dtype=np.float32).astype(np.float64) if precision == "float" else np.asarray(a, float)


def assert_close(got, want, tol, what=""):
    err = float(np.max(np.abs(np.asarray(got, float) - np.asarray(want, float))))
    assert err <= tol, f"{what}: error {err:.3e} > {tol:.3e}\ngot  {got}\nwant {want}"


# ---- sphere-sphere --------------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
def test_sphere_sphere_dist(harness, rng, precision):
    p, e = precision, eps(precision)
    cases = []
    for _ in range(CASES):
        cases.append((rng.normal(size=3) * 3, rng.uniform(0, 2), rng.normal(size=3) * 3, rng.uniform(0, 2)))
    u = np.array([0.6, 0.0, 0.8])
    cases += [(np.zeros(3), 1.0, 3.0 * u, 2.0),  # touching
              (np.zeros(3), 1.0, 2.0 * u, 2.0),  # overlapping
              (np.zeros(3), 1.0, 10.0 * u, 2.0),  # separated
              (np.ones(3), 1.0, np.ones(3), 0.5)]  # coincident centres
    for c1, r1, c2, r2 in cases:
        c1, c2, (r1, r2) = rounded(c1, p), rounded(c2, p), rounded([r1, r2], p)
        n = np.linalg.norm(c1 - c2)
        want = n - (r1 + r2)
        scale = max(1.0, n)
        d = harness.run(f"sphere_sphere_dist/scalar/{p}", c1, r1, c2, r2, n_out=1)[0]
        assert_close(d, want, 20 * e * scale, "distance")
        out = harness.run(f"sphere_sphere_dist[grad]/scalar/{p}", c1, r1, c2, r2, n_out=4)
        assert_close(out[0], want, 20 * e * scale, "distance (grad overload)")
        g_want = (c1 - c2) / n if n >= 1e-12 else np.zeros(3)
        assert_close(out[1:], g_want, 20 * e, "gradient")
    # the sign convention: touching is 0, overlap negative, separation positive
    sign = [harness.run(f"sphere_sphere_dist/scalar/{p}", np.zeros(3), 1.0, k * u, 2.0, n_out=1)[0]
            for k in (2.0, 3.0, 10.0)]
    assert sign[0] < 0 and abs(sign[1]) < 10 * e and sign[2] > 0


# ---- sphere-box -----------------------------------------------------------------------------------------


def box_ref(c, r, half):
    """Signed distance and gradient via the closest box point (an independent formulation of the box SDF)."""
    inside = np.all(np.abs(c) <= half)
    if not inside:
        p = np.clip(c, -half, half)
        n = np.linalg.norm(c - p)
        return n - r, (c - p) / n
    depth = half - np.abs(c)  # distance to each pair of faces
    k = int(np.argmin(depth))
    g = np.zeros(3)
    g[k] = 1.0 if c[k] >= 0 else -1.0
    return -depth[k] - r, g


@pytest.mark.parametrize("precision", PRECISIONS)
def test_sphere_box_dist(harness, rng, precision):
    p, e = precision, eps(precision)
    cases = []
    for _ in range(CASES):
        half = rng.uniform(0.2, 2.0, size=3)
        cases.append((rng.normal(size=3) * 2.5, rng.uniform(0, 0.5), half))  # mixed outside / inside
        cases.append((rng.uniform(-1, 1, size=3) * half * 0.95, rng.uniform(0, 0.5), half))  # inside
    half = np.array([1.0, 2.0, 3.0])
    cases += [(np.array([1.5, 0.0, 0.0]), 0.5, half),  # touching a face
              (np.array([1.2, 2.5, 3.1]), 0.1, half),  # nearest feature a corner
              (np.array([0.0, -2.5, 0.0]), 0.2, half),
              (np.array([-0.9, 0.1, 0.2]), 0.3, half),  # inside, nearest face -x
              (np.zeros(3), 0.5, half)]  # centre: face x (smallest half extent)
    for c, r, hf in cases:
        c, r, hf = rounded(c, p), rounded(r, p), rounded(hf, p)
        want, g_want = box_ref(c, r, hf)
        tol = 50 * e * max(1.0, np.linalg.norm(c))
        d = harness.run(f"sphere_box_dist/scalar/{p}", c, r, hf, n_out=1)[0]
        assert_close(d, want, tol, "distance")
        out = harness.run(f"sphere_box_dist[grad]/scalar/{p}", c, r, hf, n_out=4)
        assert_close(out[0], want, tol, "distance (grad overload)")
        assert_close(out[1:], g_want, 100 * e if np.linalg.norm(out[1:] - g_want) < 1 else 0, "gradient")
        # central differences away from the SDF's kinks (double only)
        if p == "double":
            margins = np.abs(np.abs(c) - hf)
            if np.min(margins) > 1e-3 and np.min(np.abs(c)) > 1e-3:
                h = 1e-6
                fd = [(harness.run("sphere_box_dist/scalar/double", c + h * ax, r, hf, n_out=1)[0] -
                       harness.run("sphere_box_dist/scalar/double", c - h * ax, r, hf, n_out=1)[0]) / (2 * h)
                      for ax in np.eye(3)]
                inside = np.all(np.abs(c) < hf)
                ties = inside and np.sort(hf - np.abs(c))[1] - np.min(hf - np.abs(c)) < 1e-3
                if not ties:
                    assert_close(out[1:], fd, 1e-6, "gradient vs central differences")
    # inside is negative, touching zero, outside positive
    d_in = harness.run(f"sphere_box_dist/scalar/{p}", np.array([0.5, 0, 0]), 0.0, half, n_out=1)[0]
    d_on = harness.run(f"sphere_box_dist/scalar/{p}", np.array([1.5, 0, 0]), 0.5, half, n_out=1)[0]
    d_out = harness.run(f"sphere_box_dist/scalar/{p}", np.array([2.0, 0, 0]), 0.5, half, n_out=1)[0]
    assert d_in == pytest.approx(-0.5) and abs(d_on) < 10 * e and d_out == pytest.approx(0.5)


# ---- transform_sphere -----------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("variant", ["[xyzw]", "[wxyz]", "[xyzw,alias]"])
def test_transform_sphere(harness, rng, variant, precision):
    p, e = precision, eps(precision)
    rots = [Rotation.random(random_state=rng) for _ in range(CASES)] + [Rotation.identity(),
                                                                        Rotation.from_rotvec([np.pi, 0, 0])]
    for rot in rots:
        q = rot.as_quat(scalar_first=(variant == "[wxyz]"))
        q = rounded(q, p)
        pos, sph = rng.normal(size=3), np.append(rng.normal(size=3) * 2, rng.uniform(0.01, 1))
        pos, sph = rounded(pos, p), rounded(sph, p)
        rq = Rotation.from_quat(q, scalar_first=(variant == "[wxyz]")).as_matrix()
        want = np.append(rq @ sph[:3] + pos, sph[3])
        got = harness.run(f"transform_sphere{variant}/scalar/{p}", q, pos, sph, n_out=4)
        assert_close(got, want, 50 * e * max(1.0, np.max(np.abs(want))), "sphere")
        assert got[3] == sph[3]


# ---- frame_from_vector ----------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", PRECISIONS)
def test_frame_from_vector(harness, rng, precision):
    p, e = precision, eps(precision)
    ns = [v / np.linalg.norm(v) for v in rng.normal(size=(CASES, 3))]
    ns += [np.array(v, float) for v in ([0, 0, 1], [0, 0, -1], [1, 0, 0], [0, -1, 0], [0, 0, -0.0])]
    ns += [np.array([np.sqrt(1 - z * z), 0, z]) for z in (-1 + 1e-7, -1e-12, 1e-12, 1 - 1e-7)]
    for n in ns:
        n = rounded(n, p)
        if not np.any(n):
            continue
        out = harness.run(f"frame_from_vector/scalar/{p}", n, n_out=6)
        t, b = out[:3], out[3:]
        basis = np.column_stack([t, b, n])
        tol = 20 * e + abs(np.linalg.norm(n) - 1) * 4
        assert_close(basis.T @ basis, np.eye(3), tol, f"orthonormality for n={n}")
        assert_close(np.cross(t, b), n, tol, "right-handed: t x b = n")
    # continuity within a hemisphere: nearby normals give nearby frames
    n0 = np.array([0.3, -0.4, np.sqrt(1 - 0.25)])
    n1 = n0 + 1e-6 * np.array([1.0, 1.0, 0.0])
    n1 /= np.linalg.norm(n1)
    f0 = harness.run("frame_from_vector/scalar/double", n0, n_out=6)
    f1 = harness.run("frame_from_vector/scalar/double", n1, n_out=6)
    assert np.max(np.abs(f0 - f1)) < 1e-5


# ---- segment_segment_closest ----------------------------------------------------------------------------


def segment_ref(p1, q1, p2, q2):
    """Minimum of ‖p1 + s·d1 − p2 − t·d2‖² over [0, 1]²: the interior stationary point (when it lies inside)
    and the optimum along each of the four edges of the square — a convex QP, so the least candidate wins."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2

    def f(s, t):
        v = r + s * d1 - t * d2
        return v @ v

    def best_t(s):
        e = d2 @ d2
        return 0.0 if e == 0 else np.clip((r + s * d1) @ d2 / e, 0, 1)

    def best_s(t):
        a = d1 @ d1
        return 0.0 if a == 0 else np.clip(-(r - t * d2) @ d1 / a, 0, 1)

    cands = [(s, best_t(s)) for s in (0.0, 1.0)] + [(best_s(t), t) for t in (0.0, 1.0)]
    m = np.array([[d1 @ d1, -d1 @ d2], [-d1 @ d2, d2 @ d2]])
    if abs(np.linalg.det(m)) > 1e-12 * (d1 @ d1) * (d2 @ d2):
        s, t = np.linalg.solve(m, [-r @ d1, r @ d2])
        if 0 <= s <= 1 and 0 <= t <= 1:
            cands.append((s, t))
    return min(f(s, t) for s, t in cands)


def check_segments(harness, p1, q1, p2, q2, precision):
    p1, q1, p2, q2 = (rounded(x, precision) for x in (p1, q1, p2, q2))
    out = harness.run(f"segment_segment_closest/scalar/{precision}", p1, q1, p2, q2, n_out=9)
    d2, s, t, c1, c2 = out[0], out[1], out[2], out[3:6], out[6:9]
    e = eps(precision)
    scale = max(1.0, np.max(np.abs([p1, q1, p2, q2]))) ** 2
    assert 0 <= s <= 1 and 0 <= t <= 1
    assert_close(c1, p1 + s * (q1 - p1), 20 * e * np.sqrt(scale), "c1")
    assert_close(c2, p2 + t * (q2 - p2), 20 * e * np.sqrt(scale), "c2")
    assert_close(d2, np.sum((c1 - c2) ** 2), 50 * e * scale, "returned |c1 - c2|^2")
    assert_close(d2, segment_ref(p1, q1, p2, q2), (200 if precision == "double" else 2000) * e * scale,
                 "squared distance")
    return d2, s, t


@pytest.mark.parametrize("precision", PRECISIONS)
def test_segment_segment_closest_random(harness, rng, precision):
    for k in range(CASES * 2):
        pts = rng.normal(size=(4, 3)) * (3 if k % 2 else 1)
        check_segments(harness, *pts, precision)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_segment_segment_closest_edge_cases(harness, rng, precision):
    x, y, z = np.eye(3)
    o = np.zeros(3)
    # crossing: distance 0 at the midpoints
    d2, s, t = check_segments(harness, -x, x, -y, y, precision)
    assert d2 < 1e-12 and s == pytest.approx(0.5) and t == pytest.approx(0.5)
    # skew lines, closest points interior
    d2, s, t = check_segments(harness, -x, x, z - y, z + y, precision)
    assert d2 == pytest.approx(1.0)
    # parallel, overlapping: any pair of the overlap is a minimiser (distance 1)
    d2, _, _ = check_segments(harness, o, 2 * x, y + x, y + 3 * x, precision)
    assert d2 == pytest.approx(1.0)
    # parallel, disjoint along the axis
    d2, s, t = check_segments(harness, o, x, 3 * x + y, 4 * x + y, precision)
    assert d2 == pytest.approx(5.0) and s == 1.0 and t == 0.0
    # anti-parallel, collinear and overlapping
    d2, _, _ = check_segments(harness, o, 2 * x, 3 * x, x, precision)
    assert d2 < 1e-12
    # degenerate: point vs segment, segment vs point, point vs point
    d2, s, t = check_segments(harness, y + 0.5 * x, y + 0.5 * x, o, x, precision)
    assert d2 == pytest.approx(1.0) and s == 0.0 and t == pytest.approx(0.5)
    d2, s, t = check_segments(harness, o, x, 2 * x + y, 2 * x + y, precision)
    assert d2 == pytest.approx(2.0) and s == 1.0 and t == 0.0
    d2, s, t = check_segments(harness, z, z, 2 * y, 2 * y, precision)
    assert d2 == pytest.approx(5.0) and s == 0.0 and t == 0.0
    # touching at endpoints
    d2, s, t = check_segments(harness, o, x, x, x + y, precision)
    assert d2 < 1e-12 and s == 1.0 and t == 0.0
    # random near-parallel and exactly parallel pairs
    for _ in range(20):
        d = rng.normal(size=3)
        off = rng.normal(size=3)
        check_segments(harness, o, d, off, off + rng.uniform(-2, 2) * d, precision)
        check_segments(harness, o, d, off, off + d + 1e-9 * rng.normal(size=3), precision)
