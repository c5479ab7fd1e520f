"""The performance goals of the benchmark (float32 unless a goal says otherwise), checked against a run's rows.

Each goal is a threshold on measured figures; the table says per robot what was measured and whether the goal
is reached. Why a goal is missed is the report's analysis, not this module's.

- forward dynamics at batch 65536: 1e9 samples/s or more for iiwa and panda;
- forward-dynamics derivatives at batch 65536: 1e8 samples/s or more for iiwa;
- forward dynamics at batch 65536: 10x MJX and 10x pure JAX or more for every robot;
- a batch-1 forward-dynamics kernel under 5 µs (kernel time from a launch-shape sweep: CUDA events, the
  tuned shape), a jitted batch-1 call under 30 µs, and jit compile under 0.5 s for every operation.

grid-rbd's forward dynamics is the faster of its two methods (ABA and M⁻¹) in every figure; a peer's is the
faster of the methods it has (MJX: M⁻¹ only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FD_OPS = ("forward_dynamics_aba", "forward_dynamics_minv")
FD_KERNELS = ("aba", "forward_dynamics")  # the entry points of the two methods
LARGE = 65536

Row = Mapping[str, Any]


def _measured(rows: Iterable[Row]) -> list[Row]:
    return [r for r in rows if "missing" not in r and r.get("samples_per_s")]


def _best_rate(rows: list[Row], robot: str, impl: str, ops: Iterable[str], batch: int, dtype: str = "float32") -> Row | None:
    """The fastest measured row of impl over ops (most samples per second)."""
    found = [r for r in rows if r["robot"] == robot and r["impl"] == impl and r["op"] in ops
             and int(r["batch"]) == batch and r["dtype"] == dtype]
    return max(found, key=lambda r: r["samples_per_s"]) if found else None


def _fmt_rate(x: float) -> str:
    return f"{x:.3g}/s"


def _fmt_us(s: float) -> str:
    return f"{s * 1e6:.1f} µs"


def _goal(goal: str, robot: str, target: str, measured: str, reached: bool | None) -> dict[str, Any]:
    return {"goal": goal, "robot": robot, "target": target, "measured": measured,
            "reached": reached}


def evaluate(rows: Iterable[Row], robots: list[str],
             kernel_batch1_us: Mapping[str, tuple[float, str]] | None = None) -> list[dict[str, Any]]:
    """One entry per goal and robot: goal, robot, target, measured (text), reached (None: not measured).

    kernel_batch1_us maps a robot to (µs, entry point) of its fastest batch-1 forward-dynamics kernel.
    """
    rows = list(rows)
    ok = _measured(rows)
    out: list[dict[str, Any]] = []

    for robot, goal, ops, target in (("iiwa", "forward dynamics, batch 65536", FD_OPS, 1e9),
                                     ("panda", "forward dynamics, batch 65536", FD_OPS, 1e9),
                                     ("iiwa", "FD derivatives, batch 65536", ("forward_dynamics_derivatives",), 1e8)):
        if robot not in robots:
            continue
        r = _best_rate(ok, robot, "grid", ops, LARGE)
        out.append(_goal(goal, robot, f"≥ {target:.0e}/s",
                         _fmt_rate(r["samples_per_s"]) if r else "not measured",
                         None if r is None else r["samples_per_s"] >= target))

    for peer, label in (("mjx", "MJX"), ("purejax", "pure JAX")):
        for robot in robots:
            g = _best_rate(ok, robot, "grid", FD_OPS, LARGE)
            p = _best_rate(ok, robot, peer, FD_OPS, LARGE)
            if g is None or p is None:
                out.append(_goal(f"forward dynamics vs {label}, batch 65536", robot, "≥ 10×", "not measured", None))
                continue
            ratio = g["samples_per_s"] / p["samples_per_s"]
            out.append(_goal(f"forward dynamics vs {label}, batch 65536", robot, "≥ 10×",
                             f"{ratio:.2f}× ({_fmt_rate(g['samples_per_s'])} vs {_fmt_rate(p['samples_per_s'])})",
                             ratio >= 10))

    for robot in robots:
        k = (kernel_batch1_us or {}).get(robot)
        out.append(_goal("batch-1 forward-dynamics kernel", robot, "< 5 µs",
                         f"{k[0]:.1f} µs ({k[1]})" if k else "not measured", None if k is None else k[0] < 5))
    for robot in robots:
        r = [x for x in ok if x["robot"] == robot and x["impl"] == "grid" and x["op"] in FD_OPS
             and int(x["batch"]) == 1 and x["dtype"] == "float32"]
        best = min(r, key=lambda x: x["median_s"]) if r else None
        out.append(_goal("jitted batch-1 forward-dynamics call", robot, "< 30 µs",
                         _fmt_us(best["median_s"]) if best else "not measured",
                         None if best is None else best["median_s"] < 30e-6))
    for robot in robots:
        c = [x["lower_s"] + x["compile_s"] for x in ok if x["robot"] == robot and x["impl"] == "grid" and "compile_s" in x]
        out.append(_goal("jit compile, slowest operation", robot, "< 0.5 s",
                         f"{max(c):.3f} s" if c else "not measured", None if not c else max(c) < 0.5))
    return out


def kernel_times_from_sweep(cells: Mapping[tuple, Mapping[tuple[int, str], float]], baked: Any,
                            model_of: Mapping[str, str]) -> dict[str, tuple[float, str]]:
    """Per benchmark robot, the fastest batch-1 float forward-dynamics kernel in a launch-shape sweep, at the
    shape the tuned table bakes (baked(model, algo, precision, batch) -> (max_threads, shape) or None; the
    sweep's fastest shape where the table does not tune the robot).

    cells is bench.launch.summary.parse's; model_of maps a benchmark robot to its URDF model name.
    """
    out: dict[str, tuple[float, str]] = {}
    for robot, model in model_of.items():
        best: tuple[float, str] | None = None
        for algo in FD_KERNELS:
            times = cells.get((model, algo, "float", 1))
            if not times:
                continue
            shape = baked(model, algo, "float", 1)
            us = times.get(shape) if shape else None
            if us is None:
                us = min(v for k, v in times.items() if k[1] != "baked")
            if best is None or us < best[0]:
                best = (us, algo)
        if best is not None:
            out[robot] = best
    return out


def markdown(goals: list[dict[str, Any]]) -> list[str]:
    mark = {True: "reached", False: "**not reached**", None: "not measured"}
    lines = ["| goal | robot | target | measured | |", "|---|---|---|---|---|"]
    for g in goals:
        lines.append(f"| {g['goal']} | {g['robot']} | {g['target']} | {g['measured']} | {mark[g['reached']]} |")
    return lines + [""]
