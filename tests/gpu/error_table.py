"""Markdown table of the largest error per robot, precision and entry point in an equivalence results.txt.

Usage: python3 tests/gpu/error_table.py RESULTS_TXT [ENTRY_POINT ...]
(tests/gpu/equivalence.sh writes RESULTS_TXT; the entry points default to all, in their order of appearance.)
"""

from __future__ import annotations

import sys
from collections import defaultdict


def largest_errors(path: str) -> tuple[dict[tuple[str, str, str], float], list[str], list[str]]:
    """Largest error over all block sizes, keyed by (robot, precision, entry point); robots and entry
    points in order of appearance."""
    worst: dict[tuple[str, str, str], float] = defaultdict(float)
    robots: list[str] = []
    entries: list[str] = []
    robot = ""
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                robot = line.split()[1]
                if robot not in robots:
                    robots.append(robot)
                continue
            parts = line.split()
            if len(parts) != 6 or parts[0] not in ("double", "float"):
                continue
            precision, _, entry, error = parts[0], parts[1], parts[2], float(parts[3])
            if entry not in entries:
                entries.append(entry)
            key = (robot, precision, entry)
            worst[key] = max(worst[key], error)
    return worst, robots, entries


def main() -> None:
    worst, robots, entries = largest_errors(sys.argv[1])
    if len(sys.argv) > 2:
        entries = sys.argv[2:]
    print("| robot | precision | " + " | ".join(entries) + " |")
    print("|---|---|" + "---|" * len(entries))
    for robot in robots:
        for precision in ("double", "float"):
            cells = [f"{worst[(robot, precision, e)]:.1e}" if (robot, precision, e) in worst else "-" for e in entries]
            print(f"| {robot} | {precision} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
