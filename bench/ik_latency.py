"""The inverse-kinematics accuracy-latency table: restarts × iterations, all goals in one call and one goal per call.

Run: ``python -m bench.ik_latency BUILD_DIR GOALS [--device auto|cpu|gpu] [--configs 16x24x30 64x48x60 ...]
[--single N] [--out JSON] [--solutions NPZ]`` with ``python/`` importable. A config ``RxCxL`` is R restarts
per goal, C coordinate-descent moves per restart and L Levenberg-Marquardt iterations per polished restart
(half the restarts are polished). For each config it times

* every goal of the file in one call (the median of ``--reps`` calls after one untimed call), per goal;
* the first ``--single`` goals one call each (after one untimed call), the median and 90th percentile per call;

and counts the goals whose best returned configuration is within 1 mm and 1 degree. ``--solutions`` saves every
config's returned configurations and reported errors, of the all-goals call and of the one-goal calls, which
``python -m bench.ik_latency --verify NPZ URDF`` checks by Pinocchio's forward kinematics (on a machine that has
Pinocchio).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.ik import default_frame, load_goals
from bench.run import environment
from grid_rbd import ik

DEFAULT_CONFIGS = ("16x24x30", "32x24x30", "64x24x30", "16x48x60", "32x48x60", "64x48x60", "128x48x60")
POS_TOL, ANG_TOL = 1e-3, math.radians(1.0)


def parse_config(text: str) -> tuple[int, int, int]:
    """``RxCxL`` → (restarts, ccd_iters, lm_iters)."""
    try:
        r, c, lm = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"config {text!r}: want RESTARTSxCCDxLM, e.g. 64x48x60") from None
    if r < 1 or c < 0 or lm < 0:
        raise argparse.ArgumentTypeError(f"config {text!r}: restarts >= 1, iterations >= 0")
    return r, c, lm


def solved(result: ik.IKResult) -> np.ndarray:
    """(G,): the best returned configuration is within 1 mm and 1 degree."""
    return (result.position_error[:, 0] <= POS_TOL) & (result.orientation_error[:, 0] <= ANG_TOL)


def run_config(build_dir: Path, pos: np.ndarray, quat: np.ndarray, frame: str, device: str,
               config: tuple[int, int, int], single: int, reps: int
               ) -> tuple[dict[str, Any], ik.IKResult, ik.IKResult]:
    """The config's table row, the all-goals call's result and the one-goal calls' results stacked."""
    restarts, ccd, lm = config

    def solve(p: np.ndarray, q: np.ndarray) -> ik.IKResult:
        return ik.solve(build_dir, p, q, frame=frame, batch=restarts, ccd_iters=ccd, lm_iters=lm,
                        num_solutions=4, seed=0, device=device)

    all_goals = solve(pos, quat)  # untimed: loads the library, sizes the device buffers
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        all_goals = solve(pos, quat)
        times.append(time.perf_counter() - start)
    n = pos.shape[0]
    m = min(single, n)
    solve(pos[:1], quat[:1])
    per_call, singles = [], []
    for g in range(m):
        start = time.perf_counter()
        singles.append(solve(pos[g:g + 1], quat[g:g + 1]))
        per_call.append(time.perf_counter() - start)
    one_per_call = dataclasses.replace(
        singles[0], **{f: np.concatenate([getattr(r, f) for r in singles])
                       for f in ("q", "position_error", "orientation_error", "num_distinct")})
    single_ok = int(solved(one_per_call).sum())
    row = {
        "restarts": restarts, "ccd_iters": ccd, "lm_iters": lm, "device": all_goals.device, "goals": n,
        "all_goals_call_s": statistics.median(times), "all_goals_ms_per_goal": statistics.median(times) / n * 1e3,
        "all_goals_solved": int(solved(all_goals).sum()),
        "distinct_mean": float(all_goals.num_distinct.mean()),
        "single_goals": m, "single_median_ms": statistics.median(per_call) * 1e3,
        "single_p90_ms": float(np.percentile(per_call, 90)) * 1e3, "single_solved": single_ok,
    }
    return row, all_goals, one_per_call


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| restarts × CCD × LM | all goals: ms per goal | solved | distinct per goal | one goal per call: "
             "median (p90) ms | solved |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['restarts']} × {r['ccd_iters']} × {r['lm_iters']} | {r['all_goals_ms_per_goal']:.3f} "
            f"| {r['all_goals_solved']}/{r['goals']} | {r['distinct_mean']:.1f} | {r['single_median_ms']:.3f} "
            f"({r['single_p90_ms']:.3f}) | {r['single_solved']}/{r['single_goals']} |")
    return "\n".join(lines)


def verify(npz: Path, urdf: Path) -> int:
    """Pinocchio's frame pose of every saved configuration against the target: the reported errors must agree."""
    import pinocchio as pin

    data = np.load(npz)
    model = pin.buildModelFromUrdf(str(urdf))
    pdata = model.createData()
    fid = model.getFrameId(str(data["frame"]))
    pos, quat = data["pos"], data["quat"]
    worst = 0.0
    # q_<config>: the all-goals call; single_q_<config>: one call per goal for the file's first goals
    for key in sorted(k for k in data.files if k.startswith(("q_", "single_q_"))):
        name = key.replace("q_", "", 1)
        q, perr, aerr = data[key], data[key.replace("q_", "perr_", 1)], data[key.replace("q_", "aerr_", 1)]
        checked = solved_pin = 0
        for g in range(q.shape[0]):
            target = pin.Quaternion(quat[g, 3], *quat[g, :3]).normalized().toRotationMatrix()
            for s in range(q.shape[1]):
                if not np.all(np.isfinite(q[g, s])):
                    continue
                if np.any(q[g, s] < model.lowerPositionLimit - 1e-12) or np.any(q[g, s] > model.upperPositionLimit + 1e-12):
                    print(f"{name}: goal {g} solution {s} leaves the joint limits")
                    return 1
                pin.framesForwardKinematics(model, pdata, q[g, s])
                pose = pdata.oMf[fid]
                p_err = float(np.linalg.norm(pose.translation - pos[g]))
                a_err = float(np.linalg.norm(pin.log3(pose.rotation @ target.T)))
                worst = max(worst, abs(p_err - perr[g, s]), abs(a_err - aerr[g, s]))
                checked += 1
                solved_pin += int(s == 0 and p_err <= POS_TOL and a_err <= ANG_TOL)
        print(f"{name}: {checked} solutions checked by Pinocchio, best within 1 mm and 1 deg for "
              f"{solved_pin}/{q.shape[0]} goals")
    print(f"largest difference between reported and Pinocchio errors: {worst:.3g}")
    return 0 if worst < 1e-9 else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--verify"]:
        if len(argv) != 3:
            raise SystemExit("usage: python -m bench.ik_latency --verify NPZ URDF")
        return verify(Path(argv[1]), Path(argv[2]))
    ap = argparse.ArgumentParser(prog="python -m bench.ik_latency", description=__doc__.splitlines()[0])
    ap.add_argument("build_dir", type=Path)
    ap.add_argument("goals", type=Path)
    ap.add_argument("--frame", default="")
    ap.add_argument("--device", choices=ik.DEVICES, default="auto")
    ap.add_argument("--configs", nargs="+", type=parse_config, default=[parse_config(c) for c in DEFAULT_CONFIGS])
    ap.add_argument("--single", type=int, default=200, help="goals solved one per call (the first N)")
    ap.add_argument("--reps", type=int, default=3, help="timed all-goals calls per config")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N goals")
    ap.add_argument("--out", type=Path, help="JSON file")
    ap.add_argument("--solutions", type=Path, help="NPZ of the all-goals calls' configurations and errors")
    args = ap.parse_args(argv)
    pos, quat, extra = load_goals(args.goals)
    if args.limit > 0:
        pos, quat = pos[:args.limit], quat[:args.limit]
    build_dir = args.build_dir.resolve()
    frame = args.frame or str(extra.get("frame") or default_frame(build_dir))
    rows, saved = [], {"frame": np.array(frame), "pos": pos, "quat": quat / np.linalg.norm(quat, axis=1, keepdims=True)}
    for config in args.configs:
        row, result, one_per_call = run_config(build_dir, pos, quat, frame, args.device, config, args.single,
                                               args.reps)
        rows.append(row)
        name = "x".join(map(str, config))
        for prefix, r in (("", result), ("single_", one_per_call)):
            saved.update({f"{prefix}q_{name}": r.q, f"{prefix}perr_{name}": r.position_error,
                          f"{prefix}aerr_{name}": r.orientation_error})
        print(f"{name}: {row['all_goals_ms_per_goal']:.3f} ms per goal in one call, {row['all_goals_solved']}/{row['goals']}"
              f" solved; one per call median {row['single_median_ms']:.3f} ms, {row['single_solved']}/{row['single_goals']}"
              f" solved ({row['device']})", flush=True)
    print(f"\nrobot {build_dir.name}, frame {frame}, {pos.shape[0]} goals from {args.goals}, 4 solutions asked, "
          f"seed 0, device {rows[0]['device']}\n")
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps({"environment": environment(None), "rows": rows}, indent=1) + "\n")
    if args.solutions:
        np.savez_compressed(args.solutions, **saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
