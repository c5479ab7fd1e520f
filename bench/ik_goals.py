"""Writes an inverse-kinematics goal file from random configurations (reachable by construction).

Each goal is the pose of ``frame`` at a configuration drawn uniformly within the URDF's joint limits, computed
by Pinocchio (not by this project's kinematics), in the format of ``bench/ik.py``: ``position`` (metres, base
frame) and ``quaternion`` (xyzw). The file also records the robot, frame and seed; the same arguments always
write the same file.

Run: ``python -m bench.ik_goals URDF FRAME COUNT SEED OUT``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.ik_goals", description=__doc__.splitlines()[0])
    ap.add_argument("urdf", type=Path)
    ap.add_argument("frame")
    ap.add_argument("count", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)

    model = pin.buildModelFromUrdf(str(args.urdf))
    if model.nq != model.nv:
        raise SystemExit(f"{args.urdf}: continuous or floating joints are not drawn here (nq {model.nq} != nv {model.nv})")
    if not model.existFrame(args.frame):
        raise SystemExit(f"{args.urdf} has no frame {args.frame!r}")
    data = model.createData()
    fid = model.getFrameId(args.frame)
    rng = np.random.default_rng(args.seed)
    lines = [
        f"# {args.count} poses of {args.frame} at random configurations (uniform within the joint limits),",
        f"# written by `python -m bench.ik_goals {args.urdf.name} {args.frame} {args.count} {args.seed} ...`.",
        f"robot: {args.urdf.name}",
        f"frame: {args.frame}",
        f"seed: {args.seed}",
        "goals:",
    ]
    for _ in range(args.count):
        q = rng.uniform(model.lowerPositionLimit, model.upperPositionLimit)
        pin.framesForwardKinematics(model, data, q)
        pose = data.oMf[fid]
        x, y, z, w = pin.Quaternion(pose.rotation).coeffs()  # Eigen's coeffs() are xyzw
        p = [float(v) for v in pose.translation]
        x, y, z, w = (float(v) for v in (x, y, z, w))
        lines.append(f"- position: [{p[0]!r}, {p[1]!r}, {p[2]!r}]")
        lines.append(f"  quaternion: [{x!r}, {y!r}, {z!r}, {w!r}]")
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
