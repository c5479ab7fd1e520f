"""Fused rollouts: T integration steps in one kernel call, differentiable in both modes by one call each.

A build with trajectory kernels (``metadata.json`` lists them under ``trajectories``; unrolled robots) exports
these handlers beside the per-sample algorithms (``xla_ffi/trajectory.h``):

``rollout``          the states after each of T steps, one sample per thread;
``rollout_tangent``  forward mode: the trajectory's tangent along a tangent of (q0, qd0, u, dt), by one
                     dual-number run of the steps;
``rollout_adjoint``  reverse mode: the cotangents of (q0, qd0, u, dt) from those of the trajectory, by the
                     steps backwards over the stored states.

Reverse mode has a second way under semi-implicit Euler (``adjoint="jacobians"``):
every step's dynamics Jacobians at once, one ``forward_dynamics_derivatives`` call over all the stored states
(the GPU full however small the batch), then the linear recursion of the cotangents backwards through the
steps, a few small products a step, in one call of a fourth handler, ``rollout_adjoint_jacobians``. Its
memory is the trajectory plus the Jacobians of up to ``_JACOBIAN_BUDGET_BYTES`` worth of steps at a time.

:func:`rollout` is a :func:`jax.custom_jvp` whose tangent is the primitive ``grid_rbd_rollout_tangent``,
linear in the tangents, whose transpose rule calls ``rollout_adjoint``: ``jvp`` runs the tangent kernel,
``grad`` and ``vjp`` the adjoint kernel, and neither re-traces dynamics in JAX. Derivatives are in
configuration coordinates, as JAX differentiates the scan of single steps (:mod:`grid_rbd.integrators`), and
agree with it to rounding. The rollout's memory is its trajectory, O(batch × T × state); the adjoint keeps
nothing else. Second derivatives of a fused rollout are not provided (``NotImplementedError``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from . import _sharding
from ._kernels import INTEGRATOR_NUMBER

if TYPE_CHECKING:
    from .jax import JaxRobotHandle

__all__ = ["ADJOINTS", "available", "check_adjoint", "rollout"]

_KERNELS = ("rollout", "rollout_tangent", "rollout_adjoint", "rollout_adjoint_jacobians")

# How reverse mode runs: the adjoint kernel, or every step's Jacobians at once and the recursion (see above);
# "auto" picks the Jacobians under semi-implicit Euler (on an H100 2.2× faster for panda, 1.6× for go2:
# bench/results/rollout/2026-12-06-h100-jacobians-adjoint.md) and the adjoint kernel under RK4.
ADJOINTS = ("auto", "kernel", "jacobians")

# The most bytes of step Jacobians (∂qdd/∂q, ∂qdd/∂qd and M⁻¹ for each sample and step) held at once.
_JACOBIAN_BUDGET_BYTES = 256 << 20


def available(handle: JaxRobotHandle) -> bool:
    """Whether the robot's build has the fused rollout kernels (a CUDA library of kernels compiled at run time
    has none: with it on a GPU, rollouts run as a scan of single steps)."""
    robot = handle._robot
    return robot.runtime_kernels is None and all(name in robot.metadata.trajectories for name in _KERNELS)


@dataclasses.dataclass(frozen=True)
class _TrajectoryCall:
    """One trajectory kernel as a value (a static argument of :func:`grid_rbd._sharding.batch_partitioned`,
    so that under sharding each device runs its own samples): its target, the robot's NQ, gravity and the
    integrator."""

    target: str
    adjoint: bool
    nq: int
    gravity: tuple[float, float, float]
    method: int

    def __call__(self, *operands: jax.Array) -> list[jax.Array]:
        q0, qd0, u, dt = operands[:4]
        batch_ndim = q0.ndim - 1
        shapes = [q0.shape, qd0.shape, u.shape, dt.shape] if self.adjoint else [u.shape[:-1] + (self.nq,), u.shape]
        results = [jax.ShapeDtypeStruct(  # type: ignore[no-untyped-call,unused-ignore]
            shape, q0.dtype, sharding=_sharding.typed_result_sharding(operands, batch_ndim, len(shape)))
            for shape in shapes]
        gx, gy, gz = self.gravity
        call = jax.ffi.ffi_call(self.target, results, vmap_method="broadcast_all")
        return list(call(*operands, gravity_x=np.float64(gx), gravity_y=np.float64(gy), gravity_z=np.float64(gz),
                         method=np.int64(self.method)))


def _ffi(target: str, operands: Sequence[jax.Array], nq: int, gravity: tuple[float, float, float],
         method: int, adjoint: bool = False) -> list[jax.Array]:
    kernel = _TrajectoryCall(target, adjoint, nq, gravity, method)
    return _sharding.batch_partitioned(kernel, operands, operands[0].ndim - 1)


# ---------------------------------------------------------------------------------------------------------
# The tangent primitive: linear in its last four operands, transposed by the adjoint kernel.

_tangent_p = Primitive("grid_rbd_rollout_tangent")
_tangent_p.multiple_results = True


def _tangent_impl(q0: jax.Array, qd0: jax.Array, u: jax.Array, dt: jax.Array, qs: jax.Array, qds: jax.Array,
                  dq0: jax.Array, dqd0: jax.Array, du: jax.Array, ddt: jax.Array, *, targets: tuple[str, str],
                  gravity: tuple[float, float, float], method: int,
                  jacobians: JaxRobotHandle | None) -> list[jax.Array]:
    del qs, qds, jacobians  # the trajectory is for the transpose; the tangent kernel recomputes it in dual numbers
    return _ffi(targets[0], [q0, qd0, u, dt, dq0, dqd0, du, ddt], q0.shape[-1], gravity, method)


def _tangent_abstract(q0: Any, qd0: Any, u: Any, dt: Any, qs: Any, qds: Any, *tangents: Any,
                      **params: Any) -> tuple[Any, Any]:
    return (jax.core.ShapedArray(qs.shape, qs.dtype), jax.core.ShapedArray(qds.shape, qds.dtype))


def _instantiate(t: Any) -> jax.Array:
    if isinstance(t, ad.Zero):
        return jnp.zeros(t.aval.shape, t.aval.dtype)
    if isinstance(t, ad.UndefinedPrimal):
        raise AssertionError("a primal operand of the rollout tangent is undefined")
    return t  # type: ignore[no-any-return]


def _tangent_transpose(cts: Sequence[Any], q0: Any, qd0: Any, u: Any, dt: Any, qs: Any, qds: Any, dq0: Any,
                       dqd0: Any, du: Any, ddt: Any, *, targets: tuple[str, str],
                       gravity: tuple[float, float, float], method: int,
                       jacobians: JaxRobotHandle | None) -> list[Any]:
    for x in (q0, qd0, u, dt, qs, qds):
        if isinstance(x, ad.UndefinedPrimal):
            raise NotImplementedError("grid_rbd: the fused rollout's tangent is linear only in its tangents")
    gqs = _instantiate(cts[0])
    gqds = _instantiate(cts[1])
    if jacobians is not None:
        grads = _adjoint_by_jacobians(jacobians, isinstance(ddt, ad.UndefinedPrimal), q0, qd0, u, dt, qs, qds,
                                      gqs, gqds)
    else:
        grads = _adjoint(targets[1], gravity, method, q0, qd0, u, dt, qs, qds, gqs, gqds)
    return [None] * 6 + [g if isinstance(x, ad.UndefinedPrimal) else None
                         for g, x in zip(grads, (dq0, dqd0, du, ddt), strict=True)]


def _adjoint_impl(target: str, gravity: tuple[float, float, float], method: int, q0: jax.Array, qd0: jax.Array,
                  u: jax.Array, dt: jax.Array, qs: jax.Array, qds: jax.Array, gqs: jax.Array,
                  gqds: jax.Array) -> tuple[jax.Array, ...]:
    return tuple(_ffi(target, [q0, qd0, u, dt, qs, qds, gqs, gqds], q0.shape[-1], gravity, method, adjoint=True))


_adjoint = jax.custom_jvp(_adjoint_impl, nondiff_argnums=(0, 1, 2))


def _no_second_derivatives() -> NotImplementedError:
    return NotImplementedError(
        "grid_rbd: second derivatives of a fused rollout are not provided; differentiate "
        "JaxRobotHandle.rollout(..., fused=False) (the scan of single steps) for them."
    )


@_adjoint.defjvp
def _adjoint_jvp(target: str, gravity: Any, method: int, primals: Any, tangents: Any) -> Any:
    raise _no_second_derivatives()


@dataclasses.dataclass(frozen=True)
class _JacobianAdjointCall:
    """The ``rollout_adjoint_jacobians`` kernel over a window of steps as a value (a static argument of
    :func:`grid_rbd._sharding.batch_partitioned`)."""

    target: str

    def __call__(self, *operands: jax.Array) -> list[jax.Array]:
        q_first, lq, lqd, _, qds = operands[:5]
        batch_ndim = q_first.ndim - 1
        results = [jax.ShapeDtypeStruct(  # type: ignore[no-untyped-call,unused-ignore]
            shape, q_first.dtype, sharding=_sharding.typed_result_sharding(operands, batch_ndim, len(shape)))
            for shape in (lq.shape, lqd.shape, qds.shape, q_first.shape[:-1])]
        return list(jax.ffi.ffi_call(self.target, results, vmap_method="broadcast_all")(*operands))


def _adjoint_by_jacobians_impl(handle: JaxRobotHandle, need_dt: bool, q0: jax.Array, qd0: jax.Array, u: jax.Array,
                               dt: jax.Array, qs: jax.Array, qds: jax.Array, gqs: jax.Array,
                               gqds: jax.Array) -> tuple[jax.Array, ...]:
    """The cotangents of (q0, qd0, u, dt) of a semi-implicit Euler rollout from those of its states.

    Each window of steps (as many as ``_JACOBIAN_BUDGET_BYTES`` of Jacobians allow) is two calls: the
    dynamics Jacobians of all its steps at once (``forward_dynamics_derivatives``; with dt's cotangent also
    ``forward_dynamics``), then ``rollout_adjoint_jacobians``, the recursion of the state's cotangent backwards
    through the window, which also gives u's and dt's (``grid/algorithms/integrator.cuh``)."""
    nv = handle.nv
    steps = u.shape[-2]
    time = u.ndim - 2
    q_pre = jnp.concatenate([q0[..., None, :], qs[..., :-1, :]], axis=-2)
    qd_pre = jnp.concatenate([qd0[..., None, :], qds[..., :-1, :]], axis=-2)
    samples = int(np.prod(u.shape[:-2], dtype=np.int64))
    chunk = max(1, min(steps, _JACOBIAN_BUDGET_BYTES // max(1, samples * 3 * nv * nv * u.dtype.itemsize)))
    call = _JacobianAdjointCall(handle._robot.target("rollout_adjoint_jacobians"))
    lq, lqd = jnp.zeros_like(q0), jnp.zeros_like(qd0)  # cotangents of the state after the window's last step
    gu_chunks: list[jax.Array] = []
    gdt = jnp.zeros_like(dt)
    for end in range(steps, 0, -chunk):
        start = max(0, end - chunk)
        window = (slice(None),) * time + (slice(start, end),)
        q, qd, u_w = q_pre[window], qd_pre[window], u[window]
        dq, dqd, minv = handle.forward_dynamics_derivatives(q, qd, u_w)
        acc = handle.forward_dynamics(q, qd, u_w) if need_dt else jnp.zeros_like(u_w)
        operands = [q_pre[(slice(None),) * time + (start,)], lq, lqd, qs[window], qds[window], gqs[window],
                    gqds[window], dq, dqd, minv, acc, dt]
        lq, lqd, gu, gdt_w = _sharding.batch_partitioned(call, operands, time)
        gu_chunks.insert(0, gu)
        gdt = gdt + gdt_w
    return lq, lqd, jnp.concatenate(gu_chunks, axis=-2), gdt


_adjoint_by_jacobians = jax.custom_jvp(_adjoint_by_jacobians_impl, nondiff_argnums=(0, 1))


@_adjoint_by_jacobians.defjvp
def _adjoint_by_jacobians_jvp(handle: Any, need_dt: bool, primals: Any, tangents: Any) -> Any:
    raise _no_second_derivatives()


def _tangent_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    if any(not isinstance(t, ad.Zero) for t in tangents[:6]):
        raise _no_second_derivatives()
    out = _tangent_p.bind(*primals, **params)
    linear = [_instantiate(t) for t in tangents[6:]]
    return out, _tangent_p.bind(*primals[:6], *linear, **params)


def _tangent_batch(args: Sequence[jax.Array], dims: Sequence[int | None], **params: Any) -> tuple[Any, Any]:
    size = next(a.shape[d] for a, d in zip(args, dims, strict=True) if d is not None)
    moved = [jnp.broadcast_to(a, (size,) + a.shape) if d is None else jnp.moveaxis(a, d, 0)
             for a, d in zip(args, dims, strict=True)]
    return _tangent_p.bind(*moved, **params), (0, 0)


_tangent_p.def_impl(_tangent_impl)
_tangent_p.def_abstract_eval(_tangent_abstract)
mlir.register_lowering(_tangent_p, mlir.lower_fun(_tangent_impl, multiple_results=True))
ad.primitive_jvps[_tangent_p] = _tangent_jvp
ad.primitive_transposes[_tangent_p] = _tangent_transpose
batching.primitive_batchers[_tangent_p] = _tangent_batch


# ---------------------------------------------------------------------------------------------------------
# The rollout


def _rollout_impl(handle: JaxRobotHandle, method: int, by_jacobians: bool, q0: jax.Array, qd0: jax.Array,
                  u: jax.Array, dt: jax.Array) -> tuple[jax.Array, jax.Array]:
    del by_jacobians  # how reverse mode runs (_rollout_jvp)
    qs, qds = _ffi(handle._robot.target("rollout"), [q0, qd0, u, dt], handle.nq, handle.gravity, method)
    return qs, qds


_rollout = jax.custom_jvp(_rollout_impl, nondiff_argnums=(0, 1, 2))


@_rollout.defjvp
def _rollout_jvp(handle: JaxRobotHandle, method: int, by_jacobians: bool, primals: Any, tangents: Any) -> Any:
    q0, qd0, u, dt = primals
    qs, qds = _rollout(handle, method, by_jacobians, q0, qd0, u, dt)
    targets = (handle._robot.target("rollout_tangent"), handle._robot.target("rollout_adjoint"))
    dqs, dqds = _tangent_p.bind(q0, qd0, u, dt, qs, qds, *tangents, targets=targets, gravity=handle.gravity,
                                method=method, jacobians=handle if by_jacobians else None)
    return (qs, qds), (dqs, dqds)


def check_adjoint(adjoint: str, method: str) -> None:
    """A ValueError naming the problem unless ``adjoint`` is one of :data:`ADJOINTS` and serves ``method``."""
    if adjoint not in ADJOINTS:
        raise ValueError(f"adjoint must be one of {', '.join(map(repr, ADJOINTS))}; got {adjoint!r}")
    if adjoint == "jacobians" and method != "semi_implicit":
        raise ValueError(f"adjoint='jacobians' covers method='semi_implicit'; method={method!r} needs "
                         "adjoint='kernel' (or 'auto')")


def rollout(handle: JaxRobotHandle, q0: jax.Array, qd0: jax.Array, u: jax.Array, dt: jax.Array,
            method: str, adjoint: str = "auto") -> tuple[jax.Array, jax.Array]:
    """The states after each of T steps, ``(..., T, NQ)`` and ``(..., T, NV)``, from checked arrays of one dtype:
    q0 ``(..., NQ)``, qd0 ``(..., NV)``, u ``(..., T, NV)`` and a scalar dt; reverse mode by ``adjoint``
    (:data:`ADJOINTS`, checked by :func:`check_adjoint`)."""
    by_jacobians = adjoint == "jacobians" or (adjoint == "auto" and method == "semi_implicit")
    batch = q0.shape[:-1]
    if any(d == 0 for d in batch):
        return (jnp.zeros(u.shape[:-1] + (handle.nq,), q0.dtype), jnp.zeros(u.shape, u.dtype))
    return _rollout(handle, INTEGRATOR_NUMBER[method], by_jacobians, q0, qd0, u, jnp.broadcast_to(dt, batch))

