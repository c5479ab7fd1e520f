"""Every JaxRobotHandle method against Pinocchio, on every robot of the roster's pytest suite (testdata/robots/roster.json), in float64 and float32.

Inputs and expected outputs come from refdata (Pinocchio now, or the stored .npz references); the
convention mapping lives in tests/pinocchio/conventions.py. Tolerance: the relative error
max|got - want| / max|want|, per sample and output, is at most 1e-9 in float64 and 1e-4 in float32
(1e-4·cond(M) for minv and forward dynamics). float32 runs get the float64 inputs rounded to float32.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import conventions
import refdata
import support
from support import DTYPES, METHODS, RTOL, frame_map

ROBOTS = refdata.robot_names()


@pytest.mark.parametrize("robot", ROBOTS)
def test_model_matches_reference(robot, jax_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    assert (h.nq, h.nv) == (ref.nq, ref.nv), f"{robot}: (nq, nv) of the build vs {ref.source}"
    assert h.floating_base == ref.robot.free_flyer
    conventions.check_names(robot, "joint_names", h.joint_names, ref.joint_names, ref.source)
    assert sorted(h.frame_names) == sorted(ref.frame_names), (
        f"{robot}: frames differ from Pinocchio's BODY frames: only in the build "
        f"{sorted(set(h.frame_names) - set(ref.frame_names))}, only in the reference "
        f"{sorted(set(ref.frame_names) - set(h.frame_names))}")
    assert tuple(h.gravity) == tuple(conventions.GRAVITY)

    lower, upper = h.position_limits
    assert lower.shape == upper.shape == (h.nq,)
    assert h.velocity_limits.shape == h.effort_limits.shape == (h.nv,)
    for what, got, want in [("lower position", lower, ref.limits["lower"]),
                            ("upper position", upper, ref.limits["upper"]),
                            ("velocity", h.velocity_limits, ref.limits["velocity"]),
                            ("effort", h.effort_limits, ref.limits["effort"])]:
        known = ~np.isnan(want)
        np.testing.assert_allclose(np.asarray(got)[known], want[known], rtol=1e-12,
                                   err_msg=f"{robot}: {what} limits differ from Pinocchio's")
    if h.floating_base:
        assert np.all(np.isinf(lower[:7])) and np.all(np.isinf(upper[:7])), "free-flyer q is unbounded"


def _compare(robot, method, dtype, checks, tol) -> None:
    """checks: (label, got, want) with a leading sample axis; tol: per-sample tolerance [S]."""
    failures = []
    worst_err, worst_ratio = 0.0, 0.0
    for label, got, want in checks:
        got_np = np.asarray(got)
        if got_np.dtype != dtype:
            failures.append(f"{label}: dtype {got_np.dtype}, expected {dtype} (dtype follows inputs)")
            continue
        if got_np.shape != want.shape:
            failures.append(f"{label}: shape {got_np.shape}, expected {want.shape}")
            continue
        err, scale = support.sample_errors(got_np, want, 1)
        worst_err = max(worst_err, float(np.max(err)))
        worst_ratio = max(worst_ratio, float(np.max(err / tol)))
        for s in np.nonzero(~(err <= tol))[0]:
            failures.append(f"{label} sample {s}: relative error {err[s]:.3e} > {tol[s]:.3e} "
                            f"(max|want| {scale[s]:.3e}); {support.worst_entry(got_np, want, (s,))}")
    support.log_error(robot, dtype, method, worst_err, worst_ratio)
    assert not failures, (f"{robot} {method} {dtype.name}: {len(failures)} mismatch(es) with Pinocchio "
                          f"(max relative error {worst_err:.3e}):\n  " + "\n  ".join(failures[:12]))


def _inputs(ref, names, dtype):
    return [jnp.asarray(ref.inputs[n].astype(dtype)) for n in names]


def _tolerance(ref, method: support.Method, dtype) -> np.ndarray:
    tol = np.full(refdata.NUM_SAMPLES, RTOL[dtype])
    if method.cond_scaled and dtype == np.float32:
        tol = tol * ref.cond_mass_matrix()
    return tol


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_matches_pinocchio(robot, method, dtype, jax_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    m, dtype = METHODS[method], np.dtype(dtype)
    args = _inputs(ref, m.args, dtype)
    fmap = frame_map(h, ref)
    checks = []
    if not m.frame:
        outs = m.call(h, *args)
        assert len(outs) == len(m.outputs)
        for key, got in zip(m.outputs, outs):
            want = ref.outputs[key]
            if key in ("pos", "rot", "quat"):
                want = want[:, fmap]
            checks.append((key, got, want))
    else:
        for i, frame in enumerate(h.frame_names):
            outs = m.call(h, *args, frame=frame)
            assert len(outs) == len(m.outputs)
            for key, got in zip(m.outputs, outs):
                checks.append((f"{key}[{frame}]", got, ref.outputs[key][:, fmap[i]]))
    # q and -q are one rotation: the handle promises qw >= 0, Pinocchio's sign is aligned onto ours
    aligned = []
    for label, got, want in checks:
        if label.startswith("quat"):
            got = np.asarray(got)
            assert np.all(got[..., 3] >= 0), f"{robot} {label}: quaternion with qw < 0 (promised qw >= 0)"
            want = conventions.align_quaternion_sign(want, got)
        aligned.append((label, got, want))
    _compare(robot, method, dtype, aligned, _tolerance(ref, m, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ROBOTS)
def test_custom_gravity_matches_pinocchio(robot, dtype, jax_handle, reference):
    """with_gravity and the gravity= argument reach every gravity-dependent kernel, all three axes."""
    from grid_rbd.jax import JaxRobotHandle

    h, ref = jax_handle(robot), reference(robot)
    dtype = np.dtype(dtype)
    g = refdata.CUSTOM_GRAVITY
    for variant, hg in [("with_gravity", h.with_gravity(g)), ("gravity=", JaxRobotHandle(robot, gravity=g))]:
        assert tuple(hg.gravity) == g
        q, qd, qdd, tau = _inputs(ref, refdata.INPUTS, dtype)
        got = {
            "inverse_dynamics": hg.inverse_dynamics(q, qd, qdd),
            "bias_forces": hg.bias_forces(q, qd),
            "gravity_forces": hg.gravity_forces(q),
            "forward_dynamics": hg.forward_dynamics(q, qd, tau),
        }
        for key, out in got.items():
            m = support.Method(key, (), (), False, None, cond_scaled=key == "forward_dynamics")
            _compare(robot, f"{variant}:{key}", dtype,
                     [(key, out, ref.outputs[f"custom_gravity_{key}"])], _tolerance(ref, m, dtype))
    assert tuple(h.gravity) == tuple(conventions.GRAVITY), "with_gravity changed the original handle"
