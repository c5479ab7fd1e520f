"""Where the public API's conventions differ from the kernels' (docs/architecture.md, "Conventions").

The kernels order a spatial vector's rows ``[ω; v]`` (angular first, as in Featherstone's algorithms); the
public API follows Pinocchio, ``[v; ω]``. The JAX handle reorders the rows of the frame Jacobians here (the
NumPy handle runs its methods), so the kernels keep their order and users see Pinocchio's.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["JACOBIAN_ROWS", "public_rows"]

# public row i is kernel row JACOBIAN_ROWS[i]: [v; ω] from [ω; v] (the permutation is its own inverse)
JACOBIAN_ROWS = (3, 4, 5, 0, 1, 2)

A = TypeVar("A")


def public_rows(x: A, axis: int) -> A:
    """``x`` (a NumPy or JAX array) with its six spatial rows on ``axis`` (negative) in ``[v; ω]`` order."""
    if axis >= 0:
        raise ValueError(f"axis counts from the end (negative), got {axis}")
    # JACOBIAN_ROWS swaps the two halves: reversing the halves of a (2, 3) view is that permutation, and
    # unlike an index list (a gather, whose transpose is a scatter) it differentiates into a reversal, which
    # JAX can type under an explicitly sharded batch.
    shape = tuple(x.shape)  # type: ignore[attr-defined]
    k = len(shape) + axis
    halves = x.reshape(shape[:k] + (2, 3) + shape[k + 1 :])  # type: ignore[attr-defined]
    return halves[(slice(None),) * k + (slice(None, None, -1),)].reshape(shape)  # type: ignore[no-any-return]
