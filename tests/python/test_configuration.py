"""Configuration-space helpers (neutral, random_configuration, integrate, difference) against Pinocchio's
neutral, integrate and difference, and their identities, in NumPy and under jax.jit / vmap / grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import conventions
import refdata

# the built robots with a free-flyer and without; Pinocchio's continuous joints hold (cos, sin), so the
# comparisons use robots without them (the identities run on every robot)
PIN_ROBOTS = [r for r in ("iiwa", "go2", "hyq") if r in refdata.robot_names()]


def _robot(name: str) -> conventions.Robot:
    return {r.name: r for r in refdata.robot_set()}[name]


def _tangent(rng: np.random.Generator, nv: int, scale: float) -> np.ndarray:
    return scale * rng.standard_normal(nv)


@pytest.mark.parametrize("name", PIN_ROBOTS)
def test_matches_pinocchio(name, numpy_handle, rng):
    pin = conventions.pinocchio()
    h = numpy_handle(name)
    model = conventions.build_model(_robot(name))
    assert conventions.our_nq(model) == h.nq and model.nq == h.nq, "a robot without continuous joints"
    np.testing.assert_array_equal(h.neutral(), pin.neutral(model))
    for scale in (1e-9, 0.3, 2.5):  # the series branch, ordinary and large rotations
        q0 = h.random_configuration(rng)
        v = _tangent(rng, h.nv, scale)
        q1 = h.integrate(q0, v)
        np.testing.assert_allclose(q1, pin.integrate(model, q0, v), rtol=0, atol=1e-12)
        q2 = h.random_configuration(rng)
        np.testing.assert_allclose(h.difference(q0, q2), pin.difference(model, q0, q2), rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", refdata.robot_names())
def test_identities(name, numpy_handle, rng):
    h = numpy_handle(name)
    q = h.random_configuration(rng, shape=(5,))
    assert q.shape == (5, h.nq) and q.dtype == np.float64
    lower, upper = h.position_limits
    finite = np.isfinite(lower) & np.isfinite(upper)
    assert np.all((q[:, finite] >= lower[finite]) & (q[:, finite] <= upper[finite]))
    v = rng.standard_normal((5, h.nv))
    q1 = h.integrate(q, v)
    np.testing.assert_allclose(h.difference(q, q1), v, rtol=0, atol=1e-9)
    np.testing.assert_allclose(h.difference(q, q), 0.0, atol=1e-12)
    np.testing.assert_allclose(h.integrate(h.neutral(), np.zeros(h.nv)), h.neutral(), atol=0)
    # a free-flyer's quaternion stays unit
    for j in h._robot.metadata.joints:
        if j.nq == 7:
            np.testing.assert_allclose(np.linalg.norm(q1[:, j.q_index + 3 : j.q_index + 7], axis=-1), 1.0, atol=1e-12)


@pytest.mark.parametrize("name", [r for r in ("go2", "iiwa") if r in refdata.robot_names()])
def test_jax_jit_vmap_grad(name, jax_handle, numpy_handle, rng):
    h, hn = jax_handle(name), numpy_handle(name)
    # the suite runs with jax_enable_x64 (conftest.py)
    q = jnp.asarray(hn.random_configuration(rng, shape=(3,)))
    v = jnp.asarray(rng.standard_normal((3, h.nv)))
    got = jax.jit(jax.vmap(h.integrate))(q, v)
    np.testing.assert_allclose(got, hn.integrate(np.asarray(q), np.asarray(v)), atol=1e-12)
    back = jax.jit(h.difference)(q, got)
    np.testing.assert_allclose(back, v, atol=1e-9)
    # d/dv integrate(q, v) at v = 0 is finite (the small-angle series, not 0/0)
    jac = jax.jacfwd(lambda v0: h.integrate(q[0], v0))(jnp.zeros(h.nv))
    grad = jax.grad(lambda v0: jnp.sum(h.integrate(q[0], v0) ** 2))(jnp.zeros(h.nv))
    assert np.all(np.isfinite(jac)) and np.all(np.isfinite(grad))
    # against central differences
    eps = 1e-6
    fd = np.stack(
        [(hn.integrate(np.asarray(q[0]), eps * e) - hn.integrate(np.asarray(q[0]), -eps * e)) / (2 * eps) for e in np.eye(h.nv)],
        axis=1,
    )
    np.testing.assert_allclose(jac, fd, atol=1e-7)
    key = jax.random.key(0)
    qr = jax.jit(lambda k: h.random_configuration(k, shape=(4,)))(key)
    assert qr.shape == (4, h.nq) and qr.dtype == jnp.result_type(float)


def test_bad_shapes_name_the_problem(numpy_handle):
    h = numpy_handle(refdata.robot_names()[0])
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., %d\)" % h.nv):
        h.integrate(h.neutral(), np.zeros(h.nv + 1))
    with pytest.raises(ValueError, match="q1 must have shape"):
        h.difference(h.neutral(), np.zeros(h.nq + 2))
