"""Where a rollout gradient step goes: ``PYTHONPATH=python python -m bench.rollout_parts BUILD_DIR BATCH``.

Times, for a 50-step semi-implicit Euler rollout in float32 (median of 20 calls after the first): the forward
rollout alone, ``forward_dynamics_derivatives`` over batch × 50 samples (what reverse mode by the Jacobians
forms), and ``jax.grad`` of a loss on the last state by the adjoint kernel and by the Jacobians.
"""

from __future__ import annotations

import statistics
import sys
import time


def _median_ms(f, *args, reps: int = 20) -> float:  # noqa: ANN001
    import jax

    jax.block_until_ready(f(*args))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main(argv: list[str]) -> int:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from grid_rbd.jax import JaxRobotHandle

    build_dir, batch, steps, dt = argv[0], int(argv[1]), 50, 0.01
    h = JaxRobotHandle(build_dir)
    q0 = h.random_configuration(jax.random.PRNGKey(0), (batch,), dtype=jnp.float32)
    rng = np.random.default_rng(0)
    qd0 = jnp.asarray(rng.normal(0, 0.1, (batch, h.nv)), jnp.float32)
    u = jnp.asarray(rng.normal(0, 1, (batch, steps, h.nv)), jnp.float32)
    qs = jnp.broadcast_to(q0[:, None], (batch, steps, h.nq))
    qds = jnp.broadcast_to(qd0[:, None], (batch, steps, h.nv))

    def grad(adjoint: str):  # noqa: ANN202
        def loss(u):  # noqa: ANN001, ANN202
            out = h.rollout(q0, qd0, u, dt, adjoint=adjoint)
            return jnp.sum(out.q[:, -1] ** 2) + jnp.sum(out.qd[:, -1] ** 2)
        return jax.jit(jax.grad(loss))

    rows = [("forward rollout", _median_ms(jax.jit(lambda u: h.rollout(q0, qd0, u, dt).qd[:, -1]), u)),
            (f"derivatives x{batch * steps}", _median_ms(jax.jit(h.forward_dynamics_derivatives), qs, qds, u)),
            ("grad kernel adjoint", _median_ms(grad("kernel"), u)),
            ("grad jacobians adjoint", _median_ms(grad("jacobians"), u))]
    for name, ms in rows:
        print(f"{build_dir} B={batch} {name:28s} {ms:8.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
