"""multi_target_position and multi_target_position_derivatives over horizons of states: against Pinocchio
(frame positions and the position rows of its LOCAL_WORLD_ALIGNED frame Jacobians), against the per-state
methods called once per time step, frame selection, empty horizons and the NumPy handle. The generic checks
(jit, vmap, grad and hessian against central differences, bad input) run it through support.METHODS."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import refdata
from support import DTYPES, RTOL, check_relative, frame_map, leaf_frame

ROBOTS = refdata.robot_names()
STEPS = 3  # time steps per horizon: the references' samples as (NUM_SAMPLES / STEPS, STEPS, NQ)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ROBOTS)
def test_horizon_matches_pinocchio(robot, dtype, jax_handle, reference):
    h, ref = jax_handle(robot), reference(robot)
    dtype = np.dtype(dtype)
    fmap = frame_map(h, ref)
    q = jnp.asarray(ref.inputs["q"].astype(dtype).reshape(-1, STEPS, h.nq))
    pos = np.asarray(h.multi_target_position(q))
    dpos = np.asarray(h.multi_target_position_derivatives(q))
    assert pos.shape == q.shape[:2] + (h.n_frames, 3) and pos.dtype == dtype
    assert dpos.shape == q.shape[:2] + (h.n_frames, 3, h.nv) and dpos.dtype == dtype
    samples = refdata.NUM_SAMPLES
    check_relative(robot, dtype, "multi_target_position", pos.reshape(samples, h.n_frames, 3),
           ref.outputs["pos"][:, fmap], RTOL[dtype])
    # Pinocchio's rows [v; ω]: the position's derivative is v
    check_relative(robot, dtype, "multi_target_position_derivatives", dpos.reshape(samples, h.n_frames, 3, h.nv),
           ref.outputs["jacobian"][:, fmap, :3, :], RTOL[dtype])


@pytest.mark.parametrize("robot", ROBOTS)
def test_horizon_is_the_per_state_methods(robot, jax_handle):
    """One call over (batch, T) states gives what frame_poses and frame_jacobians give state by state."""
    h = jax_handle(robot)
    q = h.random_configuration(jax.random.key(3), (2, 5))
    pos = h.multi_target_position(q)
    dpos = h.multi_target_position_derivatives(q)
    for t in range(q.shape[1]):
        want_pos = h.frame_poses(q[:, t])[0]
        want_dpos = h.frame_jacobians(q[:, t])[..., :3, :]  # public rows [v; ω]
        np.testing.assert_allclose(pos[:, t], want_pos, rtol=0, atol=1e-13 * float(jnp.max(jnp.abs(want_pos))))
        np.testing.assert_allclose(dpos[:, t], want_dpos, rtol=0,
                                   atol=1e-13 * max(1.0, float(jnp.max(jnp.abs(want_dpos)))))


@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_frames_select_targets(robot, jax_handle, numpy_handle):
    h, nh = jax_handle(robot), numpy_handle(robot)
    q = np.asarray(h.random_configuration(jax.random.key(5), (4, 2)))
    targets = [leaf_frame(h), 0, -1]
    indices = [h.frame_index(f) for f in targets]
    pos, dpos = h.multi_target_position(q), h.multi_target_position_derivatives(q)
    np.testing.assert_array_equal(h.multi_target_position(q, frames=targets), pos[..., indices, :])
    np.testing.assert_array_equal(h.multi_target_position_derivatives(q, frames=targets), dpos[..., indices, :, :])
    np.testing.assert_array_equal(nh.multi_target_position(q, frames=targets), pos[..., indices, :])
    np.testing.assert_array_equal(nh.multi_target_position_derivatives(q, frames=targets), dpos[..., indices, :, :])
    for handle in (h, nh):
        with pytest.raises(ValueError, match="unknown frame"):
            handle.multi_target_position(q, frames=["no_such_frame"])
        with pytest.raises(TypeError, match="sequence of frame names"):
            handle.multi_target_position(q, frames=leaf_frame(h))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_numpy_handle_equals_the_jax_handle(robot, dtype, jax_handle, numpy_handle):
    h, nh = jax_handle(robot), numpy_handle(robot)
    q = np.asarray(h.random_configuration(jax.random.key(7), (3, 4))).astype(dtype)
    for name in ("multi_target_position", "multi_target_position_derivatives"):
        got = getattr(nh, name)(q)
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, np.asarray(getattr(h, name)(jnp.asarray(q))))


@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_empty_horizon(robot, jax_handle):
    h = jax_handle(robot)
    q = jnp.zeros((2, 0, h.nq))
    assert h.multi_target_position(q).shape == (2, 0, h.n_frames, 3)
    assert h.multi_target_position_derivatives(q).shape == (2, 0, h.n_frames, 3, h.nv)


@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_grad_over_a_horizon_is_the_derivative_kernel(robot, jax_handle):
    """jit(grad) of a cost on the targets over a horizon: the derivative kernel's rows contracted with the
    cost's weights and taken to raw q (configuration_tangent), per state; and jit(vmap(...)) over a batch
    of horizons agrees."""
    h = jax_handle(robot)
    q = h.random_configuration(jax.random.key(11), (4, 6))
    goal = h.multi_target_position(h.random_configuration(jax.random.key(12), (6,)))

    def cost(q):
        return 0.5 * jnp.sum((h.multi_target_position(q) - goal) ** 2)

    grads = jax.jit(jax.vmap(jax.grad(cost)))(q)
    for b in (0, 3):
        residual = h.multi_target_position(q[b]) - goal  # (T, NF, 3)
        dpos = h.multi_target_position_derivatives(q[b])  # (T, NF, 3, NV)
        tangent = jnp.einsum("tfk,tfkc->tc", residual, dpos)
        # raw q: the cotangent of configuration_tangent, a linear map of dq
        lift = jax.vmap(jax.jacfwd(lambda x, d: h.configuration_tangent(x, d), argnums=1), in_axes=(0, None))(
            q[b], jnp.zeros(h.nq))  # (T, NV, NQ)
        want = jnp.einsum("tc,tcn->tn", tangent, lift)
        np.testing.assert_allclose(grads[b], want, rtol=1e-12, atol=1e-12 * float(jnp.max(jnp.abs(want))))
