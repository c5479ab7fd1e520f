"""The inverse-kinematics benchmark: solve a goal file's targets and report the errors (`go tool mage ikbench`).

A goal file is YAML: ``goals:``, a list of ``{position: [x, y, z], quaternion: [x, y, z, w]}`` (metres in the
base frame; the quaternion read as xyzw), and optionally ``frame:`` (the link the goals are for), ``robot:``
and ``obstacles:`` (as in an obstacle file). The last line printed is ``solved S/N within 1 mm and 1 deg``
(the tolerances as given); with ``--collision`` a goal counts as solved when its best returned configuration
is within them and collision-free.

An obstacle file (``--obstacles``) is YAML: ``obstacles:`` with any of ``spheres``, ``cuboids`` and
``cylinders``, lists of rows as ``grid_rbd.ik.solve`` takes them (testdata/ik/panda_obstacles.yml).

Run: ``python -m bench.ik BUILD_DIR GOALS [--frame F] [--batch B] [--num-solutions S] [--seed N] [--limit N]
[--device auto|cpu|gpu] [--collision [--collision-mode hard|soft|both] [--obstacles FILE]]`` with ``python/`` importable (the mage
target sets ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from grid_rbd import ik
from grid_rbd._artifacts import METADATA
from grid_rbd._metadata import load_metadata


def load_goals(path: Path) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], dict[str, Any]]:
    """Positions (G, 3), quaternions (G, 4, xyzw) and the file's other top-level keys."""
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict) or not isinstance(raw.get("goals"), list) or not raw["goals"]:
        raise ValueError(f"{path}: expected a mapping with a non-empty list `goals`")
    try:
        pos = np.array([g["position"] for g in raw["goals"]], dtype=np.float64)
        quat = np.array([g["quaternion"] for g in raw["goals"]], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: every goal needs `position` (3 numbers) and `quaternion` (4 numbers): {e}") from e
    if pos.shape != (len(raw["goals"]), 3) or quat.shape != (len(raw["goals"]), 4):
        raise ValueError(f"{path}: positions {pos.shape} and quaternions {quat.shape}, want (G, 3) and (G, 4)")
    return pos, quat, {k: v for k, v in raw.items() if k != "goals"}


def load_obstacles(path: Path) -> dict[str, Any]:
    """An obstacle file's ``obstacles:`` mapping (rows checked by grid_rbd.ik.solve)."""
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict) or not isinstance(raw.get("obstacles"), dict):
        raise ValueError(f"{path}: expected a mapping with a mapping `obstacles` (spheres, cuboids, cylinders)")
    return raw["obstacles"]


def default_frame(build_dir: Path) -> str:
    """The first frame on the last body in joint order: the URDF link of the last joint (panda_link7)."""
    meta = load_metadata(build_dir / METADATA)
    last = max(f.joint for f in meta.frames)
    return next(f.name for f in meta.frames if f.joint == last)


def _percentiles(x: npt.NDArray[np.float64]) -> str:
    """Over the goals that got a configuration (hard collision modes may return none)."""
    finite = x[np.isfinite(x)]
    if finite.size == 0:
        return "no configuration returned"
    p = np.percentile(finite, [50, 90, 99, 100])
    missing = f" ({x.size - finite.size} goals without a configuration left out)" if finite.size < x.size else ""
    return "median {:.3g}, p90 {:.3g}, p99 {:.3g}, max {:.3g}".format(*p) + missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.ik", description=__doc__.splitlines()[0])
    ap.add_argument("build_dir", type=Path)
    ap.add_argument("goals", type=Path)
    ap.add_argument("--frame", default="", help="default: the goal file's `frame`, else the last joint's link")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--num-solutions", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="solve only the first N goals")
    ap.add_argument("--pos-tol-mm", type=float, default=1.0)
    ap.add_argument("--ang-tol-deg", type=float, default=1.0)
    ap.add_argument("--device", choices=ik.DEVICES, default="auto",
                    help="auto: the GPU when the robot's CUDA IK library is built and a GPU is present")
    ap.add_argument("--collision", action="store_true", help="score solutions for collisions (a -collision build)")
    ap.add_argument("--collision-mode", choices=ik.COLLISION_MODES, default="hard")
    ap.add_argument("--obstacles", type=Path, help="obstacle file; default: the goal file's `obstacles:`, else none")
    args = ap.parse_args(argv)

    pos, quat, extra = load_goals(args.goals)
    obstacles = None
    if args.collision:
        obstacles = load_obstacles(args.obstacles) if args.obstacles else extra.get("obstacles") or {}
    elif args.obstacles:
        ap.error("--obstacles needs --collision")
    if args.limit > 0:
        pos, quat = pos[: args.limit], quat[: args.limit]
    frame = args.frame or str(extra.get("frame") or default_frame(args.build_dir))
    n = pos.shape[0]
    start = time.perf_counter()
    r = ik.solve(args.build_dir.resolve(), pos, quat, frame=frame, batch=args.batch,
                 num_solutions=args.num_solutions, seed=args.seed,
                 position_tolerance=args.pos_tol_mm * 1e-3,
                 orientation_tolerance=math.radians(args.ang_tol_deg), collision_free=args.collision,
                 collision_mode=args.collision_mode, obstacles=obstacles, device=args.device)
    elapsed = time.perf_counter() - start
    solved = r.solved()[:, 0]
    if args.collision:
        solved &= r.collision_free()[:, 0]
    best_mm = r.position_error[:, 0] * 1e3
    best_deg = np.degrees(r.orientation_error[:, 0])
    print(f"robot {args.build_dir.name}, frame {frame}, {n} goals from {args.goals}")
    print(f"batch {args.batch} restarts per goal, {args.num_solutions} solutions asked, seed {args.seed}")
    if args.collision:
        counts = ", ".join(f"{len(obstacles.get(k) or [])} {k}" for k in ("spheres", "cuboids", "cylinders"))
        print(f"collision mode {args.collision_mode}: obstacles {counts} ({args.obstacles or 'goal file'}) and "
              "self-collision")
    where = "one CPU thread" if r.device == "cpu" else "GPU, all goals in one call"
    print(f"time: {elapsed:.2f} s, {elapsed / n * 1e3:.2f} ms per goal ({where})")
    print(f"best solution's position error (mm): {_percentiles(best_mm)}")
    print(f"best solution's orientation error (deg): {_percentiles(best_deg)}")
    counts = np.bincount(np.minimum(r.num_distinct, 10), minlength=11)
    print("distinct solutions per goal: mean {:.1f}, median {:.0f}, min {}; histogram {}".format(
        r.num_distinct.mean(), np.median(r.num_distinct), r.num_distinct.min(),
        ", ".join(f"{k if k < 10 else '10+'}: {c}" for k, c in enumerate(counts) if c)))
    asked = r.solved()
    if args.collision:
        asked &= r.collision_free()
        returned = np.isfinite(r.q[:, :, 0]).sum(axis=1)
        print("returned configurations per goal: mean {:.2f} of {}; goals with none: {}".format(
            returned.mean(), args.num_solutions, int((returned == 0).sum())))
        print("best returned configuration collision-free: {}/{}; colliding returned configurations: {}".format(
            int(r.collision_free()[:, 0].sum()), n, int((r.collision_distance < 0).sum())))
    print(f"goals with all {args.num_solutions} returned solutions within tolerance: {int(asked.all(axis=1).sum())}/{n}")
    for g in np.flatnonzero(~solved):
        why = "" if not args.collision or r.collision_free()[g, 0] else (
            "no collision-free configuration" if np.isnan(r.q[g, 0, 0]) else
            f"colliding, {r.collision_distance[g, 0] * 1e3:.1f} mm deep")
        print(f"  unsolved goal {g}: {best_mm[g]:.3f} mm, {best_deg[g]:.3f} deg{', ' + why if why else ''}")
    free = " and collision-free" if args.collision else ""
    print(f"solved {int(solved.sum())}/{n} within {args.pos_tol_mm:g} mm and {args.ang_tol_deg:g} deg{free}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
