"""Time integration of a robot's forward dynamics with JAX: one step, and rollouts of many steps.

Two schemes, with the state ``(q, qd)`` and the efforts ``u`` held over the step (or, with a ``controller``,
the efforts ``controller(q, qd, u)`` at each state the scheme evaluates the dynamics at):

``"semi_implicit"`` (symplectic Euler)
    ``qd₁ = qd + dt·a(q, qd, u)``, then ``q₁ = q ⊕ dt·qd₁``.
``"rk4"`` (classical Runge-Kutta, every stage integrated on the manifold from ``q``)
    ``a₁ = a(q, qd)``; ``v₂ = qd + dt/2·a₁``, ``a₂ = a(q ⊕ dt/2·qd, v₂)``; ``v₃ = qd + dt/2·a₂``,
    ``a₃ = a(q ⊕ dt/2·v₂, v₃)``; ``v₄ = qd + dt·a₃``, ``a₄ = a(q ⊕ dt·v₃, v₄)``; then
    ``q₁ = q ⊕ dt/6·(qd + 2v₂ + 2v₃ + v₄)`` and ``qd₁ = qd + dt/6·(a₁ + 2a₂ + 2a₃ + a₄)``.

``⊕`` is :meth:`~grid_rbd.jax.JaxRobotHandle.integrate` (Pinocchio's ``integrate``: a free-flyer moves by the
exponential of its body twist, its quaternion stays unit). Everything is differentiable in every argument
(``q``, ``qd``, ``u`` and ``dt``) under ``jax.grad``, ``jax.jvp``, ``jit`` and ``vmap``: the steps call the
forward-dynamics kernels and their analytical derivatives.

A rollout without a controller runs in the build's fused kernels (:mod:`grid_rbd._trajectory`): the T steps in
one call, forward mode in one call and reverse mode in one adjoint call over the stored trajectory. With a
controller, or ``fused=False``, it is a scan of :func:`step` whose reverse mode recomputes each step from the
states it kept (``jax.checkpoint``). Either way memory grows with batch × steps × state, not with the
derivative matrices, and the two agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from . import _trajectory

if TYPE_CHECKING:
    from .jax import JaxRobotHandle

__all__ = ["METHODS", "Controller", "Method", "Rollout", "check_method", "step", "rollout"]

Method = Literal["semi_implicit", "rk4"]
METHODS: tuple[str, ...] = ("semi_implicit", "rk4")
# The efforts at a state: controller(q, qd, u) with u the step's row of efforts (a policy, gravity
# compensation, damping); any JAX function of the three.
Controller = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]


class Rollout(NamedTuple):
    """The states a rollout visits after each step, and the positions of the frames asked for.

    Attributes:
      q: configurations, shape ``(..., T, NQ)``.
      qd: velocities, shape ``(..., T, NV)``.
      frame_positions: world positions of the requested frames, ``(..., T, F, 3)`` in the order they were
        asked for; ``None`` when no frames were.
    """

    q: jax.Array
    qd: jax.Array
    frame_positions: jax.Array | None


def check_method(method: str) -> None:
    """Raises ValueError naming the schemes unless ``method`` is one of them."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}")


def step(robot: JaxRobotHandle, q: jax.Array, qd: jax.Array, u: jax.Array, dt: jax.Array | float,
         method: str, controller: Controller | None = None,
         params: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
    """One step of ``method`` from ``(q, qd)`` under efforts ``u`` (through ``controller`` when given), with
    the inertial parameters ``params`` (``None``: the URDF's); arrays of any common batch shape."""
    check_method(method)

    def accel(q: jax.Array, v: jax.Array) -> jax.Array:
        return robot.forward_dynamics(q, v, u if controller is None else controller(q, v, u), params=params)

    if method == "semi_implicit":
        qd1 = qd + dt * accel(q, qd)
        return robot.integrate(q, dt * qd1), qd1
    half = 0.5 * dt
    a1 = accel(q, qd)
    v2 = qd + half * a1
    a2 = accel(robot.integrate(q, half * qd), v2)
    v3 = qd + half * a2
    a3 = accel(robot.integrate(q, half * v2), v3)
    v4 = qd + dt * a3
    a4 = accel(robot.integrate(q, dt * v3), v4)
    sixth = dt / 6.0
    q1 = robot.integrate(q, sixth * (qd + 2.0 * v2 + 2.0 * v3 + v4))
    return q1, qd + sixth * (a1 + 2.0 * a2 + 2.0 * a3 + a4)


def rollout(robot: JaxRobotHandle, q0: ArrayLike, qd0: ArrayLike, u: ArrayLike, dt: ArrayLike, method: str,
            frames: Sequence[str | int] | None, controller: Controller | None, dtype: jnp.dtype,
            fused: bool | None = None, params: jax.Array | None = None, adjoint: str = "auto") -> Rollout:
    """T steps of ``method`` from ``(q0, qd0)`` (``(..., NQ)``, ``(..., NV)``) under efforts ``u``
    (``(..., T, NV)``, one row per step), computed in ``dtype``, with the inertial parameters ``params``
    (``None``: the URDF's); see :meth:`grid_rbd.jax.JaxRobotHandle.rollout`."""
    check_method(method)
    _trajectory.check_adjoint(adjoint, method)
    if params is not None and fused:
        raise ValueError("the fused rollout kernels use the URDF's inertias; with params, pass fused=False (or "
                         "leave it unset) for the scan of single steps")
    if fused is None:
        fused = controller is None and params is None and _trajectory.available(robot)
    elif fused and controller is not None:
        raise ValueError("a fused rollout runs the steps inside one kernel and cannot call a JAX controller; "
                         "pass fused=False (or leave it unset) with a controller")
    elif fused and not _trajectory.available(robot):
        raise NotImplementedError(
            f"the build of robot {robot.name!r} has no fused rollout kernels (a rolled robot, or a build older "
            "than them); rebuild it, or pass fused=False for the scan of single steps")
    shapes = {name: jnp.shape(x) for name, x in (("q0", q0), ("qd0", qd0), ("u", u))}
    nq, nv = robot.nq, robot.nv
    if len(shapes["q0"]) < 1 or shapes["q0"][-1] != nq:
        raise ValueError(f"{robot.name}: q0 must have shape (..., {nq}); got {shapes['q0']}")
    batch = tuple(shapes["q0"][:-1])
    if tuple(shapes["qd0"]) != batch + (nv,):
        raise ValueError(f"{robot.name}: qd0 must have shape {batch + (nv,)} (q0's batch, then nv); "
                         f"got {shapes['qd0']}")
    if len(shapes["u"]) != len(batch) + 2 or tuple(shapes["u"][: len(batch)]) != batch or shapes["u"][-1] != nv:
        raise ValueError(f"{robot.name}: u must have shape {batch + ('T', nv)} (q0's batch, the steps, then nv); "
                         f"got {shapes['u']}")
    if shapes["u"][-2] < 1:
        raise ValueError(f"{robot.name}: u holds no step (shape {shapes['u']}); a rollout needs T >= 1")
    if jnp.ndim(dt) != 0:
        raise ValueError(f"dt must be a scalar; got shape {jnp.shape(dt)}")
    indices = [robot.frame_index(f) for f in frames] if frames is not None else None
    q0, qd0, u, dt = (jnp.asarray(x, dtype) for x in (q0, qd0, u, dt))
    if adjoint != "auto" and not fused:
        raise ValueError(f"adjoint={adjoint!r} chooses how a fused rollout runs reverse mode; this rollout is the "
                         "scan of single steps (a controller, params, fused=False or a build without the kernels)")
    if fused:
        qs, qds = _trajectory.rollout(robot, q0, qd0, u, dt, method, adjoint)
        return Rollout(qs, qds, _frame_positions(robot, qs, indices))

    @jax.checkpoint
    def advance(state: tuple[jax.Array, jax.Array], u_t: jax.Array) -> tuple[tuple[jax.Array, jax.Array],
                                                                             tuple[jax.Array, jax.Array]]:
        nxt = step(robot, state[0], state[1], u_t, dt, method, controller, params)
        return nxt, nxt

    _, (qs, qds) = jax.lax.scan(advance, (q0, qd0), jnp.moveaxis(u, -2, 0))
    qs, qds = jnp.moveaxis(qs, 0, -2), jnp.moveaxis(qds, 0, -2)
    return Rollout(qs, qds, _frame_positions(robot, qs, indices))


def _frame_positions(robot: JaxRobotHandle, qs: jax.Array, indices: list[int] | None) -> jax.Array | None:
    if indices is None:
        return None
    return robot.frame_poses(qs)[0][..., jnp.asarray(indices, dtype=jnp.int32), :]
