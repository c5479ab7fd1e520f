"""Kernel calls that partition along their batch dimensions under JAX's sharding.

An XLA FFI custom call has no partitioning rule of its own: given sharded operands, XLA gathers the whole
batch onto every device and runs the kernel there. Every sample of a grid_rbd kernel is independent of the
others, so :func:`batch_partitioned` wraps the call in :class:`jax.experimental.custom_partitioning` with
the rule "the leading batch dimensions of every operand and every result are one set of factors; the
trailing (per-sample) dimensions are replicated". Under ``jit`` with operands sharded along a batch
dimension, each device then runs the kernel on its own shard and the results keep the operands' sharding,
with no collective. Operands sharded along a per-sample dimension are gathered along that dimension only.

Why ``custom_partitioning`` and not ``shard_map``: a ``shard_map`` needs its mesh and partition specs when
it is traced, and under ``vmap`` it adds the vmapped dimension unsharded (replicated) unless every caller
passes ``spmd_axis_name``, so ``jit(vmap(grad(f)))`` of a sharded batch would gather it. A custom
partitioning is decided by XLA's partitioner (Shardy, or GSPMD) from the shardings it has propagated, so a
plain ``jit`` of the user's code, with sharded arguments or ``with_sharding_constraint`` anywhere, does the
right thing without a mesh in scope. ``custom_partitioning`` has no ``vmap`` rule, so the call is also a
:func:`jax.custom_batching.custom_vmap` whose rule moves the vmapped dimension to the front of the batch
(what the FFI call's ``vmap_method="broadcast_all"`` did) and partitions the larger call. Derivatives never
reach it: the derivative rules of :mod:`grid_rbd._autodiff` call other kernels on the primal values, and
each of those is partitioned in turn.

Batches that the device count does not divide are padded by XLA's partitioner (the last shards carry
padding rows, whose results are dropped): the kernels treat samples independently, so padding is harmless.
On one device the partitioned call lowers to the plain custom call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap
from jax.experimental.custom_partitioning import custom_partitioning
from jax.sharding import NamedSharding, PartitionSpec

__all__ = ["BatchKernel", "batch_partitioned", "typed_result_sharding"]


class BatchKernel(Protocol):
    """A kernel that runs every sample of its operands' common leading batch shape independently.

    Equal and hashed by value (it is a static argument of the ``jit`` and the custom partitioning, so equal
    kernels share their compilation), and callable on operands of any batch shape, the whole batch or one
    device's shard of it, returning its outputs with that batch shape in front.
    """

    def __hash__(self) -> int: ...

    def __eq__(self, other: object) -> bool: ...

    def __call__(self, *operands: jax.Array) -> Sequence[jax.Array]: ...


def batch_partitioned(kernel: BatchKernel, operands: Sequence[jax.Array], batch_ndim: int) -> list[jax.Array]:
    """Calls ``kernel(*operands)``, partitioned along the ``batch_ndim`` leading dimensions of the operands.

    Args:
      kernel: the per-batch computation, hashable by value.
      operands: arrays sharing their ``batch_ndim`` leading dimensions.
      batch_ndim: how many leading dimensions are batch dimensions.

    Returns:
      The kernel's outputs; under ``jit`` each one is sharded along its batch dimensions as the operands are.
    """
    # A jit of its own gives calls on concrete (possibly sharded) arrays the partitioned lowering too, and
    # caches their compilation by the kernel's value; inside a trace it is an inlined sub-computation.
    return list(_jitted_call(kernel, batch_ndim, *operands))


def typed_result_sharding(operands: Sequence[jax.Array], batch_ndim: int, ndim: int) -> NamedSharding | None:
    """The sharding a result of ``ndim`` dimensions has in its type: the batch sharding of the operands'
    types, whole along the per-sample dimensions; ``None`` when the operands' types carry no mesh.

    Under a mesh of explicit axes (what :func:`jax.make_mesh` makes by default in JAX 0.12) an array's type
    holds its sharding, and results of an FFI call declare theirs: left undeclared, they would be typed
    replicated, and ``vmap`` over an explicitly sharded dimension could not add that dimension to them.
    """
    batch: tuple[Any, ...] = (None,) * batch_ndim
    mesh = None
    for x in operands:
        sharding = getattr(jax.typeof(x), "sharding", None)
        if not isinstance(sharding, NamedSharding) or sharding.mesh.empty:
            continue
        if mesh is None:
            mesh = sharding.mesh
        spec = _batch_spec(sharding, batch_ndim)
        if spec is not None and any(a is not None for a in spec):
            mesh, batch = sharding.mesh, spec
            break
    if mesh is None:
        return None
    return NamedSharding(mesh, PartitionSpec(*batch, *(None,) * (ndim - batch_ndim)))


def _call(kernel: BatchKernel, batch_ndim: int, *operands: jax.Array) -> tuple[jax.Array, ...]:
    @custom_vmap
    def batched(*xs: jax.Array) -> tuple[jax.Array, ...]:
        if batch_ndim == 0:
            return tuple(kernel(*xs))
        return tuple(_partitioned(kernel, batch_ndim, *xs))

    @batched.def_vmap
    def _vmap_rule(axis_size: int, in_batched: list[bool], *xs: jax.Array) -> tuple[Any, Any]:
        # custom_vmap has put the vmapped dimension first on batched operands: one more batch dimension.
        full = [x if b else jnp.broadcast_to(x, (axis_size, *x.shape)) for x, b in zip(xs, in_batched)]
        outs = _call(kernel, batch_ndim + 1, *full)
        return outs, tuple(True for _ in outs)

    return tuple(batched(*operands))


_jitted_call = jax.jit(_call, static_argnums=(0, 1))


def _run(kernel: BatchKernel, batch_ndim: int, *operands: jax.Array) -> tuple[jax.Array, ...]:
    del batch_ndim
    return tuple(kernel(*operands))


_partitioned = custom_partitioning(_run, static_argnums=(0, 1))


def _rank(t: Any) -> int:
    """The rank of an MLIR ranked tensor type."""
    return len(t.shape)


def _sharding_rule(kernel: BatchKernel, batch_ndim: int, mesh: Any, operand_types: Sequence[Any],
                   result_types: Sequence[Any]) -> str:
    """Shardy's rule, e.g. ``"b0 o0_1, b0 o1_1 -> b0 r0_1 r0_2"``: the batch factors ``b*`` are shared by
    every operand and result; each per-sample dimension is a factor of its own, so that no sharding flows
    between the batch and the per-sample dimensions or from one operand's per-sample dimensions to another's."""
    del kernel, mesh
    batch = [f"b{d}" for d in range(batch_ndim)]

    def value(prefix: str, i: int, rank: int) -> str:
        return " ".join(batch + [f"{prefix}{i}_{d}" for d in range(batch_ndim, rank)])

    lhs = ", ".join(value("o", i, _rank(t)) for i, t in enumerate(operand_types))
    rhs = ", ".join(value("r", i, _rank(t)) for i, t in enumerate(result_types))
    return f"{lhs} -> {rhs}"


def _batch_spec(sharding: Any, batch_ndim: int) -> tuple[Any, ...] | None:
    """The partition spec of the batch dimensions of a named sharding, ``None`` for any other sharding."""
    if not isinstance(sharding, NamedSharding):
        return None
    spec = tuple(sharding.spec) + (None,) * batch_ndim
    return spec[:batch_ndim]


def _shardings(mesh: Any, batch: tuple[Any, ...], shapes: Sequence[Any]) -> tuple[NamedSharding, ...]:
    """Shardings of arrays that are split along their batch dimensions as ``batch`` says and whole along
    every per-sample dimension."""
    return tuple(NamedSharding(mesh, PartitionSpec(*batch, *(None,) * (len(s.shape) - len(batch))))
                 for s in shapes)


def _choose_batch_spec(mesh: Any, batch_ndim: int, candidates: Sequence[Any]) -> tuple[Any, ...]:
    """The batch dimensions' spec of the first candidate sharding that is named; replicated otherwise (a
    sharding not on a named mesh arises only without a mesh, from positional shardings)."""
    for s in candidates:
        spec = _batch_spec(getattr(s, "sharding", None), batch_ndim)
        if spec is not None:
            return spec
    return (None,) * batch_ndim


def _partition(kernel: BatchKernel, batch_ndim: int, mesh: Any, arg_shapes: Sequence[Any],
               result_shape: Sequence[Any]) -> tuple[Any, Callable[..., tuple[jax.Array, ...]], Any, Any]:
    """Every device runs the kernel on its shard: the results' batch sharding (as the partitioner has
    propagated it; the operands' own when they are the only sharded values) for every operand and result,
    the per-sample dimensions whole."""
    batch = _choose_batch_spec(mesh, batch_ndim, [*result_shape, *arg_shapes])
    arg_shardings = _shardings(mesh, batch, arg_shapes)
    result_shardings = _shardings(mesh, batch, result_shape)

    def lower(*shards: jax.Array) -> tuple[jax.Array, ...]:
        return tuple(kernel(*shards))

    return mesh, lower, result_shardings, arg_shardings


def _infer_sharding_from_operands(kernel: BatchKernel, batch_ndim: int, mesh: Any, arg_shapes: Sequence[Any],
                                  result_shape: Sequence[Any]) -> tuple[NamedSharding, ...]:
    """GSPMD's propagation: the results take the operands' batch sharding."""
    del kernel
    return _shardings(mesh, _choose_batch_spec(mesh, batch_ndim, arg_shapes), result_shape)


_partitioned.def_partition(
    partition=_partition,
    infer_sharding_from_operands=_infer_sharding_from_operands,
    sharding_rule=_sharding_rule,
)
