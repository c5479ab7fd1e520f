"""Weak scaling over devices: ``PYTHONPATH=python python -m bench.sharding --robot iiwa [--per-device 65536]``.

For 1, 2, 4, ... devices of this process (all of them last), a mesh over those devices and a batch of
``--per-device`` samples on each, sharded along the batch: the jitted time per call of ``x + 1`` on 8
floats per device (the dispatch floor of the mesh), forward dynamics
(ABA), the mass matrix, the forward-dynamics derivatives and a per-sample gradient step
(``jit(vmap(grad))`` of ``|qdd|²`` with respect to the efforts), the last also with the batch mean that
crosses devices (an all-reduce). Each cell is the median of ``--reps`` synchronised calls after a warm-up,
with the collectives of its compiled HLO; per-device throughput over the one-device figure is the scaling
efficiency, which docs/sharding.md models. Under ``--distributed`` (jax.distributed, one process per GPU on
several hosts) only the mesh of all devices is timed. Writes JSON (``--out``) and prints a Markdown table.

On a CPU, ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` gives eight host devices (a smoke run: they
share the host's cores, so the figures say nothing about GPUs).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OPS = ("dispatch_floor", "forward_dynamics_aba", "mass_matrix", "forward_dynamics_derivatives", "grad_step",
       "grad_step_mean")
COLLECTIVES = ("all-gather", "all-reduce", "all-to-all", "collective-permute", "reduce-scatter")


def _ops(robot: Any) -> dict[str, tuple[tuple[str, ...], Callable[..., Any]]]:
    import jax
    import jax.numpy as jnp

    def sample_loss(q: Any, qd: Any, tau: Any) -> Any:
        qdd = robot.forward_dynamics(q, qd, tau)
        return jnp.sum(qdd * qdd)

    per_sample = jax.vmap(jax.value_and_grad(sample_loss, argnums=2))

    def grad_step(q: Any, qd: Any, tau: Any) -> Any:
        return per_sample(q, qd, tau)[1]

    def grad_step_mean(q: Any, qd: Any, tau: Any) -> Any:
        values, grads = per_sample(q, qd, tau)
        return jnp.mean(values), grads

    return {
        "dispatch_floor": (("floor",), lambda x: x + 1),
        "forward_dynamics_aba": (("q", "qd", "tau"), robot.forward_dynamics),
        "mass_matrix": (("q",), robot.mass_matrix),
        "forward_dynamics_derivatives": (("q", "qd", "tau"), robot.forward_dynamics_derivatives),
        "grad_step": (("q", "qd", "tau"), grad_step),
        "grad_step_mean": (("q", "qd", "tau"), grad_step_mean),
    }


def _time(f: Callable[..., Any], args: list[Any], reps: int) -> tuple[float, float]:
    """Median and minimum seconds per synchronised call, after three warm-up calls."""
    import jax

    for _ in range(3):
        jax.block_until_ready(f(*args))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def run(robot_name: str, per_device: int, dtype: str, reps: int, ops: list[str]) -> list[dict[str, Any]]:
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    from grid_rbd.jax import JaxRobotHandle

    if dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    robot = JaxRobotHandle(robot_name)
    table = _ops(robot)
    total = jax.device_count()
    powers = {2**k for k in range(total.bit_length()) if 2**k <= total}
    counts = [total] if jax.process_count() > 1 else sorted(powers | {total})
    rows: list[dict[str, Any]] = []
    for n in counts:
        mesh = Mesh(np.array(jax.devices()[:n]), ("batch",))
        sharding = NamedSharding(mesh, PartitionSpec("batch"))
        batch = n * per_device

        def draw(key: Any) -> dict[str, Any]:
            kq, kv, ku = jax.random.split(key, 3)
            q = robot.random_configuration(kq, (batch,), dtype)
            return {"q": q, "qd": jax.random.normal(kv, (batch, robot.nv), q.dtype),
                    "tau": 10.0 * jax.random.normal(ku, (batch, robot.nv), q.dtype),
                    "floor": jax.numpy.zeros((8 * n,), q.dtype)}

        arrays = jax.jit(draw, out_shardings=sharding)(jax.random.key(0))
        for op in ops:
            names, fn = table[op]
            args = [arrays[a] for a in names]
            start = time.perf_counter()
            compiled = jax.jit(fn).lower(*args).compile()
            per = 8 if op == "dispatch_floor" else per_device
            compile_s = time.perf_counter() - start
            hlo = compiled.as_text()
            median, best = _time(compiled, args, reps)
            rows.append({
                "robot": robot.name, "op": op, "dtype": dtype, "devices": n, "per_device": per,
                "batch": n * per, "median_s": median, "min_s": best, "compile_s": compile_s,
                "samples_per_s": n * per / median, "per_device_samples_per_s": per / median,
                "collectives": sorted({c for c in COLLECTIVES if re.search(rf"\b{c}(-start)?\(", hlo)}),
            })
            print(f"{robot.name} {op} {dtype} on {n} device(s): {median * 1e6:.1f} µs, "
                  f"{n * per / median:.3g} samples/s", flush=True)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    one = {(r["op"]): r["per_device_samples_per_s"] for r in rows if r["devices"] == 1}
    lines = ["| operation | devices | batch per device | time per call | samples/s | per device | efficiency "
             "| collectives |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        eff = f"{r['per_device_samples_per_s'] / one[r['op']]:.0%}" if r["op"] in one else "—"
        lines.append(f"| {r['op']} | {r['devices']} | {r['per_device']} | {r['median_s'] * 1e6:.1f} µs "
                     f"| {r['samples_per_s']:.3g} | {r['per_device_samples_per_s']:.3g} | {eff} "
                     f"| {', '.join(r['collectives']) or 'none'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="iiwa", help="built robot name or build directory")
    p.add_argument("--per-device", type=int, default=65536, help="samples per device (default 65536)")
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--ops", nargs="+", default=list(OPS), choices=OPS)
    p.add_argument("--distributed", action="store_true", help="jax.distributed.initialize() first")
    p.add_argument("--out", type=Path, help="JSON results file")
    args = p.parse_args(argv)
    import jax

    if args.distributed:
        jax.distributed.initialize()
    rows = run(args.robot, args.per_device, args.dtype, args.reps, args.ops)
    if jax.process_index() == 0:
        from bench.run import environment

        print(markdown(rows))
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            meta = {"env": environment(os.environ.get("GRID_COMMIT")), "processes": jax.process_count()}
            args.out.write_text(json.dumps({"meta": meta,
                                            "rows": rows}, indent=1))
            print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
