#!/usr/bin/env bash
# Builds a program that includes a robot's grid.cuh with two translation units per entry point (float and
# double), compiled in parallel, then linked (the kernels of one entry point take a large robot's compiler minutes; together in
# one unit they would run one after another):
#   nvcc_split.sh OUTPUT MAIN_SOURCE HEADER_DIR [nvcc flags ...]
# $NVCC names nvcc (default: nvcc on PATH); $JOBS the parallel compiles (default: all cores); $ENTRIES
# (e.g. "ABA,MASS_MATRIX") compiles only those entry points (the program must call no others, and an entry
# point whose launch calls others needs them listed too: forward_dynamics_gradient's phased launch calls
# ABA, INVERSE_DYNAMICS_GRADIENT and MINV; the link names what is missing); $PRECISIONS ("FLOAT" or "DOUBLE";
# default both) compiles those precisions only (the program's calls in the other are compiled out:
# GRID_PRECISION_SKIPPED_<P>). Each unit's compile time is printed. With REUSE_OBJECTS=1 a unit whose object
# is already there from a compile of the same sources with the same flags and nvcc (OUTPUT.objs/flags) is not compiled
# again: a build cut short resumes, and objects compiled on another machine (nvcc -c needs no GPU) are only
# linked here.
set -euo pipefail
out=${1:?usage: nvcc_split.sh OUTPUT MAIN_SOURCE HEADER_DIR [nvcc flags ...]}
main=${2:?usage}
dir=${3:?usage}
shift 3
nvcc=${NVCC:-nvcc}
jobs=${JOBS:-$(nproc)}
objs="$out.objs"
entries=$(grep -o 'defined(GRID_SEPARATE_ENTRIES) && defined(GRID_ENTRY_[A-Z0-9_]*)' "$dir/grid.cuh" |
  sed 's/.*defined(GRID_ENTRY_\(.*\))/\1/' | sort -u)
if [[ -n ${ENTRIES:-} ]]; then
  for e in ${ENTRIES//,/ }; do
    grep -qx "$e" <<<"$entries" || { echo "nvcc_split.sh: $dir/grid.cuh has no entry point $e" >&2; exit 2; }
  done
  # the program's other calls are compiled out (GRID_ENTRY_SKIPPED_<NAME>; the drivers honour it)
  for e in $entries; do
    grep -qw "$e" <<<"${ENTRIES//,/ }" || set -- "$@" "-DGRID_ENTRY_SKIPPED_$e"
  done
  entries=${ENTRIES//,/ }
fi
precisions=${PRECISIONS:-FLOAT DOUBLE}
precisions=${precisions//,/ }
for p in FLOAT DOUBLE; do
  grep -qw "$p" <<<"$precisions" || set -- "$@" "-DGRID_PRECISION_SKIPPED_$p"
done
# the flags are complete here: they, nvcc's version and the sources (the robot's header, the program, the
# kernel headers) decide whether REUSE_OBJECTS may keep an object; the checkout's own path is left out of the
# flags and the headers are read in the C locale's order, so that objects compiled in another checkout (another
# machine) count
root=$(cd "$(dirname "$0")/../.." && pwd)
sources=$(cat "$dir/grid.cuh" "$main" $(find "$root/kernels" \( -name '*.cuh' -o -name '*.h' \) | LC_ALL=C sort) | md5sum | cut -d' ' -f1)
signature="$("$nvcc" --version | tail -n 1) sources $sources ${*//$root/<checkout>}"
if [[ ${REUSE_OBJECTS:-0} == 1 && -f "$objs/flags" && "$(cat "$objs/flags")" == "$signature" ]]; then
  find "$objs" -name '*.cu' -delete
else
  rm -rf "$objs"
  mkdir -p "$objs"
  echo "$signature" >"$objs/flags"
fi
for e in $entries; do
  for p in $precisions; do
    printf '#define GRID_ENTRY_%s\n#define GRID_ENTRY_ONLY_%s\n#include "grid.cuh"\n' "$e" "$p" >"$objs/$e.$p.cu"
  done
done
cp "$main" "$objs/main.cu"
# every unit is compiled with -DGRID_SEPARATE_ENTRIES so that the main one only declares the entry points
ls "$objs"/*.cu | xargs -P "$jobs" -I{} sh -c 'n=$0; d=$1; shift; [ -f {}.o ] && { echo "reused $(basename {}).o"; exit 0; }; t=$(date +%s); "$n" -c -DGRID_SEPARATE_ENTRIES -I "$d" "$@" {} -o {}.o.tmp && mv {}.o.tmp {}.o || { echo "FAILED: {}"; exit 255; }; echo "compiled $(basename {}) in $(( $(date +%s) - t )) s"' \
  "$nvcc" "$dir" "$@"
"$nvcc" "$@" "$objs"/*.o -o "$out"
