#!/usr/bin/env bash
# GPU run of the operator tests, on a machine with an NVIDIA GPU, nvcc (CUDA 13), Python 3.12, numpy, scipy and
# pytest (Pinocchio optional):
#   bash tests/gpu/operators.sh RESULTS_DIR [pytest arguments...]
# Builds tests/operators/cpp/harness with nvcc (sm_90, $CUDA_ARCH to change) and runs tests/operators with every
# harness call on the device: block scope at blockDim 1, 7, 31, 32, 33, 57, 96 and 256 with byte-identical
# results required across thread counts, warp scope with 1 to 8 warps (problems) per block, thread scope one
# problem per thread, outputs poisoned with NaN. Without Pinocchio the tests marked `pinocchio` are deselected
# (the summary says how many). Writes pytest.txt, junit.xml and report.json (the device summary) into
# RESULTS_DIR. $PYTHON picks the interpreter (default python3), $NVCC the compiler.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: operators.sh RESULTS_DIR [pytest arguments...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=${PYTHON:-python3}
cd "$root" || exit 2

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "python: $("$python" --version 2>&1)"
  nvcc=$("$python" -c 'import sys; sys.path.insert(0, "tests/operators"); import harness; print(harness.find_nvcc() or "")' 2>/dev/null)
  echo "nvcc: ${nvcc:-not found} $( ([ -n "$nvcc" ] && "$nvcc" --version 2>/dev/null) | tail -n 1)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "nvidia-smi: not available"
} >"$out/environment.txt"

# The contract check reads the spec from ../shared, which only the development machines have; it checks the
# headers, not the device, and CI runs it.
ignore=()
if ! compgen -G "$root/../shared/seeds/003_*.txt" >/dev/null; then
  ignore=(--ignore=tests/operators/test_contract.py)
  echo "test_contract.py not run: the spec (../shared/seeds/003_*.txt) is not on this machine" | tee -a "$out/environment.txt"
fi

GLASS_HARNESS_GPU=1 GLASS_HARNESS_GPU_REPORT="$out/report.json" \
  "$python" -m pytest tests/operators -q -p no:cacheprovider -rfE --junitxml="$out/junit.xml" "${ignore[@]}" "$@" 2>&1 |
  tee "$out/pytest.txt"
status=${PIPESTATUS[0]}
echo "pytest exit status: $status" | tee -a "$out/pytest.txt"
exit "$status"
