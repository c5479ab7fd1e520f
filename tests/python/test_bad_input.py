"""Bad inputs fail early and clearly: ValueError naming the expected shape (eagerly and while tracing
under jit, so before any kernel runs), NaN propagates without crashing or leaking into other samples,
unknown frames and unbuilt robots are reported."""

from __future__ import annotations

import contextlib
import json
import re
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import support
from support import METHODS

ROBOTS = ["iiwa", "go2"]  # go2: nq 19 != nv 18, so a message naming the wrong size is caught
MULTI_ARG = [m for m in METHODS if len(METHODS[m].args) > 1]


def _args(handle, method, rng, batch=(3,)):
    inputs = support.random_inputs(handle, rng, batch)
    return [inputs[a] for a in METHODS[method].args]


def _call(handle, method, args, jit):
    m = METHODS[method]
    frame = support.leaf_frame(handle) if m.frame else None
    f = lambda *a: m.call(handle, *a, frame=frame)  # noqa: E731
    if jit:
        f = jax.jit(f)
    return f(*args)


def names_shape(message: str, trailing: int, batch: tuple[int, ...] | None = None) -> bool:
    """Whether an error message names the expected shape: (..., n) or [..., n] for a trailing size, or
    the full expected shape (b0, ..., n) when the batch is known."""
    pats = [rf"\(\s*\.\.\.\s*,\s*{trailing}\s*\)", rf"\[\s*\.\.\.\s*,\s*{trailing}\s*\]",
            rf"\(\s*\*\w+\s*,\s*{trailing}\s*\)"]
    if batch is not None:
        full = ", ".join(str(d) for d in batch + (trailing,))
        pats += [re.escape(f"({full})"), re.escape(f"[{full}]")]
    return any(re.search(p, message) for p in pats)


def _expect_value_error(h, method, args, jit, trailing, batch, what, arg=None) -> str | None:
    """None when the call raises ValueError naming the expected shape (and the argument, when given);
    otherwise what went wrong."""
    try:
        _call(h, method, [jnp.asarray(a) for a in args], jit)
    except ValueError as e:
        msg = str(e)
        if not names_shape(msg, trailing, batch):
            want = f"({', '.join(map(str, batch + (trailing,)))})" if batch else f"(..., {trailing})"
            return f"{method}: {what}: the message does not name the expected shape {want}: {msg!r}"
        if arg is not None and not re.search(rf"\b{arg}\b", msg):
            return f"{method}: {what}: the message does not name the argument {arg!r}: {msg!r}"
        return None
    except Exception as e:  # noqa: BLE001 - any other error is the finding
        return f"{method}: {what}: raised {type(e).__name__} instead of ValueError: {str(e)[:300]!r}"
    return f"{method}: {what}: no error"


def _report(robot, problems):
    if problems:
        pytest.fail(f"{robot}: {len(problems)} problem(s):\n  " + "\n  ".join(problems), pytrace=False)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_wrong_trailing_shape(robot, mode, jax_handle, rng):
    """Every argument of every method, one element too many or too few: ValueError naming (..., n)."""
    h = jax_handle(robot)
    problems = []
    for method, m in METHODS.items():
        for i, name in enumerate(m.args):
            n = support.arg_size(h, name)
            for bad in (n + 1, n - 1):
                args = _args(h, method, rng)
                args[i] = rng.normal(size=(3, bad))
                p = _expect_value_error(h, method, args, mode == "jit", n, None, f"{name} of shape (3, {bad})",
                                        arg=name)
                if p:
                    problems.append(p)
    _report(robot, problems)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_wrong_dtype(robot, dtype, mode, jax_handle, rng):
    """The first and the last argument of every method in a complex dtype: ValueError naming the shape
    (integer and boolean arrays are promoted: test_conventions.py)."""
    h = jax_handle(robot)
    problems = []
    for method, m in METHODS.items():
        for i in sorted({0, len(m.args) - 1}):
            name = m.args[i]
            args = _args(h, method, rng)
            args[i] = (args[i] * 10).astype(dtype)
            p = _expect_value_error(h, method, args, mode == "jit", support.arg_size(h, name), (3,),
                                    f"{name} of dtype {dtype}")
            if p:
                problems.append(p)
    _report(robot, problems)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_mismatched_batch_shapes(robot, mode, jax_handle, rng):
    """q with batch (3,), the last argument with batch (4,), (2, 3) or (): ValueError naming (3, n)."""
    h = jax_handle(robot)
    problems = []
    for method in MULTI_ARG:
        name = METHODS[method].args[-1]
        n = support.arg_size(h, name)
        for other in [(4,), (2, 3), ()]:
            args = _args(h, method, rng, (3,))
            args[-1] = rng.normal(size=other + (n,))
            p = _expect_value_error(h, method, args, mode == "jit", n, (3,),
                                    f"q batch (3,), {name} batch {other}")
            if p:
                problems.append(p)
    _report(robot, problems)


@pytest.mark.parametrize("dtype", support.DTYPES)
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_nan_inputs_give_nan_outputs(robot, method, dtype, jax_handle, rng):
    """Sample 1 of 3 is NaN in every input: its outputs hold NaN, the other samples are unaffected."""
    h = jax_handle(robot)
    dtype = np.dtype(dtype)
    args = [a.astype(dtype) for a in _args(h, method, rng, (3,))]
    for a in args:
        a[1] = np.nan
    outs = [np.asarray(o) for o in _call(h, method, [jnp.asarray(a) for a in args], jit=False)]
    clean = [np.asarray(o) for o in _call(h, method, [jnp.asarray(a[[0, 2]]) for a in args], jit=False)]
    for k, (o, c) in enumerate(zip(outs, clean)):
        assert np.isnan(o[1]).any(), f"{robot}.{method}: output {k} of the NaN sample holds no NaN: {o[1]}"
        assert np.isfinite(o[[0, 2]]).all(), f"{robot}.{method}: NaN leaked into other samples of output {k}"
        np.testing.assert_array_equal(o[[0, 2]], c, err_msg=f"{robot}.{method}: output {k} of the other "
                                      "samples changed when a batch neighbour is NaN")


@pytest.mark.parametrize("method", ["end_effector_pose", "frame_jacobian"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_unknown_frame(robot, method, jax_handle, rng):
    h = jax_handle(robot)
    (q,) = _args(h, method, rng)
    m = METHODS[method]
    with pytest.raises((ValueError, KeyError)) as info:
        m.call(h, jnp.asarray(q), frame="no_such_frame")
    assert "no_such_frame" in str(info.value)
    with pytest.raises((ValueError, IndexError)):
        m.call(h, jnp.asarray(q), frame=len(h.frame_names))
    with pytest.raises((ValueError, KeyError)):
        jax.jit(lambda x: m.call(h, x, frame="no_such_frame"))(jnp.asarray(q))


def test_unknown_forward_dynamics_method(jax_handle, rng):
    h = jax_handle("iiwa")
    q, qd, tau = _args(h, "forward_dynamics_aba", rng)
    with pytest.raises(ValueError, match="aba"):
        h.forward_dynamics(q, qd, tau, method="lu")


def _assert_not_built(exc_info, what: str):
    import grid_rbd

    assert isinstance(exc_info.value, grid_rbd.RobotNotBuiltError)
    msg = str(exc_info.value)
    assert "go tool mage build" in msg, f"{what}: the message does not say how to build: {msg!r}"


@pytest.mark.parametrize("kind", ["jax", "numpy"])
def test_unbuilt_robot_by_name(kind, tmp_path, monkeypatch):
    import grid_rbd
    from grid_rbd.jax import JaxRobotHandle

    cls = JaxRobotHandle if kind == "jax" else grid_rbd.RobotHandle
    monkeypatch.setenv("GRID_RBD_PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # ./build is searched too
    with pytest.raises(grid_rbd.RobotNotBuiltError) as info:
        cls("robot_that_is_not_built")
    _assert_not_built(info, "unknown name")
    assert "robot_that_is_not_built" in str(info.value)


def test_unbuilt_robot_folder(tmp_path, jax_handle):
    """A folder with the generated header and metadata but no compiled library (what `mage gen` writes)."""
    import grid_rbd
    from grid_rbd.jax import JaxRobotHandle

    built = jax_handle("iiwa").build_dir
    half = tmp_path / "iiwa_gen_only"
    half.mkdir()
    shutil.copy(built / "metadata.json", half / "metadata.json")
    json.loads((half / "metadata.json").read_text())
    with pytest.raises(grid_rbd.RobotNotBuiltError) as info:
        JaxRobotHandle(half)
    _assert_not_built(info, "folder without library")
    with pytest.raises(grid_rbd.RobotNotBuiltError) as info:
        JaxRobotHandle(tmp_path / "missing")
    _assert_not_built(info, "missing folder")


def test_unregistered_cuda_library_is_named_on_the_gpu(tmp_path, jax_handle, monkeypatch):
    """A build whose CUDA library cannot be registered keeps its CPU kernels; a call meant for the GPU says why
    there are no GPU kernels instead of XLA's 'No FFI handler registered'."""
    from grid_rbd._artifacts import CPU_LIBRARY, CUDA_LIBRARY
    from grid_rbd.jax import JaxRobotHandle

    built = jax_handle("iiwa").build_dir
    broken = tmp_path / "iiwa_broken_cuda"
    broken.mkdir()
    for name in ("metadata.json", CPU_LIBRARY):
        shutil.copy(built / name, broken / name)
    (broken / CUDA_LIBRARY).write_bytes(b"not a shared library")
    gpu = jax.default_backend() == "gpu"
    with pytest.warns(RuntimeWarning, match="could not be registered") if gpu else contextlib.nullcontext():
        robot = JaxRobotHandle(broken)
    assert not robot.has_cuda
    q = jnp.zeros((2, robot.nq))
    v = jnp.zeros((2, robot.nv))
    if not gpu:
        assert robot.forward_dynamics(q, v, v).shape == (2, robot.nv)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    q, v = q[:1], v[:1]  # a new shape, traced afresh
    with pytest.raises(RuntimeError, match=rf"{CUDA_LIBRARY} could not be registered \(.+\), so it has no GPU kernels"):
        robot.forward_dynamics(q, v, v)

