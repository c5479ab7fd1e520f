#!/usr/bin/env python3
"""Writes the Pinocchio references of the pytest suite for machines without Pinocchio.

Usage (from the repository root, in .venv)::

    python tests/python/make_reference.py OUT_DIR [ROBOT ...]

writes ``OUT_DIR/<robot>.npz`` for every robot of the roster's pytest suite (testdata/robots/roster.json) (or the named ones): the random
inputs and Pinocchio's outputs for every method, in our conventions (see tests/python/refdata.py). Then,
on the other machine::

    GRID_RBD_REFERENCE_DIR=OUT_DIR GRID_RBD_PATH=<builds> python -m pytest tests/python

runs the equivalence tests against these files without importing Pinocchio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import refdata  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    robots = {r.name: r for r in refdata.robot_set()}
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    ap.add_argument("robots", nargs="*", metavar="ROBOT", help=f"default: all of {', '.join(robots)}")
    args = ap.parse_args(argv)
    unknown = [r for r in args.robots if r not in robots]
    if unknown:
        ap.error(f"unknown robot(s): {', '.join(unknown)}")
    for name in args.robots or list(robots):
        start = time.perf_counter()
        ref = refdata.compute(robots[name])
        path = args.out_dir / f"{name}.npz"
        refdata.save(ref, path)
        print(f"{name}: nq {ref.nq}, nv {ref.nv}, {len(ref.frame_names)} frames, {refdata.NUM_SAMPLES} samples "
              f"({ref.source}) -> {path} in {time.perf_counter() - start:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
