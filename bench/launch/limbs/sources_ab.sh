#!/usr/bin/env bash
# Runs the sources_ab.cu objects of OBJ_DIR (<robot>_<tree>.o, compiled elsewhere with the same nvcc) on the GPU:
# links each, runs them all twice (the trees in one order, then the other), keeps the raw lines in RAW and
# prints, per robot and kernel, the fastest and slowest time of each tree and its error.
#   bash bench/launch/limbs/sources_ab.sh OBJ_DIR RAW "base new"
set -euo pipefail
objs=${1:?usage: sources_ab.sh OBJ_DIR RAW "TREES"}
raw=${2:?}
trees=${3:?}
bins=$(mktemp -d)
for o in "$objs"/*.o; do nvcc -arch=sm_90 "$o" -o "$bins/$(basename "$o" .o)" & done
wait
reversed=$(tr ' ' '\n' <<<"$trees" | tac | tr '\n' ' ')
: >"$raw"
first=${trees%% *}
robots=$(for b in "$bins"/*_"$first"; do name=$(basename "$b"); echo "${name%_"$first"}"; done)
for order in "$trees" "$reversed"; do
  for robot in $robots; do
    for t in $order; do
      if [ -x "$bins/${robot}_$t" ]; then "$bins/${robot}_$t" "$robot" >>"$raw"; fi
    done
  done
done
python3 - "$raw" $trees <<'PY'
import collections, sys
raw, trees = sys.argv[1], sys.argv[2:]
times, errs = collections.defaultdict(list), {}
for line in open(raw):
    p = line.split()
    if len(p) == 8 and p[0] == "AB":
        _, robot, tree, kernel, _, err, _, us = p
        times[(robot, kernel, tree)].append(float(us))
        errs[(robot, kernel, tree)] = err
print("| robot | kernel | " + " | ".join(f"{t} µs (err)" for t in trees) + " |")
print("|---|---|" + "---|" * len(trees))
for robot, kernel in sorted({(r, k) for r, k, _ in times}):
    cells = []
    for t in trees:
        ts = times.get((robot, kernel, t))
        cells.append(f"{min(ts):.2f}-{max(ts):.2f} ({errs[(robot, kernel, t)]})" if ts else "-")
    print(f"| {robot} | {kernel} | " + " | ".join(cells) + " |")
PY
