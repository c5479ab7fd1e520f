#!/usr/bin/env bash
# The GPU measurements of the fused rollouts (RBD-09) and of one-device sharding (RBD-13) in one sitting, on a
# machine without Go: robots built by a static mage binary with only the entry points the measurements call.
#
# Here:   CGO_ENABLED=0 go tool mage -compile $PWD/build/mage-bin; mkdir -p build/urdf; cp ../shared/robots/*.urdf build/urdf/
#         and, for the MJX peer, the mujoco, mujoco-mjx and trimesh wheels in .whl/ (see bench/README.md).
# There:  bash bench/gpu_rollouts_and_sharding.sh RESULTS_DIR
# Writes into RESULTS_DIR the build logs and times, bench.rollout's JSON for panda (grid, grid_steps, purejax,
# mjx), its memory at several batch × steps and after 1000 more calls, go2 and g1_29dof, and bench.sharding's
# one-device table for iiwa at 65536 (the sharded call against the unsharded and the plain custom call).
# Every step has a time limit so that the whole run ends within about 9.5 minutes.
set -u
res=${1:?usage: gpu_rollouts_and_sharding.sh RESULTS_DIR}
cd "$(dirname "$0")/.."
mkdir -p "$res"
export PYTHONUNBUFFERED=1
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl > "$res/pip.log" 2>&1 ||
    echo "installing .whl failed (see pip.log)"
fi
export PYTHONPATH=python:.:/tmp/site GRID_CUDA_ARCH=${GRID_CUDA_ARCH:-sm_90}
GRID_FFI_INCLUDE=$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())')
export GRID_FFI_INCLUDE
fd_only=ABA,FORWARD_DYNAMICS,FORWARD_DYNAMICS_GRADIENT,INVERSE_DYNAMICS_GRADIENT,MINV,MASS_MATRIX
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())'; } > "$res/env.txt" 2>&1
cat "$res/env.txt"

# build NAME URDF [flags]: the robot with its CUDA library of the fd_only entry points into build/gpu/NAME, timed
build() {
  local name=$1 s=$SECONDS; shift
  GRID_CUDA_ENTRIES=$fd_only build/mage-bin build "$@" -out=build/gpu/$name -cuda > "$res/build-$name.log" 2>&1
  echo "build $name rc=$? in $((SECONDS - s)) s" | tee -a "$res/builds.txt"
}
# step SECONDS CMD...: CMD with a time limit, cut to what is left of 570 s
step() {
  local want=$1 left=$((570 - SECONDS)); shift
  ((left < want)) && want=$left
  ((want < 10)) && { echo "skipped, no time left: $*"; return 0; }
  timeout "$want" "$@"
}
# a command, not a shell function: `timeout` runs programs only
rollout=(python3 -m bench.rollout --robots-dir build/gpu)

build panda build/urdf/panda.urdf & p1=$!
build iiwa build/urdf/iiwa.urdf & p2=$!
build go2 build/urdf/go2.urdf -floating & p3=$!
nice -n 10 bash -c "$(declare -f build); res='$res' fd_only=$fd_only build g1_29dof build/urdf/g1_29dof.urdf -floating" & p4=$!
wait $p1 $p2 $p3
echo "== rollout gradient, panda, with peers"
step 200 "${rollout[@]}" --robots panda --impls grid grid_steps purejax mjx --out "$res/rollout-panda.json" 2>&1 | grep -v "Warning: \|warnings.warn" | tail -6
echo "== sharding, one device"
step 90 python3 -m bench.sharding --robot build/gpu/iiwa --per-device 65536 --out "$res/sharding.json" > "$res/sharding.txt" 2>&1
tail -16 "$res/sharding.txt"
echo "== memory: 1000 more calls, then batch x steps"
step 40 "${rollout[@]}" --robots panda --impls grid --leak-calls 1000 --out "$res/leak-panda.json" 2>&1 | grep "^grid"
for bt in 1024x50 4096x50 16384x50 4096x200 16384x200; do
  step 30 "${rollout[@]}" --robots panda --impls grid --batch "${bt%x*}" --steps "${bt#*x}" --reps 5 --out "$res/memory-panda-$bt.json" 2>&1 | grep "^grid"
done
echo "== rollout gradient, go2"
step 120 "${rollout[@]}" --robots go2 --impls grid grid_steps purejax mjx --out "$res/rollout-go2.json" 2>&1 | grep -v "Warning: \|warnings.warn" | tail -5
left=$((560 - SECONDS)); ((left > 0)) && timeout $left tail --pid=$p4 -f /dev/null
echo "== rollout gradient, g1_29dof"
step 120 "${rollout[@]}" --robots g1_29dof --impls grid grid_steps purejax --out "$res/rollout-g1_29dof.json" 2>&1 | grep -v "Warning: \|warnings.warn" | tail -5
echo "total ${SECONDS} s"
