"""jit, vmap, nested vmap and batch shapes give what unbatched calls give, for every method.

On a fixed-base and a floating-base robot, in float64: every transformed or batched result must equal the
stacked results of unbatched calls (batch shape ()) to 1e-12 relative to the output's max magnitude.
The NumPy RobotHandle is checked against the JAX handle the same way.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import support
from support import DTYPES, METHODS, TRANSFORM_RTOL

ROBOTS = ["iiwa", "go2"]  # fixed base; floating base
BATCHES = {"scalar": (), "vector": (7,), "matrix": (3, 5)}
N_SAMPLES = 15  # 3 x 5


class Case:
    """Inputs of batch shape (15,) and the results of one unbatched call per sample."""

    def __init__(self, handle, method: support.Method, rng):
        self.handle, self.method = handle, method
        self.frame = support.leaf_frame(handle) if method.frame else None
        inputs = support.random_inputs(handle, rng, (N_SAMPLES,))
        self.inputs = [inputs[a] for a in method.args]
        self.per_sample = [self.call(*[x[s] for x in self.inputs]) for s in range(N_SAMPLES)]
        for outs in self.per_sample:
            for o in outs:
                assert o.dtype == np.float64

    def call(self, *args):
        return tuple(np.asarray(o) for o in self.method.call(self.handle, *args, frame=self.frame))

    def fn(self):
        """The method as a function of its arrays only (frame closed over), for jit and vmap."""
        return lambda *args: self.method.call(self.handle, *args, frame=self.frame)

    def batched(self, batch):
        n = math.prod(batch)
        return [jnp.asarray(x[:n].reshape(batch + x.shape[1:])) for x in self.inputs]

    def expected(self, batch):
        n = math.prod(batch)
        outs = []
        for k in range(len(self.per_sample[0])):
            stacked = np.stack([self.per_sample[s][k] for s in range(n)])
            outs.append(stacked.reshape(batch + stacked.shape[1:]))
        return outs


_cases: dict[tuple[str, str], Case] = {}


@pytest.fixture
def case(request, jax_handle):
    robot, method = request.node.callspec.params["robot"], request.node.callspec.params["method"]
    if (robot, method) not in _cases:
        seed = 7 + 31 * ROBOTS.index(robot) + list(METHODS).index(method)
        _cases[(robot, method)] = Case(jax_handle(robot), METHODS[method], np.random.default_rng(seed))
    return _cases[(robot, method)]


def assert_same(what: str, got, want, batch, rtol=TRANSFORM_RTOL):
    got = tuple(got)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what}: output {k} has shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"{what}: output {k} has dtype {g.dtype}, expected {w.dtype}"
        nb = len(batch)
        err, _ = support.sample_errors(g.reshape((-1,) + g.shape[nb:]), w.reshape((-1,) + w.shape[nb:]), 1)
        bad = np.nonzero(~(err <= rtol))[0]
        assert bad.size == 0, (
            f"{what}: output {k} differs from the unbatched calls at flat sample(s) {bad.tolist()}, "
            f"relative error up to {np.max(err):.3e} > {rtol:g}; "
            f"{support.worst_entry(g.reshape((-1,) + g.shape[nb:]), w.reshape((-1,) + w.shape[nb:]), (int(bad[0]),))}")


@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_batch_shape(robot, method, batch, case):
    shape = BATCHES[batch]
    assert_same(f"{robot} {method} batch {shape}", case.call(*case.batched(shape)), case.expected(shape), shape)
    if shape == ():
        # one sample with a batch of one
        got = case.call(*[x[None] for x in case.batched(())])
        assert_same(f"{robot} {method} batch (1,)", got, [w[None] for w in case.expected(())], (1,))


@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_jit(robot, method, batch, case):
    shape = BATCHES[batch]
    got = jax.jit(case.fn())(*case.batched(shape))
    assert_same(f"{robot} {method} jit batch {shape}", got, case.expected(shape), shape)


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_vmap(robot, method, case):
    shape = BATCHES["vector"]
    got = jax.vmap(case.fn())(*case.batched(shape))
    assert_same(f"{robot} {method} vmap {shape}", got, case.expected(shape), shape)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_nested_vmap(robot, method, jit, case):
    shape = BATCHES["matrix"]
    f = jax.vmap(jax.vmap(case.fn()))
    if jit:
        f = jax.jit(f)
    got = f(*case.batched(shape))
    assert_same(f"{robot} {method} vmap(vmap) {shape}", got, case.expected(shape), shape)


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_vmap_batched_inputs_and_axes(robot, method, case):
    """vmap over already batched inputs (a batch inside the mapped function), and over a non-leading axis
    of q with the other arguments broadcast (in_axes None)."""
    # inner batch: vmap over 3 rows of a (3, 5) batch
    shape = BATCHES["matrix"]
    got = jax.vmap(case.fn())(*case.batched(shape))
    assert_same(f"{robot} {method} vmap over (3,) of (3, 5)", got, case.expected(shape), shape)

    # q mapped along axis 1, the other arguments shared by every sample
    n = 7
    q = case.inputs[0][:n]
    rest = [x[0] for x in case.inputs[1:]]
    in_axes = (1,) + (None,) * len(rest)
    got = jax.vmap(case.fn(), in_axes=in_axes)(jnp.asarray(q.T), *[jnp.asarray(x) for x in rest])
    want_rows = [case.call(q[s], *rest) for s in range(n)]
    want = [np.stack([w[k] for w in want_rows]) for k in range(len(want_rows[0]))]
    assert_same(f"{robot} {method} vmap in_axes={in_axes}", got, want, (n,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_numpy_handle_matches_jax(robot, method, dtype, case, numpy_handle):
    """grid_rbd.RobotHandle returns NumPy arrays of the input dtype equal to the JAX handle's."""
    h_np = numpy_handle(robot)
    dtype = np.dtype(dtype)
    shape = BATCHES["matrix"]
    args = [np.asarray(x, dtype=dtype) for x in case.batched(shape)]
    got = case.method.call(h_np, *args, frame=case.frame)
    want = [np.asarray(o) for o in case.method.call(case.handle, *[jnp.asarray(a) for a in args], frame=case.frame)]
    for g in got:
        assert isinstance(g, np.ndarray), f"RobotHandle.{method} returned {type(g).__name__}, not a NumPy array"
    same_device = support.PLATFORM == "cpu"
    rtol = (TRANSFORM_RTOL if dtype == np.float64 else 1e-6) if same_device else support.RTOL[dtype]
    assert_same(f"{robot} {method} RobotHandle vs JaxRobotHandle ({dtype.name})", got, want, shape, rtol=rtol)
