"""Inertial parameters as inputs: ``PYTHONPATH=python python -m bench.params --robots-dir build/gpu [--robots iiwa]``.

For every robot and batch (default 1 and 65536), the jitted time per call of

* the joint-torque regressor ``Y(q, qd, qdd)``;
* inverse dynamics, the mass matrix and forward dynamics with the URDF's inertial parameters (the kernels
  with the parameters compiled in) and with ``params=`` given per call (the regressor times the parameters;
  NV regressor samples for the mass matrix; NV + 1 and a solve for forward dynamics),

timed in turns call by call so that drift reaches every variant alike; each cell is the median of ``--reps``
synchronised calls after a warm-up. Prints a Markdown table (time per call, samples per second, and the
cost of ``params=`` as its time over the URDF-constant call's) and writes JSON (``--out``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from bench.run import environment, robot_dirs


def _variants(robot: Any, params: Any) -> dict[str, tuple[Callable[..., Any], tuple[str, ...]]]:
    """Name → (function, the names of its arguments)."""
    return {
        "joint_torque_regressor": (robot.joint_torque_regressor, ("q", "qd", "qdd")),
        "inverse_dynamics": (robot.inverse_dynamics, ("q", "qd", "qdd")),
        "inverse_dynamics+params": (lambda q, qd, qdd: robot.inverse_dynamics(q, qd, qdd, params=params),
                                    ("q", "qd", "qdd")),
        "mass_matrix": (robot.mass_matrix, ("q",)),
        "mass_matrix+params": (lambda q: robot.mass_matrix(q, params=params), ("q",)),
        "forward_dynamics": (robot.forward_dynamics, ("q", "qd", "qdd")),
        "forward_dynamics+params": (lambda q, qd, tau: robot.forward_dynamics(q, qd, tau, params=params),
                                    ("q", "qd", "qdd")),
    }


def measure(build_dir: Path, batch: int, dtype: str, reps: int) -> list[dict[str, Any]]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from grid_rbd.jax import JaxRobotHandle

    robot = JaxRobotHandle(str(build_dir))
    key = jax.random.key(0)
    q = robot.random_configuration(key, (batch,), dtype=dtype)
    rng = np.random.default_rng(0)
    args = {"q": q, "qd": jnp.asarray(rng.normal(size=(batch, robot.nv)), dtype),
            "qdd": jnp.asarray(rng.normal(size=(batch, robot.nv)), dtype)}
    params = jnp.asarray(robot.inertial_parameters(), dtype)
    calls = []
    for name, (fn, names) in _variants(robot, params).items():
        compiled = jax.jit(fn).lower(*[args[a] for a in names]).compile()
        inputs = [args[a] for a in names]
        for _ in range(3):
            jax.block_until_ready(compiled(*inputs))
        calls.append((name, compiled, inputs))
    times: dict[str, list[float]] = {name: [] for name, _, _ in calls}
    for _ in range(reps):
        for name, compiled, inputs in calls:
            start = time.perf_counter()
            jax.block_until_ready(compiled(*inputs))
            times[name].append(time.perf_counter() - start)
    return [{"robot": robot.name, "variant": name, "batch": batch, "dtype": dtype,
             "median_s": statistics.median(t), "min_s": min(t), "samples_per_s": batch / statistics.median(t)}
            for name, t in times.items()]


def table(rows: list[dict[str, Any]]) -> str:
    cells = {(r["robot"], r["batch"], r["variant"]): r for r in rows}
    lines = ["| robot | batch | operation | time per call | samples/s | with params= | samples/s | cost |",
             "|---|---|---|---|---|---|---|---|"]
    for (robot, batch, variant), r in cells.items():
        if variant == "joint_torque_regressor":
            lines.append(f"| {robot} | {batch} | regressor Y | {r['median_s'] * 1e6:.1f} µs | "
                         f"{r['samples_per_s']:.3g} | | | |")
        elif not variant.endswith("+params"):
            p = cells.get((robot, batch, variant + "+params"))
            with_params = (f"{p['median_s'] * 1e6:.1f} µs | {p['samples_per_s']:.3g} | "
                           f"{p['median_s'] / r['median_s']:.2f}×") if p else "— | — | —"
            lines.append(f"| {robot} | {batch} | {variant} | {r['median_s'] * 1e6:.1f} µs | "
                         f"{r['samples_per_s']:.3g} | {with_params} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots-dir", default="build/bench", help="folder of built robots (default build/bench)")
    p.add_argument("--robots", nargs="+", default=["iiwa"])
    p.add_argument("--batches", nargs="+", type=int, default=[1, 65536])
    p.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--out", help="JSON file")
    args = p.parse_args()
    if args.dtype == "float64":
        import jax

        jax.config.update("jax_enable_x64", True)
    rows = []
    for _, build_dir in robot_dirs(Path(args.robots_dir), args.robots):
        for batch in args.batches:
            rows += measure(build_dir, batch, args.dtype, args.reps)
    print(table(rows))
    if args.out:
        Path(args.out).write_text(json.dumps({"env": environment(None), "rows": rows}, indent=1))
        print(args.out)


if __name__ == "__main__":
    main()
