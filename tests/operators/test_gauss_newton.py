"""The fused Gauss-Newton / LM step (warp::gn_step) against np.linalg.solve / lstsq on the damped normal
equations (JᵀJ + lambda·D) dq = Jᵀr, D = diag(JᵀJ) (Marquardt) or 1 (Levenberg), plus its failure flag."""

from __future__ import annotations

import numpy as np
import pytest

PRECISIONS = ("double", "float")
CASES = 60

# (M, N, flags) of the registered instantiations
VARIANTS = [(6, 3, "reg,check,diag"), (6, 3, "reg,check,eye"), (6, 3, "noreg,check,diag"),
            (6, 3, "reg,nocheck,diag"), (12, 7, "reg,check,diag"), (12, 7, "reg,check,eye"),
            (1, 1, "reg,check,diag"), (3, 4, "reg,check,eye")]


def eps(precision):
    return 2.2e-16 if precision == "double" else 1.2e-7


def rounded(a, precision):
    return np.asarray(a, dtype=np.float32).astype(np.float64) if precision == "float" else np.asarray(a, float)


def run(harness, m, n, flags, precision, j, r, lam):
    out = harness.run(f"gn_step[{m},{n},{flags}]/warp/{precision}", j.ravel(order="F"), r, lam, n_out=n + n * n + 1)
    return out[:n], out[n:n + n * n].reshape(n, n, order="F"), out[-1]


def shifted(j, lam, flags):
    a = j.T @ j
    if "noreg" in flags:
        return a
    return a + lam * (np.diag(np.diag(a)) if "diag" in flags else np.eye(a.shape[0]))


def check_step(harness, m, n, flags, precision, j, r, lam):
    j, r, lam = rounded(j, precision), rounded(r, precision), float(rounded(lam, precision))
    dq, s_a, fail = run(harness, m, n, flags, precision, j, r, lam)
    a = shifted(j, lam, flags)
    want = np.linalg.solve(a, j.T @ r)
    cond = np.linalg.cond(a)
    tol = 100 * eps(precision) * cond * max(1.0, np.max(np.abs(want)))
    err = np.max(np.abs(dq - want))
    assert err <= tol, f"{flags} {m}x{n}: step error {err:.3e} > {tol:.3e} (cond {cond:.2e})"
    # s_A: the Cholesky factor of the shifted matrix in its lower triangle
    low = np.tril(s_a)
    assert np.all(np.diag(low) > 0)
    assert np.max(np.abs(low @ low.T - a)) <= 100 * eps(precision) * np.max(np.abs(a))
    if "nocheck" in flags:
        assert np.isnan(fail), "s_fail must not be written without CHECK"
    else:
        assert fail == 0.0
    return dq


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("m,n,flags", VARIANTS)
def test_gn_step_random(harness, rng, m, n, flags, precision):
    for _ in range(CASES):
        j = rng.normal(size=(m, n))
        r = rng.normal(size=m)
        if m < n and "eye" in flags:
            lam = rng.uniform(0.1, 2.0)  # JᵀJ is singular: Levenberg damping makes it PD
        else:
            lam = rng.uniform(0.0, 2.0)
        check_step(harness, m, n, flags, precision, j, r, lam)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_gn_step_plain_gauss_newton_is_least_squares(harness, rng, precision):
    """lambda = 0 (or REGULARIZE off) is the Gauss-Newton step: the least-squares solution of J dq = r."""
    for _ in range(CASES):
        j, r = rounded(rng.normal(size=(6, 3)), precision), rounded(rng.normal(size=6), precision)
        want = np.linalg.lstsq(j, r, rcond=None)[0]
        tol = 1e3 * eps(precision) * np.linalg.cond(j) ** 2
        for flags, lam in (("noreg,check,diag", 123.0), ("reg,check,diag", 0.0), ("reg,check,eye", 0.0)):
            dq, _, fail = run(harness, 6, 3, flags, precision, j, r, lam)
            assert fail == 0.0
            assert np.max(np.abs(dq - want)) <= tol * max(1.0, np.max(np.abs(want)))


@pytest.mark.parametrize("precision", PRECISIONS)
def test_gn_step_damping_shrinks_the_step(harness, rng, precision):
    j, r = rng.normal(size=(12, 7)), rng.normal(size=12)
    norms = [np.linalg.norm(run(harness, 12, 7, "reg,check,diag", precision, j, r, lam)[0])
             for lam in (0.0, 0.1, 1.0, 10.0, 1e3)]
    assert all(a > b for a, b in zip(norms, norms[1:]))


@pytest.mark.parametrize("precision", PRECISIONS)
def test_gn_step_singular_systems(harness, rng, precision):
    for _ in range(20):
        j = rng.normal(size=(6, 3))
        r = rng.normal(size=6)
        dup = j.copy()
        dup[:, 2] = dup[:, 0]  # rank 2
        zero_col = j.copy()
        zero_col[:, 1] = 0.0  # a parameter the residual does not see
        # plain GN (and Marquardt, whose diag(JᵀJ) shift cannot lift a zero column) reports the failure
        for jj, flags, lam in ((dup, "noreg,check,diag", 0.0), (dup, "reg,check,diag", 0.0),
                               (dup, "reg,check,eye", 0.0), (zero_col, "reg,check,diag", 1.0),
                               (np.zeros((6, 3)), "reg,check,diag", 1.0)):
            dq, _, fail = run(harness, 6, 3, flags, precision, jj, r, lam)
            assert fail == 1.0, f"{flags}: singular system not reported"
            assert np.array_equal(dq, np.zeros(3)), "a failed step must be zero"
        # Levenberg damping makes both solvable
        check_step(harness, 6, 3, "reg,check,eye", precision, dup, r, 0.5)
        check_step(harness, 6, 3, "reg,check,eye", precision, zero_col, r, 0.5)
        # Marquardt lifts the rank-deficient (but no zero column) case
        check_step(harness, 6, 3, "reg,check,diag", precision, dup, r, 0.5)
    # underdetermined (M < N) without damping
    dq, _, fail = run(harness, 3, 4, "reg,check,eye", precision, rng.normal(size=(3, 4)), rng.normal(size=3), 0.0)
    assert fail == 1.0 and np.array_equal(dq, np.zeros(4))
    # the 1x1 case: J = 0 fails, J != 0 is r/J
    dq, _, fail = run(harness, 1, 1, "reg,check,diag", precision, np.zeros((1, 1)), np.ones(1), 0.0)
    assert fail == 1.0 and dq[0] == 0.0
    dq, _, fail = run(harness, 1, 1, "reg,check,diag", precision, np.full((1, 1), 2.0), np.ones(1), 0.0)
    assert fail == 0.0 and dq[0] == pytest.approx(0.5)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_gn_step_scratch_bytes(harness, precision):
    size = 8 if precision == "double" else 4
    for n in (3, 7):
        got = harness.run(f"gn_step_scratch_bytes[{n}]/warp/{precision}", n_out=1)[0]
        assert got == n * n * size
