"""Gradient steps of a rollout loss: ``PYTHONPATH=python python -m bench.rollout [--robots panda go2] [--steps 50]``.

Times ``jax.jit(jax.grad(loss))`` of a loss on a T-step semi-implicit Euler rollout (the last state's squared
norm plus the efforts' squared norm) with respect to the efforts ``u`` ``(batch, T, nv)``, in the same run for

* ``grid``: ``JaxRobotHandle.rollout`` as a user calls it, the fused kernels (one call for the T steps; reverse
  mode by ``adjoint="auto"``, under this scheme every step's Jacobians at once: one
  ``forward_dynamics_derivatives`` call, then one call of the cotangents' recursion);
* ``grid_kernel``: the fused rollout whose reverse mode is the adjoint kernel (``adjoint="kernel"``: each
  sample's steps backwards on one thread);
* ``grid_jacobians``: ``adjoint="jacobians"`` named explicitly;
* ``grid_steps``: the same with ``fused=False``, a scan of single steps (T forward-dynamics calls and T
  derivative calls);
* ``purejax``: bench/peers/purejax.py's ABA under the same scheme and manifold integration
  (``grid_rbd.configuration.integrate``), differentiated by JAX;
* ``mjx``: ``jax.grad`` through ``mjx.step`` (MuJoCo's Euler integrator, which is this semi-implicit scheme;
  constraints disabled), where mujoco-mjx is installed. A free-flyer's coordinates differ in MuJoCo, so its
  gradient is not compared for floating-base robots.

Reports the first call (compile included), the median of the following ones, the device's peak memory where
JAX reports it (and, with ``--leak-calls N``, the memory in use before and after N more calls), and how far
each gradient is from grid-rbd's (the same loss, so it must agree to the precision's rounding). Writes JSON
next to the other results (``--out``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bench.run import environment, robot_dirs

IMPLS = ("grid", "grid_kernel", "grid_jacobians", "grid_steps", "purejax", "mjx")
DEFAULT_IMPLS = ("grid", "grid_kernel", "grid_steps", "purejax")


def _loss_grad(impl: str, build_dir: Path, dt: float, dtype):  # noqa: ANN001, ANN202
    """The handle, the jitted gradient of the loss, and a function taking grid-rbd's (q0, qd0, u) to the
    implementation's inputs (MuJoCo's coordinates for MJX)."""
    import jax
    import jax.numpy as jnp

    from grid_rbd import configuration
    from grid_rbd.jax import JaxRobotHandle

    handle = JaxRobotHandle(str(build_dir))
    convert = lambda q0, qd0, u: (q0, qd0, u)  # noqa: E731
    if impl in ("grid", "grid_kernel", "grid_jacobians", "grid_steps"):
        how = {"grid": {"fused": True}, "grid_kernel": {"fused": True, "adjoint": "kernel"},
               "grid_jacobians": {"fused": True, "adjoint": "jacobians"}, "grid_steps": {"fused": False}}[impl]

        def final_state(q0, qd0, u):  # noqa: ANN001, ANN202
            out = handle.rollout(q0, qd0, u, dt, **how)
            return out.q[:, -1], out.qd[:, -1]
    elif impl == "mjx":
        import numpy as np

        from bench.peers.mjx import MjxPeer, to_mujoco

        peer = MjxPeer(build_dir)
        peer.mj_model.opt.timestep = dt
        mjx = peer._mjx
        m = peer._device_model(dtype)
        d0 = peer._data(m, np.dtype(dtype))

        def convert(q0, qd0, u):  # noqa: ANN001, ANN202
            qpos, qvel, _, _ = to_mujoco(peer.model, np.asarray(q0, np.float64), np.asarray(qd0, np.float64))
            flat = np.asarray(u, np.float64).reshape(-1, u.shape[-1])
            qfrc = to_mujoco(peer.model, np.repeat(np.asarray(q0, np.float64), u.shape[1], axis=0),
                             np.zeros_like(flat), force=flat)[3].reshape(u.shape)
            return tuple(jnp.asarray(x, dtype) for x in (qpos, qvel, qfrc))

        def one(qpos, qvel, us):  # noqa: ANN001, ANN202
            @jax.checkpoint
            def advance(d, u_t):  # noqa: ANN001, ANN202
                return mjx.step(m, d.replace(qfrc_applied=u_t)), None

            d, _ = jax.lax.scan(advance, d0.replace(qpos=qpos, qvel=qvel), us)
            return d.qpos, d.qvel

        final_state = jax.vmap(one)
    else:
        from bench.peers.purejax import PureJaxRobot

        robot = PureJaxRobot(json.loads((build_dir / "model.json").read_text()))
        aba = jax.vmap(robot.aba)
        joints = handle._robot.metadata.joints

        def final_state(q0, qd0, u):  # noqa: ANN001, ANN202
            @jax.checkpoint
            def advance(state, u_t):  # noqa: ANN001, ANN202
                q, qd = state
                qd = qd + dt * aba(q, qd, u_t)
                return (configuration.integrate(joints, q, dt * qd, jnp), qd), None

            (q, qd), _ = jax.lax.scan(advance, (q0, qd0), jnp.moveaxis(u, 1, 0))
            return q, qd

    def loss(u, q0, qd0):  # noqa: ANN001, ANN202
        q, qd = final_state(q0, qd0, u)
        return jnp.sum(q * q) + jnp.sum(qd * qd) + 1e-3 * jnp.sum(u * u)

    return handle, jax.jit(jax.grad(loss)), convert


def measure(impl: str, name: str, build_dir: Path, opts) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    dtype = jnp.dtype(opts.dtype)
    handle, grad, convert = _loss_grad(impl, build_dir, opts.dt, dtype)
    key = jax.random.PRNGKey(0)
    q0 = handle.random_configuration(key, (opts.batch,), dtype=dtype)
    rng = np.random.default_rng(0)
    qd0 = jnp.asarray(rng.normal(0.0, 0.1, (opts.batch, handle.nv)), dtype)
    u = jnp.asarray(rng.normal(0.0, 1.0, (opts.batch, opts.steps, handle.nv)), dtype)
    q0, qd0, u = convert(q0, qd0, u)
    start = time.perf_counter()
    g = jax.block_until_ready(grad(u, q0, qd0))
    first = time.perf_counter() - start
    times = []
    for _ in range(opts.reps):
        start = time.perf_counter()
        jax.block_until_ready(grad(u, q0, qd0))
        times.append(time.perf_counter() - start)
    stats = jax.devices()[0].memory_stats() or {}
    in_use = stats.get("bytes_in_use")
    # memory held after many more calls: it must not grow with them
    for _ in range(opts.leak_calls):
        g = grad(u, q0, qd0)
    jax.block_until_ready(g)
    later = (jax.devices()[0].memory_stats() or {}).get("bytes_in_use")
    return {"impl": impl, "robot": name, "floating_base": handle.floating_base, "batch": opts.batch,
            "steps": opts.steps, "dtype": opts.dtype,
            "first_call_s": first, "median_ms": 1e3 * statistics.median(times), "min_ms": 1e3 * min(times),
            "reps": opts.reps, "peak_bytes": stats.get("peak_bytes_in_use"), "bytes_in_use": in_use,
            "bytes_in_use_after_more_calls": later, "more_calls": opts.leak_calls, "grad": np.asarray(g, np.float64)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots-dir", default="build/bench", help="folder of built robots (default build/bench)")
    p.add_argument("--robots", nargs="+", default=["panda", "go2", "g1_29dof"])
    p.add_argument("--impls", nargs="+", default=list(DEFAULT_IMPLS), choices=IMPLS,
                   help=f"default {' '.join(DEFAULT_IMPLS)}; mjx needs mujoco-mjx")
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--dt", type=float, default=0.01)
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--leak-calls", type=int, default=0,
                   help="calls after the timing, then the device memory in use again (e.g. 1000)")
    p.add_argument("--out", help="JSON file (default bench/results/<date>-<device>-rollout.json)")
    opts = p.parse_args(argv)
    import jax
    import numpy as np

    if opts.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    env = environment(None)
    rows = []
    print(f"rollout gradient: batch {opts.batch}, {opts.steps} steps, {opts.dtype}, device {jax.devices()[0]}")
    print(f"{'impl':10} {'robot':10} {'first call [s]':>15} {'median [ms]':>12} {'peak [MiB]':>11} {'vs grid':>9}")
    for name, build_dir in robot_dirs(Path(opts.robots_dir), opts.robots):
        reference = None
        for impl in opts.impls:
            try:
                row = measure(impl, name, build_dir, opts)
            except Exception as e:  # noqa: BLE001 - a peer that fails is reported, the others still run
                rows.append({"impl": impl, "robot": name, "batch": opts.batch, "steps": opts.steps,
                             "dtype": opts.dtype, "error": f"{type(e).__name__}: {e}"[:2000]})
                print(f"{impl:10} {name:10} failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
                continue
            g = row.pop("grad")
            if impl == "grid":
                reference = g
            comparable = reference is not None and not (impl == "mjx" and row["floating_base"])
            row["max_rel_diff_vs_grid"] = (float(np.abs(g - reference).max() / max(np.abs(reference).max(), 1e-30))
                                           if comparable else None)
            rows.append(row)
            peak = f"{row['peak_bytes'] / 2**20:.0f}" if row["peak_bytes"] else "—"
            diff = f"{row['max_rel_diff_vs_grid']:.1e}" if row["max_rel_diff_vs_grid"] is not None else "—"
            print(f"{impl:10} {name:10} {row['first_call_s']:15.2f} {row['median_ms']:12.2f} {peak:>11} {diff:>9}",
                  flush=True)
    out = Path(opts.out) if opts.out else Path("bench/results") / f"{env['date'][:10]}-rollout.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"env": env, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
