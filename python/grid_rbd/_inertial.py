"""The dynamics with inertial parameters as inputs, on the joint-torque regressor kernel.

Inverse dynamics is linear in the bodies' inertial parameters: ``tau = Y(q, qd, qdd) @ pi`` with ``pi`` the
``(n_bodies, 10)`` parameters flattened (:meth:`grid_rbd.jax.JaxRobotHandle.inertial_parameters` gives the
layout). The methods' ``params`` route composes the other dynamics from ``Y`` in JAX:

- inverse dynamics: ``Y(q, qd, qdd) @ pi``, one regressor call;
- mass matrix: column ``j`` is ``Y(q, 0, e_j) @ pi`` without gravity, one regressor call on ``NV`` samples;
- forward dynamics: ``solve(M_pi, tau - Y(q, qd, 0) @ pi)``, ``NV + 1`` regressor samples and an LU solve.

Derivatives: the regressor does not depend on ``pi``, so derivatives with respect to ``params`` (and ``tau``)
follow from these compositions exactly, e.g. ``d qdd / d pi = -M⁻¹ Y(q, qd, qdd)``. ``Y`` is affine in
``qdd`` with slope ``∂Y/∂qdd_j = Y(q, 0, e_j)`` without gravity, which gives the derivatives with respect to
``qdd``. The generated kernels have no derivatives of ``Y`` in ``q`` and ``qd``: differentiating with respect
to them with ``params`` given raises :class:`NotImplementedError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from ._autodiff import call

if TYPE_CHECKING:
    from .jax import JaxRobotHandle

__all__ = ["forward_dynamics", "inverse_dynamics", "joint_torque_regressor", "mass_matrix"]

KERNEL = "joint_torque_regressor"


def _acceleration_slopes(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    """``∂Y/∂qdd``: ``Y(q, 0, e_j)`` without gravity for every unit acceleration, ``(..., NV, NV, P)`` with
    ``j`` first. One regressor call on NV samples per state."""
    nv = handle.nv
    lead = q.shape[:-1]
    qs = jnp.broadcast_to(q[..., None, :], lead + (nv, q.shape[-1]))
    zeros = jnp.zeros(lead + (nv, nv), q.dtype)
    units = jnp.broadcast_to(jnp.eye(nv, dtype=q.dtype), lead + (nv, nv))
    return call(handle.with_gravity((0.0, 0.0, 0.0)), KERNEL, (qs, zeros, units))[0]


def _regressor_impl(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, qdd: jax.Array) -> jax.Array:
    return call(handle, KERNEL, (q, qd, qdd))[0]


def _regressor_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    q, qd, qdd = primals
    dq, dqd, dqdd = tangents
    if not (isinstance(dq, SymbolicZero) and isinstance(dqd, SymbolicZero)):
        raise NotImplementedError(
            f"grid_rbd: robot {handle.name!r}: the dynamics with params given (the joint-torque regressor) have "
            "no derivatives with respect to q and qd; differentiate with respect to params, qdd or tau, or omit "
            "params (the URDF's inertias) for derivatives with respect to q and qd.")
    y = joint_torque_regressor(handle, q, qd, qdd)
    if isinstance(dqdd, SymbolicZero):
        return y, jnp.zeros(y.shape, y.dtype)
    return y, jnp.einsum("...jrp,...j->...rp", _acceleration_slopes(handle, q), dqdd)


joint_torque_regressor = jax.custom_jvp(_regressor_impl, nondiff_argnums=(0,))
joint_torque_regressor.defjvp(_regressor_jvp, symbolic_zeros=True)


def _flat(params: jax.Array) -> jax.Array:
    """(..., n_bodies, 10) -> (..., 10·n_bodies), the regressor's column order."""
    return params.reshape(params.shape[:-2] + (params.shape[-2] * params.shape[-1],))


def inverse_dynamics(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, qdd: jax.Array,
                     params: jax.Array) -> jax.Array:
    """``Y(q, qd, qdd) @ pi``."""
    return jnp.einsum("...rp,...p->...r", joint_torque_regressor(handle, q, qd, qdd), _flat(params))


def mass_matrix(handle: JaxRobotHandle, q: jax.Array, params: jax.Array) -> jax.Array:
    """``M_pi[:, j] = Y(q, 0, e_j) @ pi`` without gravity, symmetrised (the columns are computed apart)."""
    m = jnp.einsum("...jrp,...p->...rj", _acceleration_slopes(handle, q), _flat(params))
    return 0.5 * (m + jnp.swapaxes(m, -1, -2))


def forward_dynamics(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, tau: jax.Array,
                     params: jax.Array) -> jax.Array:
    """``solve(M_pi, tau - Y(q, qd, 0) @ pi)``."""
    bias = inverse_dynamics(handle, q, qd, jnp.zeros_like(qd), params)
    m = jnp.broadcast_to(mass_matrix(handle, q, params), bias.shape + bias.shape[-1:])
    return jnp.linalg.solve(m, (tau - bias)[..., None])[..., 0]
