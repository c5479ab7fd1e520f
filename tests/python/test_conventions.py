"""The public API's conventions and input policies: frame Jacobian rows [v; ω] as Pinocchio's
LOCAL_WORLD_ALIGNED frame Jacobian (and as central differences of the frame pose), dtype promotion as NumPy
would (integer, boolean and mixed-precision arguments) in both handles, and the policy for non-finite and
degenerate configurations (NaN propagation, zero quaternions)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import conventions
import refdata
import support

PIN_ROBOTS = [r for r in ("iiwa", "go2") if r in refdata.robot_names()]


def _robot(name: str) -> conventions.Robot:
    return {r.name: r for r in refdata.robot_set()}[name]


@pytest.mark.parametrize("name", PIN_ROBOTS)
def test_frame_jacobian_rows_are_pinocchio_v_omega(name, numpy_handle, jax_handle, rng):
    """Both handles' frame Jacobians equal pin.getFrameJacobian(..., LOCAL_WORLD_ALIGNED) unconverted, and
    their first three rows are the derivative of the frame origin (central differences along tangents)."""
    pin = conventions.pinocchio()
    h, jh = numpy_handle(name), jax_handle(name)
    model = conventions.build_model(_robot(name))
    data = model.createData()
    frame = support.leaf_frame(h)
    fid = model.getFrameId(frame)
    for _ in range(3):
        q = h.random_configuration(rng)
        pin.computeJointJacobians(model, data, q)  # no continuous joints: Pinocchio's q is ours
        pin.framesForwardKinematics(model, data, q)
        want = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
        np.testing.assert_allclose(h.frame_jacobian(q, frame), want, rtol=0, atol=1e-10)
        np.testing.assert_allclose(np.asarray(jh.frame_jacobian(jnp.asarray(q), frame)), want, rtol=0, atol=1e-10)
        every = h.frame_jacobians(q)[h.frame_index(frame)]
        np.testing.assert_allclose(every, want, rtol=0, atol=1e-10)
        # rows 0-2 move the origin: pos(q ⊕ εe_k) − pos(q ⊖ εe_k) ≈ 2ε·J[:3, k]
        eps = 1e-6
        fd = np.empty((3, h.nv))
        for k in range(h.nv):
            e = np.zeros(h.nv)
            e[k] = eps
            plus = h.end_effector_pose(h.integrate(q, e), frame)[0]
            minus = h.end_effector_pose(h.integrate(q, -e), frame)[0]
            fd[:, k] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(h.frame_jacobian(q, frame)[:3], fd, rtol=0, atol=1e-7)


@pytest.mark.parametrize("name", PIN_ROBOTS)
def test_frame_jacobian_derivatives_rows_follow_the_jacobian(name, numpy_handle, rng):
    """frame_jacobian_derivatives[r, c, k] differentiates frame_jacobian's row r (in [v; ω] order)."""
    h = numpy_handle(name)
    frame = support.leaf_frame(h)
    q = h.random_configuration(rng)
    dj = h.frame_jacobian_derivatives(q, frame)
    eps = 1e-6
    for k in range(h.nv):
        e = np.zeros(h.nv)
        e[k] = eps
        fd = (h.frame_jacobian(h.integrate(q, e), frame) - h.frame_jacobian(h.integrate(q, -e), frame)) / (2 * eps)
        # the tangent of integrate is the kernels' tangent direction for joints and, to first order, for a
        # free-flyer's twist
        np.testing.assert_allclose(dj[:, :, k], fd, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", ["iiwa", "go2"])
def test_integer_boolean_and_mixed_precision_inputs(name, numpy_handle, jax_handle, rng):
    """Integer and boolean arrays take the floating-point arguments' dtype (float64 without any), and float32
    with float64 computes in float64, alike in both handles."""
    h, jh = numpy_handle(name), jax_handle(name)
    q_int = np.asarray(np.rint(h.neutral()), dtype=np.int32)  # integer coordinates, unit quaternion
    qd = rng.standard_normal(h.nv)
    tau = rng.standard_normal(h.nv)
    want = h.forward_dynamics(q_int.astype(np.float64), qd, tau)
    for handle, wrap in ((h, np.asarray), (jh, jnp.asarray)):
        got = np.asarray(handle.forward_dynamics(wrap(q_int), wrap(qd), wrap(tau)))
        assert got.dtype == np.float64, f"{type(handle).__name__}: int32 q with float64 others gave {got.dtype}"
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
        # mixed precision promotes to float64
        got = np.asarray(handle.forward_dynamics(wrap(q_int.astype(np.float32)), wrap(qd), wrap(tau)))
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
        # float32 alone stays float32; an integer argument takes float32 from it
        got32 = np.asarray(handle.forward_dynamics(wrap(q_int), wrap(qd.astype(np.float32)), wrap(tau.astype(np.float32))))
        assert got32.dtype == np.float32
        np.testing.assert_allclose(got32, want, rtol=2e-4, atol=2e-4)
        # booleans count as integers
        zero = np.zeros(h.nv, dtype=bool)
        np.testing.assert_allclose(np.asarray(handle.bias_forces(wrap(q_int), wrap(zero))),
                                   h.bias_forces(q_int.astype(np.float64), np.zeros(h.nv)), rtol=1e-13, atol=1e-13)
    # all untyped (lists, integers): float64 in the NumPy handle
    assert h.gravity_forces(q_int.tolist()).dtype == np.float64


def test_zero_quaternion_and_non_finite_policy(numpy_handle, jax_handle, rng):
    """go2 (free-flyer): a zero quaternion is rejected by the NumPy handle with a message naming it; the
    JAX handle gives NaN for that sample only; invalid_configuration flags zero quaternions and NaN."""
    h, jh = numpy_handle("go2"), jax_handle("go2")
    q = h.random_configuration(rng, shape=(4,))
    q[1, 3:7] = 0.0  # the free-flyer quaternion of sample 1
    q[2, 9] = np.nan  # a joint angle of sample 2
    qd = rng.standard_normal((4, h.nv))
    tau = rng.standard_normal((4, h.nv))
    np.testing.assert_array_equal(h.invalid_configuration(q), [False, True, True, False])
    np.testing.assert_array_equal(np.asarray(jh.invalid_configuration(jnp.asarray(q))), [False, True, True, False])
    np.testing.assert_array_equal(h.invalid_configuration(np.zeros(h.nq)), True)
    with pytest.raises(ValueError, match=r"quaternion.*zero norm.*neutral"):
        h.forward_dynamics(q, qd, tau)
    qdd = np.asarray(jax.jit(jh.forward_dynamics)(jnp.asarray(q), jnp.asarray(qd), jnp.asarray(tau)))
    assert np.isnan(qdd[1]).any() and np.isnan(qdd[2]).any()
    assert np.isfinite(qdd[[0, 3]]).all()
    clean = h.forward_dynamics(q[[0, 3]], qd[[0, 3]], tau[[0, 3]])
    np.testing.assert_allclose(qdd[[0, 3]], clean, rtol=1e-12, atol=1e-12)
    # the NumPy handle lets NaN through as NaN, like the JAX handle
    q_nan = q[[0, 2]]
    out = h.forward_dynamics(q_nan, qd[[0, 2]], tau[[0, 2]])
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).any()


@pytest.mark.parametrize("name", PIN_ROBOTS)
def test_joint_coordinates_match_pinocchio(name, numpy_handle, jax_handle):
    """joint_coordinates gives Pinocchio's idx_q/nq and idx_v/nv for every joint, by name and by index."""
    h, jh = numpy_handle(name), jax_handle(name)
    model = conventions.build_model(_robot(name))
    assert len(h.joint_names) == model.njoints - 1  # Pinocchio's joint 0 is the universe
    for k, joint in enumerate(h.joint_names):
        pj = model.joints[model.getJointId(joint)]
        want = (slice(pj.idx_q, pj.idx_q + pj.nq), slice(pj.idx_v, pj.idx_v + pj.nv))
        assert h.joint_coordinates(joint) == want and h.joint_coordinates(k) == want
        assert jh.joint_coordinates(joint) == want
    with pytest.raises(ValueError, match="unknown joint"):
        h.joint_coordinates("no_such_joint")
    with pytest.raises(ValueError, match="out of range"):
        h.joint_coordinates(len(h.joint_names))


def test_kernel_call_is_the_kernel_in_its_own_conventions(jax_handle, rng):
    """kernel_call runs a generated kernel by name: ABA is forward_dynamics, the frame Jacobian kernel keeps
    the kernels' rows [ω; v] (the methods reorder them); an unknown kernel is NotImplementedError."""
    jh = jax_handle("go2")
    inputs = support.random_inputs(jh, rng, (2,))
    q, qd, tau = (jnp.asarray(inputs[k]) for k in ("q", "qd", "tau"))
    (qdd,) = jh.kernel_call("aba", (q, qd, tau))
    np.testing.assert_array_equal(np.asarray(qdd), np.asarray(jh.forward_dynamics(q, qd, tau)))
    frame = jh.frame_index(support.leaf_frame(jh))
    (kernel_rows,) = jh.kernel_call("frame_jacobian", (q,), frame=frame)
    np.testing.assert_array_equal(np.asarray(kernel_rows)[..., [3, 4, 5, 0, 1, 2], :],
                                  np.asarray(jh.frame_jacobian(q, frame)))
    with pytest.raises(NotImplementedError, match="no 'no_such_kernel' kernel"):
        jh.kernel_call("no_such_kernel", (q,))
