"""A jitted rollout compiles to our custom calls: the dynamics run in the generated kernels, on whatever
platform jax.devices()[0] is, and are not re-implemented by XLA."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest


@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_jitted_loop_calls_the_kernels(jax_handle, robot):
    handle = jax_handle(robot)

    def rollout(q, qd):
        def step(state, _):
            q, qd = state
            qdd = handle.forward_dynamics(q, qd, jnp.zeros_like(qd))
            m = handle.mass_matrix(q)
            return (q, qd + 1e-3 * qdd), m[..., 0, 0]

        return jax.lax.scan(step, (q, qd), None, length=5)

    q = jnp.zeros((8, handle.nq))
    if handle.floating_base:
        q = q.at[:, 6].set(1.0)
    qd = jnp.zeros((8, handle.nv))
    hlo = jax.jit(rollout).lower(q, qd).compile().as_text()
    targets = set(re.findall(r'custom_call_target="([^"]+)"', hlo))
    assert f"grid_rbd.{handle.name}.aba" in targets, f"no ABA custom call in the compiled HLO; targets: {targets}"
    assert f"grid_rbd.{handle.name}.mass_matrix" in targets, targets
    platform = jax.devices()[0].platform
    print(f"{robot} on {platform}: custom calls {sorted(targets)}")
