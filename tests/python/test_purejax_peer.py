"""The pure-JAX benchmark peer (bench/peers/purejax.py) against Pinocchio, on every robot of the roster's pytest suite (testdata/robots/roster.json).

The peer reads the model.json that ``go tool mage build`` writes beside metadata.json, so it shares nothing
with the generated kernels but the URDF parser and tree builder: agreement here makes it a second oracle and
a fair performance peer. Tolerances are the suite's: relative error max|got - want| / max|want| per sample,
1e-9 in float64 for values and 1e-8 for the derivative peers (Pinocchio's computeRNEADerivatives and
computeABADerivatives).

The peer's methods run under ``vmap`` without an outer ``jit``: its per-joint steps are jitted, so each
compiles once per shape instead of once per whole robot (compiling a humanoid's unrolled recursions takes
minutes on CPU). ``test_jit_matches_op_by_op`` checks that the jitted peer computes the same. The derivative
peers' steps compile again for every velocity dimension (jacfwd batches over it), so they are checked on
DERIVATIVE_ROBOTS only: fixed and floating bases, revolute, prismatic and continuous joints, the smallest
and the largest robot.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import conventions
import refdata
import support

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.peers.purejax import PureJaxRobot  # noqa: E402

ROBOTS = refdata.robot_names()
DERIVATIVE_ROBOTS = [r for r in ("iiwa", "panda", "go2", "h1_2", "erd_tiago") if r in ROBOTS]
DERIVATIVE_METHODS = ("inverse_dynamics_derivatives", "forward_dynamics_derivatives")
VALUE_RTOL = 1e-9
DERIVATIVE_RTOL = 1e-8
FLOAT32_RTOL = 1e-4  # times cond(M) for forward dynamics, as the suite's float32 checks

# method -> (inputs, reference outputs, tolerance); outputs in the order the method returns them
METHODS = {
    "frame_poses": (("q",), ("pos", "rot", "quat"), VALUE_RTOL),
    "inverse_dynamics": (("q", "qd", "qdd"), ("inverse_dynamics",), VALUE_RTOL),
    "bias_forces": (("q", "qd"), ("bias_forces",), VALUE_RTOL),
    "gravity_forces": (("q",), ("gravity_forces",), VALUE_RTOL),
    "mass_matrix": (("q",), ("mass_matrix",), VALUE_RTOL),
    "minv": (("q",), ("minv",), VALUE_RTOL),
    "forward_dynamics": (("q", "qd", "tau"), ("forward_dynamics",), VALUE_RTOL),
    "aba": (("q", "qd", "tau"), ("forward_dynamics",), VALUE_RTOL),
    "inverse_dynamics_derivatives": (("q", "qd", "qdd"), ("rnea_dq", "rnea_dqd"), DERIVATIVE_RTOL),
    "forward_dynamics_derivatives": (("q", "qd", "tau"), ("aba_dq", "aba_dqd", "minv"), DERIVATIVE_RTOL),
}

_peers: dict[str, PureJaxRobot] = {}


def model_path(robot: str) -> Path:
    """<root>/<robot>/model.json from the first GRID_RBD_PATH root that has one."""
    roots = [Path(p) for p in os.environ.get("GRID_RBD_PATH", "").split(os.pathsep) if p.strip()]
    for root in roots:
        path = root / robot / "model.json"
        if path.is_file():
            return path
    pytest.fail(f"{robot}: no model.json under GRID_RBD_PATH ({', '.join(map(str, roots))}); rebuild the robot "
                f"with `go tool mage build` (tests/suite_test.go does), which writes it beside metadata.json")


def peer(robot: str) -> PureJaxRobot:
    if robot not in _peers:
        _peers[robot] = PureJaxRobot.from_json(model_path(robot))
    return _peers[robot]


def _check(robot, dtype, method, label, got, want, tol) -> str | None:
    """Logs the error of one output and returns a failure line, or None."""
    got = np.asarray(got)
    if got.dtype != dtype:
        return f"{label}: dtype {got.dtype}, expected {dtype}"
    if got.shape != want.shape:
        return f"{label}: shape {got.shape}, expected {want.shape}"
    err, scale = support.sample_errors(got, want, 1)
    tol = np.broadcast_to(tol, err.shape)
    support.log_error(robot, dtype, f"purejax:{method}", float(np.max(err)), float(np.max(err / tol)))
    bad = np.nonzero(~(err <= tol))[0]
    if bad.size == 0:
        return None
    s = int(bad[0])
    return (f"{label}: relative error {err[s]:.3e} > {tol[s]:.1e} at sample {s} (max|want| {scale[s]:.3e}); "
            f"{support.worst_entry(got, want, (s,))}")


def _outputs(robot, method, dtype, ref, fn):
    """The method's outputs at the reference inputs (one vmap over the samples) and the references."""
    args, keys, _ = METHODS[method]
    h = peer(robot)
    outs = fn(*(jnp.asarray(ref.inputs[a].astype(dtype)) for a in args))
    outs = outs if isinstance(outs, tuple) else (outs,)
    assert len(outs) == len(keys)
    fmap = np.array([ref.frame_names.index(n) for n in h.frame_names], dtype=int)
    pairs = []
    for key, got in zip(keys, outs):
        want = ref.outputs[key]
        if key in ("pos", "rot", "quat"):
            want = want[:, fmap]
        if key == "quat":
            got = np.asarray(got)
            assert np.all(got[..., 3] >= 0), f"{robot}: quaternion with qw < 0"
            want = conventions.align_quaternion_sign(want, got)
        pairs.append((key, got, want))
    return pairs


def test_model_json_matches_reference(reference):
    """Every robot's model.json has the reference's sizes, joint order and frames."""
    problems = []
    for robot in ROBOTS:
        h, ref = peer(robot), reference(robot)
        if (h.nq, h.nv) != (ref.nq, ref.nv) or h.joint_names != ref.joint_names:
            problems.append(f"{robot}: nq, nv {h.nq}, {h.nv} vs {ref.nq}, {ref.nv}; joints {h.joint_names}")
        if sorted(h.frame_names) != sorted(ref.frame_names):
            problems.append(f"{robot}: frames {sorted(set(h.frame_names) ^ set(ref.frame_names))} differ")
        if h.floating_base != ref.robot.free_flyer or h.gravity != conventions.GRAVITY:
            problems.append(f"{robot}: floating base {h.floating_base}, gravity {h.gravity}")
    assert not problems, "\n".join(problems)


def _matches_pinocchio(robot, method, reference):
    ref = reference(robot)
    fn = jax.vmap(getattr(peer(robot), method))
    failures = [f for key, got, want in _outputs(robot, method, np.dtype(np.float64), ref, fn)
                if (f := _check(robot, np.dtype(np.float64), method, key, got, want, METHODS[method][2]))]
    assert not failures, f"{robot} purejax {method} float64 against {ref.source}:\n  " + "\n  ".join(failures)


@pytest.mark.parametrize("method", [m for m in METHODS if m not in DERIVATIVE_METHODS])
@pytest.mark.parametrize("robot", ROBOTS)
def test_matches_pinocchio(robot, method, reference):
    _matches_pinocchio(robot, method, reference)


@pytest.mark.parametrize("method", DERIVATIVE_METHODS)
@pytest.mark.parametrize("robot", DERIVATIVE_ROBOTS)
def test_derivatives_match_pinocchio(robot, method, reference):
    _matches_pinocchio(robot, method, reference)


@pytest.mark.parametrize("robot", ROBOTS)
def test_custom_gravity_matches_pinocchio(robot, reference):
    """with_gravity reaches inverse and forward dynamics."""
    ref = reference(robot)
    h = peer(robot).with_gravity(refdata.CUSTOM_GRAVITY)
    x = {k: jnp.asarray(v) for k, v in ref.inputs.items()}
    checks = [("inverse_dynamics", jax.vmap(h.inverse_dynamics)(x["q"], x["qd"], x["qdd"])),
              ("forward_dynamics", jax.vmap(h.aba)(x["q"], x["qd"], x["tau"]))]
    failures = [f for key, got in checks
                if (f := _check(robot, np.dtype(np.float64), "custom_gravity", key, got,
                                ref.outputs[f"custom_gravity_{key}"], VALUE_RTOL))]
    assert not failures, f"{robot} purejax under gravity {refdata.CUSTOM_GRAVITY}:\n  " + "\n  ".join(failures)


@pytest.mark.parametrize("method", ["frame_poses", "inverse_dynamics", "aba"])
@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_float32(robot, method, reference):
    """float32 inputs give float32 outputs within the suite's float32 tolerance."""
    ref = reference(robot)
    dtype = np.dtype(np.float32)
    tol = FLOAT32_RTOL * (ref.cond_mass_matrix() if method == "aba" else 1.0)
    fn = jax.vmap(getattr(peer(robot), method))
    failures = [f for key, got, want in _outputs(robot, method, dtype, ref, fn)
                if (f := _check(robot, dtype, method, key, got, want, tol))]
    assert not failures, f"{robot} purejax {method} float32:\n  " + "\n  ".join(failures)


@pytest.mark.parametrize("method", ["frame_poses", "aba"])
def test_jit_matches_op_by_op(method, reference):
    """jit(vmap(method)), the benchmarks' form, equals the op-by-op result on the floating-base go2."""
    ref = reference("go2")
    h = peer("go2")
    args = [jnp.asarray(ref.inputs[a]) for a in METHODS[method][0]]
    eager = jax.vmap(getattr(h, method))(*args)
    jitted = jax.jit(jax.vmap(getattr(h, method)))(*args)
    for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted)):
        err, _ = support.sample_errors(b, a, 1)
        assert np.max(err) <= 1e-12, f"go2 {method}: jit differs from op-by-op by {np.max(err):.2e}"
