"""The Adam update the examples optimise with (grid_rbd.demo, grid_rbd.policy): no optimiser dependency."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

B1, B2, EPS = 0.9, 0.999, 1e-8


def init(params: Any) -> tuple[Any, Any]:
    """Zero first and second moments shaped like ``params`` (any pytree of arrays)."""
    return jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params)


def update(params: Any, grads: Any, moments: tuple[Any, Any], k: Any, step_size: Any) -> tuple[Any, tuple[Any, Any]]:
    """Step ``k`` (from 1) of Adam: the new parameters and moments."""
    m, v = moments
    m = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, m, grads)
    v = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, v, grads)

    def move(p: jax.Array, m: jax.Array, v: jax.Array) -> jax.Array:
        return p - step_size * (m / (1 - B1**k)) / (jnp.sqrt(v / (1 - B2**k)) + EPS)

    return jax.tree.map(move, params, m, v), (m, v)
