#!/usr/bin/env bash
# Inverse kinematics on a machine with an NVIDIA GPU and nvcc, without Go (docs/ik.md, "Measured on a GPU"):
#   CGO_ENABLED=0 go tool mage -compile $PWD/build/mage-bin       # here: a static mage binary to carry there
#   bash tests/gpu/ik.sh build/mage-bin URDF_DIR GOALS_DIR OUT    # there
#   python -m bench.ik_latency --verify OUT/solutions-panda.npz ../shared/robots/panda.urdf   # here again
# URDF_DIR holds panda.urdf, fetch.urdf and panda_ext_24dof.urdf; GOALS_DIR the goal files of ../shared/ik and
# testdata/ik (<robot>_ik_goals.yml, panda_obstacles.yml). Runs every robot's goal file on the GPU (and panda's
# on one CPU thread of the same machine), panda with hard collision against the scene, the accuracy-latency
# table with the solutions saved for the Pinocchio check (this machine has no Pinocchio), and
# compute-sanitizer memcheck and racecheck on a few goals. ROBOTS (default "panda fetch") narrows the goal
# files: panda_ext_24dof's IK CUDA library takes nvcc about 5 minutes. Writes one text file per step and
# summary.txt into OUT; PyYAML must be importable.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mage=${1:?usage: ik.sh MAGE URDF_DIR GOALS_DIR OUT}
urdfs=${2:?usage: ik.sh MAGE URDF_DIR GOALS_DIR OUT}
goals=${3:?usage: ik.sh MAGE URDF_DIR GOALS_DIR OUT}
out=${4:?usage: ik.sh MAGE URDF_DIR GOALS_DIR OUT}
robots=${ROBOTS:-"panda fetch"}
sanitizer=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
mkdir -p "$out"
cd "$root" || exit 1
export PYTHONPATH="$root/python:$root${PYTHONPATH:+:$PYTHONPATH}"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# step NAME COMMAND...: runs the command into OUT/NAME.txt and puts its result lines in the summary.
step() {
    local name=$1
    shift
    "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    say "== $name (exit $rc)"
    grep -E "^(time|solved|returned|best returned)|ERROR SUMMARY|RACECHECK SUMMARY|^\| [0-9]" "$out/$name.txt" | tee -a "$summary"
}

for r in $robots; do
    step "ikbench-gpu-$r" "$mage" ikbench -robot="$urdfs/$r.urdf" -goals="$goals/${r}_ik_goals.yml" -device=gpu
done
step ikbench-cpu-panda python3 -m bench.ik build/ik/panda "$goals/panda_ik_goals.yml" --device cpu
step ikbench-gpu-panda-collision "$mage" ikbench -robot="$urdfs/panda.urdf" -goals="$goals/panda_ik_goals.yml" \
    -collision -obstacles="$goals/panda_obstacles.yml" -device=gpu
# the collision build replaced build/ik/panda; the table runs on it without collision, as the others do
step latency-panda-gpu python3 -m bench.ik_latency build/ik/panda "$goals/panda_ik_goals.yml" --device gpu \
    --single 1000 --out "$out/latency-panda-gpu.json" --solutions "$out/solutions-panda.npz"
for tool in memcheck racecheck; do
    step "sanitizer-$tool" "$sanitizer" --tool "$tool" python3 -m bench.ik build/ik/panda \
        "$goals/panda_ik_goals.yml" --limit 3 --device gpu
done
say "then here: python -m bench.ik_latency --verify $out/solutions-panda.npz ../shared/robots/panda.urdf"
