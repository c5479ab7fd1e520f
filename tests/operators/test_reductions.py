"""Sampling reductions against SciPy / NumPy: softmax, logsumexp, argmax/argmin (first-index ties, NaN
skipped), the register-pair argreductions, the combine rule and the scratch-size helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp as sp_logsumexp
from scipy.special import softmax as sp_softmax

PRECISIONS = ("double", "float")
SCOPES = ("thread", "warp", "block")
TOL = {"double": 1e-12, "float": 1e-5}
SIZEOF = {"double": 8, "float": 4}
EPS = {"double": 2.0**-52, "float": 2.0**-23}
TINY = {"double": 1e-300, "float": 1e-35}  # below this, subnormal weights are compared absolutely
EMPTY = 4294967295  # UINT32_MAX: the empty-slot index
INF = math.inf


def rounded(x, precision):
    x = np.asarray(x, dtype=np.float64)
    return x.astype(np.float32).astype(np.float64) if precision == "float" else x


def random_vector(rng, precision):
    """A random length-n vector: Gaussian, integer-valued (ties), or wide-range."""
    n = int(rng.integers(1, 200))
    kind = rng.integers(3)
    if kind == 0:
        x = rng.normal(size=n) * 3
    elif kind == 1:
        x = rng.integers(-3, 4, size=n).astype(np.float64)
    else:
        x = rng.normal(size=n) * 10.0 ** rng.uniform(-3, 2)
    return rounded(x, precision)


def edge_vectors(precision):
    big = 1e300 if precision == "double" else 1e30
    return [rounded(x, precision) for x in [
        np.array([2.0]),
        np.full(7, 1.25),  # all equal
        np.array([3.0, -INF, 1.0, -INF]),  # -inf entries
        np.array([-INF, 0.5]),
        np.array([big, big * 0.999, -big, 0.0]),  # huge magnitudes
        np.array([big, big]),
        np.array([-big, -big * 0.5]),
        np.linspace(-1, 1, 33),  # one more than a warp
        np.zeros(64),
    ]]


# ---- softmax / logsumexp -------------------------------------------------------------------------------

@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_softmax(harness, rng, scope, precision):
    cases = [(random_vector(rng, precision), rng.choice([1.0, -1.0, 0.5, -7.0, 0.0])) for _ in range(60)]
    cases += [(x, 1.0) for x in edge_vectors(precision)] + [(np.array([1.0, 2.0, 3.0]), -1.0)]
    for x, alpha in cases:
        alpha = float(rounded(alpha, precision))
        if not np.all(np.isfinite(alpha * x[np.isfinite(x)])):
            continue
        ax = (alpha * x).astype(np.float32).astype(np.float64) if precision == "float" else alpha * x
        want = sp_softmax(ax)
        got = harness.run(f"softmax/{scope}/{precision}", alpha, x, n_out=x.size)
        # exp(αx − M) carries the rounding of αx − M: a relative error of ~eps·|αx − M|
        spread = np.abs(ax[np.isfinite(ax)] - ax[np.isfinite(ax)].max()).max() if np.isfinite(ax).any() else 0
        tol = 4 * TOL[precision] + 2 * EPS[precision] * spread
        np.testing.assert_allclose(got, want, rtol=tol, atol=TINY[precision])
        assert abs(got.sum() - 1.0) <= 4 * TOL[precision] * math.sqrt(x.size) + x.size * 1e-16
        assert np.all(got >= 0)
        # y may alias x: the in-place call is bit-identical.
        alias = harness.run(f"softmax[alias]/{scope}/{precision}", alpha, x, n_out=x.size)
        np.testing.assert_array_equal(alias, got)
        if scope == "block":
            np.testing.assert_array_equal(harness.run(f"softmax[false]/block/{precision}", alpha, x, n_out=x.size), got)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_softmax_exact_cases(harness, scope, precision):
    name = f"softmax/{scope}/{precision}"
    np.testing.assert_array_equal(harness.run(name, 1.0, np.full(8, -3.5), n_out=8), np.full(8, 0.125))
    np.testing.assert_array_equal(harness.run(name, 1.0, [4.0], n_out=1), [1.0])
    got = harness.run(name, 1.0, [0.0, -INF, 0.0], n_out=3)
    np.testing.assert_array_equal(got, [0.5, 0.0, 0.5])
    # shift invariance: the max subtraction makes softmax(x + c) == softmax(x) exactly for exact shifts
    x = np.array([1.0, 2.0, 3.0, 2.0])
    np.testing.assert_array_equal(harness.run(name, 1.0, x + 1024.0, n_out=4), harness.run(name, 1.0, x, n_out=4))
    # MPPI weights: α = −λ on a cost vector puts the largest weight on the cheapest rollout.
    w = harness.run(name, -2.0, [3.0, 1.0, 2.0], n_out=3)
    assert np.argmax(w) == 1
    assert harness.run(name, 1.0, np.zeros(0), n_out=0).size == 0


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_logsumexp(harness, rng, scope, precision):
    cases = [(random_vector(rng, precision), rng.choice([1.0, -1.0, 0.5, -7.0, 0.0])) for _ in range(60)]
    cases += [(x, a) for x in edge_vectors(precision) for a in (1.0, -1.0)]
    for x, alpha in cases:
        alpha = float(rounded(alpha, precision))
        with np.errstate(over="ignore", invalid="ignore"):
            ax = alpha * x
        if precision == "float":
            ax = ax.astype(np.float32).astype(np.float64)
        if np.isnan(ax).any() or np.isposinf(ax).any():
            continue
        want = sp_logsumexp(ax)
        got = harness.run(f"logsumexp/{scope}/{precision}", alpha, x, n_out=1)[0]
        finite = ax[np.isfinite(ax)]
        scale = np.abs(finite).max() + math.log(x.size) + 1 if finite.size else 1.0
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * TOL[precision] * scale)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("scope", SCOPES)
def test_logsumexp_edges(harness, scope, precision):
    name = f"logsumexp/{scope}/{precision}"
    assert harness.run(name, 1.0, [-INF, -INF], n_out=1)[0] == -INF  # as scipy: −inf, not NaN
    assert harness.run(name, 1.0, [INF, 0.0], n_out=1)[0] == INF
    assert harness.run(name, 1.0, np.zeros(0), n_out=1)[0] == -INF  # log of an empty sum
    assert harness.run(name, 1.0, [5.0], n_out=1)[0] == 5.0
    assert math.isnan(harness.run(name, 1.0, [1.0, math.nan, 2.0], n_out=1)[0])
    # all equal: c + log n; huge magnitudes do not overflow
    got = harness.run(name, 1.0, np.full(10, 3.0), n_out=1)[0]
    assert got == pytest.approx(3.0 + math.log(10.0), rel=TOL[precision])
    big = 1e300 if precision == "double" else 1e38
    assert harness.run(name, 1.0, [big, big], n_out=1)[0] == pytest.approx(big, rel=TOL[precision])
    assert harness.run(name, -1.0, [big, 0.0], n_out=1)[0] == 0.0


def test_softmax_scratch_bytes(harness):
    for precision in PRECISIONS:
        for n in (0, 1, 7, 32, 1000, 65536):
            assert harness.run(f"softmax_scratch_bytes/scalar/{precision}", n, n_out=1)[0] == n * SIZEOF[precision]


# ---- argmax / argmin -----------------------------------------------------------------------------------

def arg_ref(x, minimum, key=lambda v: v):
    """(index, value) with np.argmax/argmin's first-index rule, NaN skipped; all-NaN → (0, None)."""
    k = key(np.asarray(x, dtype=np.float64))
    if k.size == 0 or np.isnan(k).all():
        return 0, None
    i = int(np.nanargmin(k) if minimum else np.nanargmax(k))
    return i, k[i]


def arg_cases(rng, precision):
    cases = [random_vector(rng, precision) for _ in range(60)]
    cases += edge_vectors(precision)
    cases += [
        np.array([1.0, 3.0, 3.0, -3.0, -3.0]),  # ties at both extremes
        np.array([0.0, -0.0]),
        np.array([-0.0, 0.0]),
        np.array([-INF, -INF, -INF]),
        np.array([INF, 1.0, INF]),
        np.array([math.nan, 2.0, math.nan, -1.0, 2.0, -1.0]),  # NaN skipped
        np.array([math.nan, math.nan]),  # all NaN
        np.array([math.nan]),
    ]
    for _ in range(10):
        x = random_vector(rng, precision)
        x[rng.random(x.size) < 0.3] = math.nan
        cases.append(x)
    return cases


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("minimum", [False, True], ids=["argmax", "argmin"])
def test_argreductions(harness, rng, minimum, precision):
    fn = "argmin" if minimum else "argmax"
    for x in arg_cases(rng, precision):
        want_i, want_v = arg_ref(x, minimum)
        for name in (f"{fn}/thread", f"{fn}/warp", f"{fn}/block", f"{fn}_fast/block"):
            assert harness.run(f"{name}/{precision}", x, n_out=1)[0] == want_i, (name, x)
        for name in (f"{fn}/block", f"{fn}_fast/block"):
            i, v = harness.run(f"{name}/{precision}", x, n_out=2)
            assert i == want_i
            if want_v is None:
                assert math.isnan(v)  # all-NaN: the value is x[0]
            else:
                assert v == want_v and math.copysign(1, v) == math.copysign(1, x[want_i])
        if not np.isnan(x).any():
            assert want_i == (int(np.argmin(x)) if minimum else int(np.argmax(x)))


@pytest.mark.parametrize("precision", PRECISIONS)
def test_argreduction_empty_input(harness, precision):
    for fn in ("argmax", "argmin"):
        for name in (f"{fn}/thread", f"{fn}/warp", f"{fn}/block", f"{fn}_fast/block"):
            assert harness.run(f"{name}/{precision}", np.zeros(0), n_out=1)[0] == 0
        i, v = harness.run(f"{fn}/block/{precision}", np.zeros(0), n_out=2)
        assert i == 0 and math.isnan(v)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_argreduce_scratch_bytes(harness, precision):
    for bt in (1, 31, 32, 33, 64, 96, 256, 1024):
        s = SIZEOF[precision] + 4
        assert harness.run(f"argreduce_scratch_bytes/scalar/{precision}", bt, n_out=1)[0] == bt * s
        assert harness.run(f"argreduce_fast_scratch_bytes/scalar/{precision}", bt, n_out=1)[0] == -(-bt // 32) * s


# ---- register pairs, the combine rule, the detail cores ------------------------------------------------

@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("fn", ["argmax_pair", "argmin_pair", "argreduce_pair[max]", "argreduce_pair[min]"])
def test_pair(harness, rng, fn, precision):
    # On the host the warp is one lane: the lane's own candidate wins unless it is empty or NaN.
    cases = [(float(rounded(rng.normal(), precision)), int(rng.integers(0, 1 << 31))) for _ in range(50)]
    cases += [(-INF, 3), (INF, 0), (0.0, EMPTY - 1)]
    for key, idx in cases:
        name = f"{fn}/warp/{precision}"
        i, k = harness.run(name, key, idx, n_out=2)
        assert (i, k) == (idx, key)
        if not fn.startswith("argreduce"):
            assert harness.run(name, key, idx, n_out=1)[0] == idx
    for key, idx in ((math.nan, 5), (1.0, EMPTY), (math.nan, EMPTY)):
        assert harness.run(f"{fn}/warp/{precision}", key, idx, n_out=2)[0] == EMPTY


def combine_ref(cur, cand, minimum):
    """The reference total order: valid (non-NaN, non-empty) entries by key, then the lower index."""
    def valid(e):
        return e[1] != EMPTY and not math.isnan(e[0])

    if not valid(cand):
        return cur if valid(cur) else (cur[0], EMPTY)
    if not valid(cur):
        return cand
    better = cand[0] < cur[0] if minimum else cand[0] > cur[0]
    return cand if better or (cand[0] == cur[0] and cand[1] < cur[1]) else cur


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
def test_combine(harness, rng, minimum, precision):
    name = f"combine[{'min' if minimum else 'max'}]/thread/{precision}"

    def run(cur, cand):
        k, i = harness.run(name, cur[0], cur[1], cand[0], cand[1], n_out=2)
        return k, int(i)

    worse, better = (2.0, 1.0) if minimum else (1.0, 2.0)
    assert run((worse, 4), (better, 9)) == (better, 9)  # the better key wins whatever the indices
    assert run((better, 9), (worse, 4)) == (better, 9)
    assert run((1.5, 4), (1.5, 2)) == (1.5, 2)  # ties go to the lower index
    assert run((1.5, 2), (1.5, 4)) == (1.5, 2)
    assert run((1.5, 2), (math.nan, 0)) == (1.5, 2)  # NaN never wins
    assert run((math.nan, 0), (1.5, 2)) == (1.5, 2)  # a NaN incumbent is replaced
    assert run((1.5, EMPTY), (-INF, 7)) == (-INF, 7)  # empty incumbent
    assert run((1.5, 3), (9.0, EMPTY))[1] == 3  # empty candidate
    assert run((math.nan, 3), (math.nan, 1))[1] == EMPTY  # nothing valid: normalized to empty
    # Folding random candidate lists in random orders always selects the reference winner.
    for _ in range(50):
        n = int(rng.integers(1, 12))
        keys = rounded(rng.integers(-2, 3, size=n).astype(np.float64), precision)
        keys[rng.random(n) < 0.2] = math.nan
        idxs = rng.permutation(1000)[:n]
        entries = list(zip(keys.tolist(), idxs.tolist()))
        want = (0.0, EMPTY)
        for e in entries:
            want = combine_ref(want, e, minimum)
        for order in (entries, entries[::-1], [entries[j] for j in rng.permutation(n)]):
            acc = (0.0, EMPTY)
            for e in order:
                acc = run(acc, e)
            assert acc[1] == want[1]
            if want[1] != EMPTY:
                assert acc[0] == want[0]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
@pytest.mark.parametrize("key", ["", ",abs"], ids=["id", "abs"])
def test_argreduce_cores(harness, rng, minimum, key, precision):
    tag = f"[{'min' if minimum else 'max'}{key}]"
    keyfn = np.abs if key else (lambda v: v)
    for x in arg_cases(rng, precision):
        want_i, want_v = arg_ref(x, minimum, keyfn)
        for core in ("argreduce", "argreduce_fast"):
            i, v = harness.run(f"{core}{tag}/block/{precision}", x, n_out=2)
            assert i == want_i
            if want_v is None:
                # no candidate: IdKey reports x[0] (NaN here, 0-length: NaN), AbsKey a zero magnitude
                assert (v == 0.0) if (key and x.size) else math.isnan(v)
            else:
                assert v == want_v
        assert harness.run(f"argreduce_warp{tag}/warp/{precision}", x, n_out=1)[0] == want_i
        assert harness.run(f"argreduce_serial{tag}/thread/{precision}", x, n_out=1)[0] == want_i


@pytest.mark.parametrize("precision", PRECISIONS)
def test_butterflies(harness, rng, precision):
    # A one-lane warp on the host: the butterfly is the identity.
    for v in list(rounded(rng.normal(size=50) * 100, precision)) + [-INF, INF, 0.0]:
        assert harness.run(f"butterfly_max/warp/{precision}", v, n_out=1)[0] == v
        assert harness.run(f"butterfly_sum/warp/{precision}", v, n_out=1)[0] == v
