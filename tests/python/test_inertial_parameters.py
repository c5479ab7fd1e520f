"""Inertial parameters as inputs: the joint-torque regressor against Pinocchio's computeJointTorqueRegressor,
the dynamics with params against Pinocchio's on a model with those parameters, and the derivatives with
respect to params against central differences, on every robot of the roster's pytest suite.

Tolerances (relative to each output's max magnitude per sample): the regressor 1e-10 in float64 and 1e-4 in
float32; the dynamics with params 1e-9 (float64).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import refdata
import support
from support import DTYPES

ROBOTS = refdata.robot_names()


def _check(robot: str, label: str, got, want, tol: float) -> None:
    err, _ = support.sample_errors(got, want, 1)
    support.log_error(robot, np.asarray(got).dtype, label, float(np.max(err)), float(np.max(err)) / tol)
    bad = np.nonzero(~(err <= tol))[0]
    assert bad.size == 0, (f"{robot} {label}: relative error {err[bad[0]]:.3e} > {tol:.0e} in sample {bad[0]}; "
                           f"{support.worst_entry(got, want, (int(bad[0]),))}")


def _states(ref: refdata.Reference, dtype=np.float64, names=("q", "qd", "qdd")) -> list[jax.Array]:
    return [jnp.asarray(ref.inputs[n].astype(dtype)) for n in names]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ROBOTS)
def test_regressor_matches_pinocchio(robot, dtype, jax_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    got = h.joint_torque_regressor(*_states(ref, dtype))
    assert got.shape == (refdata.NUM_SAMPLES, h.nv, 10 * h.n_bodies) and got.dtype == dtype
    tol = 1e-10 if dtype == np.float64 else 1e-4
    _check(robot, "joint_torque_regressor", got, ref.outputs["joint_torque_regressor"], tol)


@pytest.mark.parametrize("robot", ROBOTS)
def test_regressor_times_parameters_is_inverse_dynamics(robot, jax_handle, numpy_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    params = h.inertial_parameters()
    np.testing.assert_allclose(params, ref.inertial["parameters"], rtol=0, atol=1e-12 * np.abs(params).max(),
                               err_msg=f"{robot}: inertial_parameters() differ from Pinocchio's bodies")
    q, qd, qdd = _states(ref)
    y = h.joint_torque_regressor(q, qd, qdd)
    _check(robot, "Y·π", y @ params.reshape(-1), h.inverse_dynamics(q, qd, qdd), 1e-12)
    _check(robot, "inverse_dynamics(params=URDF)", h.inverse_dynamics(q, qd, qdd, params=params),
           h.inverse_dynamics(q, qd, qdd), 1e-12)
    _check(robot, "numpy joint_torque_regressor", numpy_handle(robot).joint_torque_regressor(
        *(np.asarray(x) for x in (q, qd, qdd))), y, 1e-15)


@pytest.mark.parametrize("robot", ROBOTS)
def test_params_match_pinocchio(robot, jax_handle, numpy_handle, reference):
    """The dynamics with other inertial parameters, per sample and shared, on both handles."""
    h, ref = jax_handle(robot), reference(robot)
    params = ref.inertial["perturbed_parameters"]
    q, qd, qdd, tau = _states(ref, names=refdata.INPUTS)
    per_sample = np.broadcast_to(params, (refdata.NUM_SAMPLES,) + params.shape)
    for handle, kind in [(h, "jax"), (numpy_handle(robot), "numpy")]:
        for shared, p in [("shared", params), ("per sample", per_sample)]:
            label = f"{kind} {shared}"
            _check(robot, f"inverse_dynamics params {label}", handle.inverse_dynamics(q, qd, qdd, params=p),
                   ref.outputs["perturbed_inverse_dynamics"], 1e-9)
            _check(robot, f"mass_matrix params {label}", handle.mass_matrix(q, params=p),
                   ref.outputs["perturbed_mass_matrix"], 1e-9)
            _check(robot, f"forward_dynamics params {label}", handle.forward_dynamics(q, qd, tau, params=p),
                   ref.outputs["perturbed_forward_dynamics"], 1e-9)


@pytest.mark.parametrize("robot", ROBOTS)
def test_samples_carry_their_own_params(robot, jax_handle, reference):
    """A batch of parameters is one set per sample, under jit and vmap too."""
    h, ref = jax_handle(robot), reference(robot)
    q, qd, tau = _states(ref, names=("q", "qd", "tau"))
    scales = jnp.linspace(0.5, 1.5, refdata.NUM_SAMPLES)[:, None, None]
    params = scales * jnp.asarray(ref.inertial["perturbed_parameters"])
    batched = jax.jit(lambda *a: h.forward_dynamics(*a[:3], params=a[3]))(q, qd, tau, params)
    mapped = jax.vmap(lambda *a: h.forward_dynamics(*a[:3], params=a[3]))(q, qd, tau, params)
    one_by_one = jnp.stack([h.forward_dynamics(q[s], qd[s], tau[s], params=params[s])
                            for s in range(refdata.NUM_SAMPLES)])
    _check(robot, "forward_dynamics per-sample params (jit)", batched, one_by_one, 1e-12)
    _check(robot, "forward_dynamics per-sample params (vmap)", mapped, one_by_one, 1e-12)


def _central(f, x: np.ndarray, step: float) -> np.ndarray:
    """Central differences of f at x along every entry of x: (f.shape..., x.shape...)."""
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = step
        e = e.reshape(x.shape)
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * step))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(f(x)) + x.shape)


@pytest.mark.parametrize("robot", ROBOTS)
def test_params_derivatives_match_central_differences(robot, jax_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    q, qd, qdd, tau = (x[0] for x in _states(ref, names=refdata.INPUTS))
    params = np.asarray(ref.inertial["perturbed_parameters"])
    weights = jnp.asarray(np.random.default_rng(0).normal(size=h.nv))
    functions = {
        "inverse_dynamics": lambda p: weights @ h.inverse_dynamics(q, qd, qdd, params=p),
        "mass_matrix": lambda p: weights @ h.mass_matrix(q, params=p) @ weights,
        "forward_dynamics": lambda p: weights @ h.forward_dynamics(q, qd, tau, params=p),
    }
    for name, f in functions.items():
        got = jax.grad(f)(jnp.asarray(params))
        want = _central(f, params, 1e-7 * max(1.0, float(np.abs(params).max())))
        _check(robot, f"grad {name} wrt params", got[None], want[None], 1e-6)
    # forward dynamics' Jacobian is -M⁻¹·Y(q, qd, qdd) at its own acceleration
    jac = jax.jacfwd(lambda p: h.forward_dynamics(q, qd, tau, params=p))(jnp.asarray(params))
    qdd_p = h.forward_dynamics(q, qd, tau, params=params)
    want = -np.linalg.solve(h.mass_matrix(q, params=params), h.joint_torque_regressor(q, qd, qdd_p))
    _check(robot, "jacfwd forward_dynamics wrt params", jac.reshape(1, h.nv, -1), want[None], 1e-10)
    # and inverse dynamics' derivative in qdd is the mass matrix of the same parameters
    dtau = jax.jacrev(lambda a: h.inverse_dynamics(q, qd, a, params=params))(qdd)
    _check(robot, "jacrev inverse_dynamics wrt qdd", dtau[None], h.mass_matrix(q, params=params)[None], 1e-12)


def test_params_derivatives_in_q_are_refused(jax_handle):
    h = jax_handle(ROBOTS[0])
    q, qd = jnp.asarray(h.neutral()), jnp.zeros(h.nv)
    params = h.inertial_parameters()
    with pytest.raises(NotImplementedError, match="with respect to params, qdd or tau"):
        jax.grad(lambda x: h.inverse_dynamics(x, qd, qd, params=params).sum())(q)
    with pytest.raises(NotImplementedError, match="omit params"):
        jax.jacfwd(lambda v: h.forward_dynamics(q, v, qd, params=params))(qd)


def test_bad_params_name_the_fix(jax_handle, numpy_handle):
    for h in (jax_handle(ROBOTS[0]), numpy_handle(ROBOTS[0])):
        q, v = np.zeros((3, h.nq)), np.zeros((3, h.nv))
        with pytest.raises(ValueError, match=rf"params must have shape \({h.n_bodies}, 10\).*inertial_parameters"):
            h.inverse_dynamics(q, v, v, params=np.zeros((h.n_bodies, 9)))
        with pytest.raises(ValueError, match=r"\(3, %d, 10\)" % h.n_bodies):
            h.mass_matrix(q, params=np.zeros((2, h.n_bodies, 10)))
        with pytest.raises(ValueError, match="params must be real"):
            h.forward_dynamics(q, v, v, params=np.zeros((h.n_bodies, 10), complex))


@pytest.mark.parametrize("robot", ROBOTS)
def test_rollout_with_params(robot, jax_handle, reference):
    """The URDF's parameters reproduce the fused rollout; per-sample parameters run each sample's own model;
    one semi-implicit step is differentiable with respect to params."""
    h, ref = jax_handle(robot), reference(robot)
    q, qd, tau = _states(ref, names=("q", "qd", "tau"))
    u = jnp.broadcast_to(tau[:, None, :], (refdata.NUM_SAMPLES, 5, h.nv))
    fused = h.rollout(q, qd, u, 1e-3)
    urdf = h.rollout(q, qd, u, 1e-3, params=h.inertial_parameters())
    _check(robot, "rollout params=URDF", urdf.qd, fused.qd, 1e-11)
    scales = jnp.linspace(0.5, 1.5, refdata.NUM_SAMPLES)[:, None, None]
    params = scales * jnp.asarray(ref.inertial["perturbed_parameters"])
    batched = h.rollout(q, qd, u, 1e-3, params=params)
    for s in (0, refdata.NUM_SAMPLES - 1):
        alone = h.rollout(q[s], qd[s], u[s], 1e-3, params=params[s])
        _check(robot, "rollout per-sample params", batched.qd[s][None], alone.qd[None], 1e-12)
    with pytest.raises(ValueError, match="fused=False"):
        h.rollout(q, qd, u, 1e-3, params=params, fused=True)
    p0 = params[0]
    got = jax.grad(lambda p: h.step(q[0], qd[0], tau[0], 1e-3, params=p)[1].sum())(p0)
    want = 1e-3 * jax.grad(lambda p: h.forward_dynamics(q[0], qd[0], tau[0], params=p).sum())(p0)
    _check(robot, "grad step wrt params", got[None], want[None], 1e-12)
