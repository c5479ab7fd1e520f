"""Markdown summary of a launch-shape sweep (bench/launch/sweep.sh's sweep.txt).

For every robot, entry point and precision it shows, at batch 1 and at the largest batch, the time of the
untuned default (128 threads per sample, one sample per block, 1024-thread launch bounds: the sweep's
"baked" shape of the 1024 build), the fastest shape measured and the speed-up, and the shape the tuned
table bakes (codegen/emit/launch_configs/<gpu>.json) with its time in the sweep.

    python -m bench.launch.summary bench/results/launch/2026-12-03-h200-sweep.txt [--table codegen/emit/launch_configs/h200.json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

Key = tuple[str, str, str, int]  # robot, entry point, precision, batch


def parse(path: Path, tiers: bool = False) -> tuple[list[str], dict[Key, dict[tuple[int, str], float]], int]:
    """Header comments, {(robot, algo, precision, batch): {(max_threads, shape): median µs}}, missing cells.
    The cells of resource tiers other than TIER_SHARED (shapes "GxS@lite", "GxS@minimal"), which the launch
    tables do not run, only with tiers."""
    header: list[str] = []
    cells: dict[Key, dict[tuple[int, str], float]] = defaultdict(dict)
    missing = 0
    for line in path.read_text().splitlines():
        if line.startswith("# ") and not line.startswith("# built"):
            header.append(line[2:])
            continue
        f = line.split()
        if len(f) < 8 or f[2] not in ("float", "double"):
            continue
        if "@" in f[4] and not tiers:
            continue
        if f[6] == "missing":
            missing += 1
            continue
        cells[(f[0], f[1], f[2], int(f[5]))][(int(f[3]), f[4])] = float(f[6])
    return header, cells, missing


def baked_shape(table: dict[str, Any] | None, robot: str, algo: str, precision: str, batch: int) -> tuple[int, str] | None:
    """(max_threads, "GxS") the tuned table bakes for a launch of `batch` samples, if it tunes the robot."""
    if table is None:
        return None
    for fingerprint, algos in table["robots"].items():
        if fingerprint.split()[0] != robot or algo not in algos:
            continue
        cfg = algos[algo][precision]
        for step in cfg["steps"]:
            if step["max_batch"] == 0 or batch <= step["max_batch"]:
                return cfg["max_threads"], f'{step["threads_per_sample"]}x{step["samples_per_block"]}'
    return None


def baked_tier(table: dict[str, Any] | None, robot: str, algo: str, precision: str) -> str:
    """The resource tier the tuned table bakes for an entry point ("shared" where it bakes none)."""
    for fingerprint, algos in (table or {"robots": {}})["robots"].items():
        if fingerprint.split()[0] == robot and algo in algos:
            return str(algos[algo].get(precision, {}).get("tier") or "shared")
    return "shared"


def summarize(path: Path, table_path: Path | None) -> str:
    header, cells, missing = parse(path)
    table = json.loads(table_path.read_text()) if table_path else None
    batches = sorted({k[3] for k in cells})
    shown = [batches[0], batches[-1]] if len(batches) > 1 else batches
    out = [f"# Launch-shape sweep: {path.name}", ""]
    out += [f"- {h}" for h in header]
    out += [f"- {sum(len(v) for v in cells.values())} cells measured, {missing} shapes did not fit "
            "(shared memory over the device's limit)", ""]
    for batch in shown:
        out += [f"## Batch {batch}", "",
                "Times are the median µs per launch (CUDA events). default: 128 threads per sample, one sample per "
                "block, 1024-thread bounds. Shapes are threads per sample × samples per block @ launch bounds.", "",
                "| robot | entry point | precision | default µs | fastest µs (shape) | speed-up | baked shape | baked µs |",
                "|---|---|---|---|---|---|---|---|"]
        for key in sorted(k for k in cells if k[3] == batch):
            robot, algo, precision, _ = key
            v = cells[key]
            default = v.get((1024, "baked"))
            (bt, bshape), best = min(((k, us) for k, us in v.items() if k[1] != "baked"), key=lambda kv: kv[1])
            baked = baked_shape(table, robot, algo, precision, batch)
            baked_us = v.get(baked) if baked else None
            speed = f"{default / best:.1f}×" if default else "—"
            out.append(f"| {robot} | {algo} | {precision} | {default:.1f} | {best:.1f} ({bshape} @ {bt}) | {speed} | "
                       f"{f'{baked[1]} @ {baked[0]}' if baked else '—'} | {f'{baked_us:.1f}' if baked_us else '—'} |"
                       if default else
                       f"| {robot} | {algo} | {precision} | — | {best:.1f} ({bshape} @ {bt}) | — | — | — |")
        out.append("")
    out += tier_table(parse(path, tiers=True)[1], shown, table)
    return "\n".join(out)


TIERS = ("shared", "lite", "minimal")


def tier_table(cells: dict[Key, dict[tuple[int, str], float]], batches: list[int],
               table: dict[str, Any] | None = None) -> list[str]:
    """The fastest sample-group shape at each resource tier (a sweep built with GRID_ALL_TIERS names the
    other tiers' cells "GxS@lite" and "GxS@minimal"), the tier the tuned table bakes marked (TIER_SHARED
    without a table); empty when the sweep timed TIER_SHARED only."""
    if not any("@" in shape for v in cells.values() for _, shape in v):
        return []
    out = ["## Resource tiers", "",
           "Fastest sample-group shape (threads per sample > 1) per tier, median µs per launch; **bold**: the tier "
           "the tuned table bakes (launch_cfg<GRID_ALGO_*>::TIER, TIER_SHARED where it bakes none). One thread per "
           "sample is the same kernel at every tier.", "",
           "| robot | entry point | precision | batch | " + " | ".join(TIERS) + " |",
           "|---|---|---|---|" + "---|" * len(TIERS)]
    for key in sorted(k for k in cells if k[3] in batches):
        robot, algo, precision, batch = key
        baked = baked_tier(table, robot, algo, precision)
        row = []
        for tier in TIERS:
            times = [(us, shape) for (_, shape), us in cells[key].items()
                     if shape != "baked" and not shape.startswith("1x")
                     and (shape.partition("@")[2] or "shared") == tier]
            if not times:
                row.append("—")
                continue
            us, shape = min(times)
            text = f"{us:.1f} ({shape.partition('@')[0]})"
            row.append(f"**{text}**" if tier == baked else text)
        out.append(f"| {robot} | {algo} | {precision} | {batch} | " + " | ".join(row) + " |")
    out.append("")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", type=Path)
    p.add_argument("--table", type=Path, help="tuned launch configurations to show (launch_configs/<gpu>.json)")
    p.add_argument("--out", type=Path, help="Markdown file (default: stdout)")
    args = p.parse_args(argv)
    text = summarize(args.sweep, args.table)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
