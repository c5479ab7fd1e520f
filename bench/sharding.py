"""Weak scaling over devices: ``PYTHONPATH=python python -m bench.sharding --robot iiwa [--per-device 65536]``.

For 1, 2, 4, ... devices of this process (all of them last), a mesh over those devices and a batch of
``--per-device`` samples on each, sharded along the batch: the jitted time per call of ``x + 1`` on 8
floats per device (the dispatch floor of the mesh), forward dynamics
(ABA), the mass matrix, the forward-dynamics derivatives and a per-sample gradient step
(``jit(vmap(grad))`` of ``|qdd|²`` with respect to the efforts), the last also with the batch mean that
crosses devices (an all-reduce). Each cell is the median of ``--reps`` synchronised calls after a warm-up,
the modes of one device count taking turns call by call,
with the collectives of its compiled HLO; per-device throughput over the one-device figure is the scaling
efficiency, which docs/sharding.md models. On one device every operation is also timed unsharded, two ways:
the same code on arrays without a sharding (``unsharded``), and the kernels called straight through their
XLA FFI custom call, without the partitioning wrapper (``direct``), so the wrapper's cost is measured. Under ``--distributed`` (jax.distributed, one process per GPU on
several hosts) only the mesh of all devices is timed. Writes JSON (``--out``) and prints a Markdown table.

On a CPU, ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` gives eight host devices (a smoke run: they
share the host's cores, so the figures say nothing about GPUs).
"""

from __future__ import annotations

import argparse
import contextlib
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


def _time_interleaved(calls: list[tuple[Callable[..., Any], list[Any]]], reps: int) -> list[tuple[float, float]]:
    """Median and minimum seconds per synchronised call of each (function, arguments), after three warm-up
    calls each. The calls take turns, one call each per round, so a drift of clocks or host load during the
    measurement reaches every one of them alike."""
    import jax

    for f, args in calls:
        for _ in range(3):
            jax.block_until_ready(f(*args))
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(reps):
        for k, (f, args) in enumerate(calls):
            start = time.perf_counter()
            jax.block_until_ready(f(*args))
            times[k].append(time.perf_counter() - start)
    return [(statistics.median(t), min(t)) for t in times]


@contextlib.contextmanager
def _direct_kernel_calls() -> Any:
    """Kernel calls straight through their custom call, without :mod:`grid_rbd._sharding`'s partitioning
    wrapper (the calls as they lowered before it), for the one-device baseline."""
    import jax

    from grid_rbd import _sharding

    wrapped = _sharding.batch_partitioned
    _sharding.batch_partitioned = lambda kernel, operands, batch_ndim: list(kernel(*operands))
    jax.clear_caches()
    try:
        yield
    finally:
        _sharding.batch_partitioned = wrapped
        jax.clear_caches()


def _compile(fn: Callable[..., Any], args: list[Any]) -> tuple[float, Any, str]:
    """Compile seconds, the compiled ``jit(fn)`` and its HLO."""
    import jax

    start = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    return time.perf_counter() - start, compiled, compiled.as_text()


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
        modes = [("sharded", arrays, contextlib.nullcontext)]
        if n == 1 and jax.process_count() == 1:
            plain = {k: jax.device_put(np.asarray(v), jax.devices()[0]) for k, v in arrays.items()}
            modes += [("unsharded", plain, contextlib.nullcontext), ("direct", plain, _direct_kernel_calls)]
        # Every mode's executables first (the direct mode's only inside its context), then each operation's
        # modes timed in turns.
        compiled: dict[tuple[str, str], tuple[float, Any, list[Any], str]] = {}
        for mode, inputs, context in modes:
            with context():
                for op in ops:
                    names, fn = table[op]
                    args = [inputs[a] for a in names]
                    compile_s, executable, hlo = _compile(fn, args)
                    compiled[(mode, op)] = (compile_s, executable, args, hlo)
        for op in ops:
            timed = _time_interleaved([(compiled[(m, op)][1], compiled[(m, op)][2]) for m, _, _ in modes], reps)
            for (mode, _, _), (median, best) in zip(modes, timed):
                compile_s, _, _, hlo = compiled[(mode, op)]
                per = 8 if op == "dispatch_floor" else per_device
                rows.append({
                    "robot": robot.name, "op": op, "dtype": dtype, "devices": n, "mode": mode,
                    "per_device": per, "batch": n * per, "median_s": median, "min_s": best,
                    "compile_s": compile_s, "samples_per_s": n * per / median,
                    "per_device_samples_per_s": per / median,
                    "collectives": sorted({c for c in COLLECTIVES if re.search(rf"\b{c}(-start)?\(", hlo)}),
                })
                print(f"{robot.name} {op} {dtype} on {n} device(s), {mode}: {median * 1e6:.1f} µs, "
                      f"{n * per / median:.3g} samples/s", flush=True)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    sharded = [r for r in rows if r.get("mode", "sharded") == "sharded"]
    one = {r["op"]: r["per_device_samples_per_s"] for r in sharded if r["devices"] == 1}
    lines = ["| operation | devices | batch per device | time per call | samples/s | per device | efficiency "
             "| collectives |", "|---|---|---|---|---|---|---|---|"]
    for r in sharded:
        eff = f"{r['per_device_samples_per_s'] / one[r['op']]:.0%}" if r["op"] in one else "—"
        lines.append(f"| {r['op']} | {r['devices']} | {r['per_device']} | {r['median_s'] * 1e6:.1f} µs "
                     f"| {r['samples_per_s']:.3g} | {r['per_device_samples_per_s']:.3g} | {eff} "
                     f"| {', '.join(r['collectives']) or 'none'} |")
    baseline = {(r["op"], r["mode"]): r for r in rows if r.get("mode") in ("unsharded", "direct")}
    if baseline:
        lines += ["", "One device: the sharded call against the unsharded ones (time per call; ratio = the "
                  "baseline's time over the sharded call's, ≥ 1 means no slowdown)", "",
                  "| operation | sharded | unsharded | ratio | direct custom call | ratio |", "|---|---|---|---|---|---|"]
        for r in sharded:
            if r["devices"] != 1:
                continue
            cells = []
            for mode in ("unsharded", "direct"):
                b = baseline.get((r["op"], mode))
                cells += [f"{b['median_s'] * 1e6:.1f} µs", f"{b['median_s'] / r['median_s']:.2f}"] if b else ["—", "—"]
            lines.append(f"| {r['op']} | {r['median_s'] * 1e6:.1f} µs | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="iiwa", help="built robot name or build directory")
    p.add_argument("--per-device", type=int, default=65536, help="samples per device (default 65536)")
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--reps", type=int, default=200)
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
