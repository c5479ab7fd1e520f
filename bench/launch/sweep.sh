#!/usr/bin/env bash
# Launch-shape sweep, run on a machine with an NVIDIA GPU and nvcc (no Go needed):
#   go tool mage tuneprep                          # here: writes build/tune/<robot>/ (-tuned: with the baked
#                                                  # tables, for an entry point whose launch runs others')
#   bash bench/launch/sweep.sh build/tune RESULTS_DIR
#   go tool mage tune RESULTS_DIR/sweep.txt        # here: bakes the choices into codegen/emit/launch_configs/
# Compiles each robot's sweep twice, with every kernel's __launch_bounds__ at 256 threads (ptxas may use up
# to 255 registers) and at 1024 (64 registers), all in parallel, then times them one robot at a time:
# every shape up to 256 threads in the first build, the baked one (and WIDE_SHAPES) in the second.
# ALGORITHMS (comma-separated) narrows the entry points; BOUNDS (default "256 1024") the builds; PHASES
# (default "build run") lets the builds and the timings run in separate sessions of a machine that keeps them;
# JOBS the parallel compiles of each build (default: the cores shared out over the builds). The sweep programs
# read GRID_SWEEP_SHAPES and GRID_SWEEP_BATCHES (narrow the cells), GRID_SWEEP_BACK_TO_BACK=K (K launches
# between one pair of events) and GRID_SWEEP_GRAPH=1 (those K launches replayed from a CUDA graph: batch-1
# kernel times without the host's submission, an empty kernel 0.65 µs on the H200 against 5-6 µs otherwise).
# PRECISIONS=FLOAT (or DOUBLE) builds and times one precision (tests/gpu/nvcc_split.sh); NVCC_FLAGS adds flags
# to every compile (e.g. -DGRID_CUDA_ENABLE_L2_PERSISTING=1).
# TIERS=all builds every resource tier (GRID_ALL_TIERS) and times the sample-group shapes at TIER_LITE and
# TIER_MINIMAL too ("GxS@lite", "GxS@minimal"; bench/launch/summary.py tabulates them, the tuner skips them).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tune=${1:?usage: sweep.sh TUNE_DIR RESULTS_DIR}
out=${2:?usage: sweep.sh TUNE_DIR RESULTS_DIR}
mkdir -p "$out"
arch=${CUDA_ARCH:-sm_90}
nvcc=${NVCC:-nvcc}
# the 1024-thread build times only its baked shape (the untuned default) unless WIDE_SHAPES lists more
wide_shapes=${WIDE_SHAPES:-""}
results="$out/sweep.txt"
{
  echo "# launch-shape sweep: robot entry precision max_threads shape batch median_us min_us reps"
  echo "# date $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${GRID_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "# gpu $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "# nvcc $("$nvcc" --version | tail -n 1)"
} >"$results"
status=0
tier_flags=""
[ "${TIERS:-shared}" = all ] && tier_flags="-DGRID_ALL_TIERS"
build() {
  local dir=$1 bound=$2 start
  start=$(date +%s)
  # only the entry points the sweep calls (tuneprep lists them)
  if ENTRIES=$(cat "$dir/entries" 2>/dev/null) PRECISIONS=${PRECISIONS:-FLOAT,DOUBLE} NVCC=$nvcc JOBS=$jobs bash "$root/tests/gpu/nvcc_split.sh" "$dir/sweep_$bound" "$dir/sweep.cu" "$dir" -O3 -arch="$arch" \
    -std=c++17 -DGRID_MAX_THREADS="$bound" $tier_flags ${NVCC_FLAGS:-} -I "$root/kernels" >"$dir/build_$bound.txt" 2>&1; then
    echo "# built $(basename "$dir") max_threads $bound in $(( $(date +%s) - start )) s" >>"$dir/build_$bound.txt"
  else
    echo "# BUILD FAILED $(basename "$dir") max_threads $bound" >>"$dir/build_$bound.txt"
  fi
}
bounds=${BOUNDS:-"256 1024"}
phases=${PHASES:-"build run"}
# every robot's builds side by side, each with its share of the cores over its entry points (nvcc_split.sh)
builds=$(( $(echo $bounds | wc -w) * $(ls -d "$tune"/*/ | wc -l) ))
jobs=$(( $(nproc) / (builds > 0 ? builds : 1) ))
jobs=$(( jobs > 2 ? jobs : 2 ))
jobs=${JOBS:-$jobs}  # compiles per build; more than the fair share overlaps short builds with long ones
if [[ $phases == *build* ]]; then
  for dir in "$tune"/*/; do
    for bound in $bounds; do build "$dir" "$bound" & done
  done
  wait
fi
for dir in "$tune"/*/; do
  [[ $phases == *run* ]] || break
  for bound in $bounds; do
    grep '^#' "$dir/build_$bound.txt" >>"$results"
    if [ ! -x "$dir/sweep_$bound" ]; then
      tail -n 20 "$dir/build_$bound.txt"; status=1; continue
    fi
    if [ "$bound" = 1024 ]; then
      GRID_SWEEP_SHAPES=$wide_shapes "$dir/sweep_$bound" ${ALGORITHMS:-} >>"$results" || status=1
    else
      "$dir/sweep_$bound" ${ALGORITHMS:-} >>"$results" || status=1
    fi
  done
  echo "swept $(basename "$dir")"
done
exit $status
