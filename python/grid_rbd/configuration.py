"""Configuration-space operations: the neutral configuration, random configurations, and integration and
difference on the configuration manifold, with Pinocchio's conventions.

A configuration ``q`` has ``nq`` coordinates and a tangent vector ``v`` has ``nv``: a revolute, prismatic or
continuous joint has one of each (a continuous joint's angle is a plain number, not Pinocchio's
``(cos, sin)`` pair); a free-flyer has ``[x y z qx qy qz qw]`` (unit quaternion, scalar last) and the body
twist ``[v_lin; omega]`` in the base frame. ``integrate(q, v)`` is ``q ⊕ v``: ``q + v`` for one-coordinate
joints and ``M · exp6(v)`` for a free-flyer; ``difference(q0, q1)`` is its inverse,
``integrate(q0, difference(q0, q1)) == q1``. Every function takes leading batch axes and works on NumPy
arrays or, through ``xp=jax.numpy``, under ``jax.jit``, ``vmap`` and ``grad`` (finite gradients at ``v = 0``).

The handles expose these as methods (:meth:`RobotHandle.integrate`, :meth:`JaxRobotHandle.integrate`, ...);
the functions here take the robot's joints (``handle.joints``-style metadata) explicitly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._metadata import JointInfo

__all__ = ["neutral", "integrate", "difference", "random_configuration", "invalid", "zero_quaternions"]

# Below this squared angle the trigonometric ratios are replaced by their Taylor series (exact in float64
# to rounding there, and differentiable at zero).
_SMALL_ANGLE2 = 1e-6


def _is_free_flyer(j: JointInfo) -> bool:
    return j.nq == 7 and j.nv == 6


def neutral(joints: Sequence[JointInfo], nq: int, xp: Any = np, dtype: Any = None) -> Any:
    """The neutral configuration: zero for one-coordinate joints, the identity pose for a free-flyer.

    ``dtype`` defaults to the namespace's default float (float64 for NumPy)."""
    q = np.zeros(nq)
    for j in joints:
        if _is_free_flyer(j):
            q[j.q_index + 6] = 1.0
    return xp.asarray(q) if dtype is None else xp.asarray(q, dtype=dtype)


def zero_quaternions(joints: Sequence[JointInfo], q: Any, xp: Any = np) -> Any:
    """Which configurations hold a free-flyer quaternion with no rotation to normalise to, shape
    ``q.shape[:-1]``: its squared norm below the dtype's smallest normal number (zero, as an all-zero ``q``
    has)."""
    tiny = np.finfo(np.dtype(q.dtype)).tiny
    zero = xp.zeros(q.shape[:-1], dtype=bool)
    for j in joints:
        if _is_free_flyer(j):
            quat = q[..., j.q_index + 3 : j.q_index + 7]
            zero = zero | (xp.sum(quat * quat, axis=-1) < tiny)
    return zero


def invalid(joints: Sequence[JointInfo], q: Any, xp: Any = np) -> Any:
    """Which configurations the dynamics cannot use, shape ``q.shape[:-1]``: a coordinate that is NaN or
    infinite, or a zero free-flyer quaternion (:func:`zero_quaternions`)."""
    return xp.any(~xp.isfinite(q), axis=-1) | zero_quaternions(joints, q, xp)


def _cross(a: Any, b: Any, xp: Any) -> Any:
    return xp.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def _dot(a: Any, b: Any, xp: Any) -> Any:
    return xp.sum(a * b, axis=-1, keepdims=True)


def _quat_mul(a: Any, b: Any, xp: Any) -> Any:
    """a ⊗ b for xyzw quaternions."""
    va, wa = a[..., :3], a[..., 3:]
    vb, wb = b[..., :3], b[..., 3:]
    v = wa * vb + wb * va + _cross(va, vb, xp)
    w = wa * wb - _dot(va, vb, xp)
    return xp.concatenate([v, w], axis=-1)


def _quat_rotate(quat: Any, x: Any, xp: Any) -> Any:
    """R(quat)·x for a unit xyzw quaternion: x + 2w(v × x) + 2 v × (v × x)."""
    v, w = quat[..., :3], quat[..., 3:]
    t = 2.0 * _cross(v, x, xp)
    return x + w * t + _cross(v, t, xp)


def _safe_angle(theta2: Any, xp: Any) -> tuple[Any, Any]:
    """(small, θ): whether θ² is below the series threshold, and θ with a harmless value there."""
    small = theta2 < _SMALL_ANGLE2
    return small, xp.sqrt(xp.where(small, 1.0, theta2))


def _exp_quat(omega: Any, xp: Any) -> Any:
    """The unit quaternion of the rotation vector omega."""
    theta2 = _dot(omega, omega, xp)
    small, theta = _safe_angle(theta2, xp)
    half_sinc = xp.where(small, 0.5 - theta2 / 48.0, xp.sin(0.5 * theta) / theta)
    cos_half = xp.where(small, 1.0 - theta2 / 8.0 + theta2 * theta2 / 384.0, xp.cos(0.5 * theta))
    return xp.concatenate([half_sinc * omega, cos_half], axis=-1)


def _log_quat(quat: Any, xp: Any) -> Any:
    """The rotation vector of a unit xyzw quaternion, angle in [0, π] (the shorter way round)."""
    sign = xp.where(quat[..., 3:] < 0, -1.0, 1.0)
    v, w = sign * quat[..., :3], sign * quat[..., 3:]
    s2 = _dot(v, v, xp)
    small, s = _safe_angle(s2, xp)
    # θ = 2·atan2(s, w); ω = θ·v/s, with atan2(s, w)/s → 1/w − s²/(3w³) as s → 0 (w → 1 there)
    ratio = xp.where(small, 1.0 / w - s2 / (3.0 * w * w * w), xp.arctan2(s, w) / s)
    return 2.0 * ratio * v


def _apply_left_jacobian(omega: Any, x: Any, xp: Any, inverse: bool) -> Any:
    """V(ω)·x (inverse=False) or V(ω)⁻¹·x: the SO(3) left Jacobian that couples translation in exp6."""
    theta2 = _dot(omega, omega, xp)
    small, theta = _safe_angle(theta2, xp)
    wx = _cross(omega, x, xp)
    wwx = _cross(omega, wx, xp)
    if not inverse:
        b = xp.where(small, 0.5 - theta2 / 24.0, (1.0 - xp.cos(theta)) / (theta * theta))
        c = xp.where(small, 1.0 / 6.0 - theta2 / 120.0, (theta - xp.sin(theta)) / (theta * theta * theta))
        return x + b * wx + c * wwx
    d = xp.where(
        small,
        1.0 / 12.0 + theta2 / 720.0,
        (1.0 - theta * xp.sin(theta) / (2.0 * (1.0 - xp.cos(theta)))) / (theta * theta),
    )
    return x - 0.5 * wx + d * wwx


def integrate(joints: Sequence[JointInfo], q: Any, v: Any, xp: Any = np) -> Any:
    """q ⊕ v: shape ``(..., nq)`` from ``q`` ``(..., nq)`` and ``v`` ``(..., nv)``."""
    parts = []
    for j in joints:
        qj = q[..., j.q_index : j.q_index + j.nq]
        vj = v[..., j.v_index : j.v_index + j.nv]
        if _is_free_flyer(j):
            pos, quat = qj[..., :3], qj[..., 3:]
            lin, omega = vj[..., :3], vj[..., 3:]
            parts.append(pos + _quat_rotate(quat, _apply_left_jacobian(omega, lin, xp, inverse=False), xp))
            parts.append(_quat_mul(quat, _exp_quat(omega, xp), xp))
        else:
            parts.append(qj + vj)
    return xp.concatenate(parts, axis=-1)


def difference(joints: Sequence[JointInfo], q0: Any, q1: Any, xp: Any = np) -> Any:
    """The tangent vector v with ``integrate(q0, v) == q1``: shape ``(..., nv)``."""
    parts = []
    for j in joints:
        a = q0[..., j.q_index : j.q_index + j.nq]
        b = q1[..., j.q_index : j.q_index + j.nq]
        if _is_free_flyer(j):
            conj = xp.concatenate([-a[..., 3:6], a[..., 6:]], axis=-1)
            rel = _quat_mul(conj, b[..., 3:], xp)
            omega = _log_quat(rel, xp)
            p_rel = _quat_rotate(conj, b[..., :3] - a[..., :3], xp)
            parts.append(_apply_left_jacobian(omega, p_rel, xp, inverse=True))
            parts.append(omega)
        else:
            parts.append(b - a)
    return xp.concatenate(parts, axis=-1)


def random_configuration(
    joints: Sequence[JointInfo],
    nq: int,
    uniform: Callable[[np.ndarray, np.ndarray], Any],
    normal: Callable[[int], Any],
    xp: Any = np,
) -> Any:
    """A random configuration from the given samplers.

    ``uniform(lower, upper)`` draws uniformly per coordinate (arrays of the same length, leading batch axes
    allowed in the result) and ``normal(n)`` draws n standard normals per sample. One-coordinate joints are
    uniform within their URDF limits, or in [-π, π] without them (continuous joints); a free-flyer's position
    is uniform in [-1, 1]³ and its orientation uniform over the rotations (a normalised Gaussian 4-vector).
    """
    lower = np.empty(nq)
    upper = np.empty(nq)
    for j in joints:
        if _is_free_flyer(j):
            lower[j.q_index : j.q_index + 7] = -1.0
            upper[j.q_index : j.q_index + 7] = 1.0
        elif j.lower is not None and j.upper is not None:
            lower[j.q_index], upper[j.q_index] = j.lower, j.upper
        else:
            lower[j.q_index], upper[j.q_index] = -math.pi, math.pi
    q = uniform(lower, upper)
    flyers = [j for j in joints if _is_free_flyer(j)]
    if not flyers:
        return q
    gauss = normal(4 * len(flyers))
    parts = []
    at = 0
    for k, j in enumerate(flyers):
        parts.append(q[..., at : j.q_index + 3])
        g = gauss[..., 4 * k : 4 * k + 4]
        parts.append(g / xp.sqrt(_dot(g, g, xp)))
        at = j.q_index + 7
    parts.append(q[..., at:])
    return xp.concatenate(parts, axis=-1)
