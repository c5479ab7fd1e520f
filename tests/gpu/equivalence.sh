#!/usr/bin/env bash
# CUDA equivalence check, run on a machine with an NVIDIA GPU and nvcc (no Go needed):
#   go tool mage gpuprep                       # here: writes build/gpucheck/<robot>/
#   bash tests/gpu/equivalence.sh build/gpucheck [RESULTS_DIR]
# Builds each robot's driver for sm_90, runs every entry point at every launch shape in float and double with
# NaN-poisoned outputs against the float64 reference, then runs compute-sanitizer memcheck and racecheck on
# two robots. Writes results.txt and summary.md into RESULTS_DIR (default: the check folder).
# PHASES (default "build run sanitize") picks the phases, so that a long check can span several sessions of a
# machine that keeps the built drivers; SANITIZED_ALGORITHMS (default: all) narrows the entry points run
# under the sanitizers; ENTRIES (e.g. "ABA,MASS_MATRIX") builds and checks only those entry points, and the
# summary names the others as not checked.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
check=${1:?usage: equivalence.sh CHECK_DIR [RESULTS_DIR]}
out=${2:-$check}
mkdir -p "$out"
arch=${CUDA_ARCH:-sm_90}
nvcc=${NVCC:-nvcc}
sanitizer=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
sanitized_robots=${SANITIZED_ROBOTS:-"iiwa go2"}
# Launch shapes under the sanitizers (threads per sample x samples per block): the baked one, a ragged
# block, a sample per thread and sub-warp groups sharing a block (all shapes run without them).
sanitized_shapes=${SANITIZED_SHAPES:-"baked,33x1,1x32,4x8"}
sanitized_algorithms=${SANITIZED_ALGORITHMS:-}
phases=${PHASES:-"build run sanitize"}
results="$out/results.txt"
summary="$out/summary.md"
: >"$results"

{
  echo "| robot | nvcc compile [s] (all in parallel) | checks | failed |"
  echo "|---|---|---|---|"
} >"$summary"
status=0
# TIERS=all builds the launch functions at every resource tier (GRID_ALL_TIERS) and checks every sample-group
# shape at TIER_LITE and TIER_MINIMAL too (lines "GxS@lite", "GxS@minimal"); each tier compiles the group
# kernels anew.
tier_flags=""
[ "${TIERS:-shared}" = all ] && tier_flags="-DGRID_ALL_TIERS"
# Build every driver in parallel (each records its own compile time), then run them one at a time.
build() {
  local dir=$1 start end
  start=$(date +%s%N)
  if NVCC=$nvcc JOBS=$jobs bash "$root/tests/gpu/nvcc_split.sh" "$dir/driver" "$dir/driver.cu" "$dir" -O2 -arch="$arch" \
    -std=c++17 $tier_flags -I "$root/kernels" >"$dir/build.txt" 2>&1; then
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 )) >"$dir/build_ms"
  fi
}
# robots build side by side, each with its share of the cores over its entry points (nvcc_split.sh)
robots=$(ls -d "$check"/*/ | wc -l)
jobs=$(( $(nproc) / (robots > 0 ? robots : 1) ))
jobs=$(( jobs > 2 ? jobs : 2 ))
if [[ $phases == *build* ]]; then
  for dir in "$check"/*/; do build "$dir" & done
  wait
fi
for dir in "$check"/*/; do
  [[ $phases == *run* ]] || break
  robot=$(basename "$dir")
  cat "$dir/build.txt" >>"$results"
  if [ ! -f "$dir/build_ms" ]; then
    echo "| $robot | build failed | - | - |" >>"$summary"; status=1; continue
  fi
  ms=$(cat "$dir/build_ms")
  echo "== $robot" >>"$results"
  "$dir/driver" "$dir" >"$dir/run.txt" 2>&1
  rc=$?
  cat "$dir/run.txt" >>"$results"
  line=$(tail -n 1 "$dir/run.txt")
  checks=$(echo "$line" | sed -n 's/.* \([0-9]*\) checks, \([0-9]*\) failed.*/\1/p')
  failed=$(echo "$line" | sed -n 's/.* \([0-9]*\) checks, \([0-9]*\) failed.*/\2/p')
  printf '| %s | %d.%03d | %s | %s |\n' "$robot" $((ms / 1000)) $((ms % 1000)) "${checks:-?}" "${failed:-rc=$rc}" >>"$summary"
  [ "$rc" -eq 0 ] || status=1
done
if [[ $phases == *run* ]] && grep -qh 'NOT CHECKED' "$check"/*/run.txt 2>/dev/null; then
  { echo; grep -h 'NOT CHECKED' "$check"/*/run.txt; } >>"$summary"
fi

{
  echo
  echo "compute-sanitizer at launch shapes $sanitized_shapes:"
  echo
  echo "| robot | tool | errors |"
  echo "|---|---|---|"
} >>"$summary"
[[ $phases == *sanitize* ]] || sanitized_robots=""
for robot in $sanitized_robots; do
  dir="$check/$robot"
  for tool in memcheck racecheck; do
    log="$dir/$tool.txt"
    GRID_CHECK_SHAPES=$sanitized_shapes GRID_CHECK_ALGORITHMS=$sanitized_algorithms timeout "${SANITIZER_TIMEOUT:-240}" \
      "$sanitizer" --tool "$tool" --error-exitcode 9 "$dir/driver" "$dir" >"$log" 2>&1
    rc=$?
    errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$log" | tail -n 1 | grep -o '[0-9]*' || true)
    hazards=$(grep -o 'RACECHECK SUMMARY: [0-9]* hazard' "$log" | tail -n 1 | grep -o '[0-9]*' || true)
    echo "== $robot $tool (rc $rc)" >>"$results"
    tail -n 5 "$log" >>"$results"
    if [ "$tool" = racecheck ]; then found="${hazards:-?} hazards"; else found="${errors:-?} errors"; fi
    echo "| $robot | $tool | $found (rc $rc) |" >>"$summary"
    [ "$rc" -eq 0 ] || status=1
  done
done
cat "$summary"
exit $status
