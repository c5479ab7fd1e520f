"""CUDA kernels compiled at run time: a robot's handler library built by the host C++ compiler without nvcc
(``go tool mage rtc DIR``: ``libgrid_rbd_cuda_rtc.so``), whose kernels grid_rbd compiles with NVRTC on each entry
point's first call, against the same robot's CPU library (a build with ``-tier=lite`` or ``-tier=minimal``
checks the handlers' workspace at a spilled resource tier: the script prints each call's workspace).

Run on a GPU machine with a CUDA 13 runtime and NVRTC (a toolkit, or the nvidia-cuda-nvrtc and nvidia-cuda-cccl
wheels), from the repository root::

    go tool mage build URDF -out=DIR && go tool mage rtc DIR      # no -cuda: DIR has no libgrid_rbd_cuda.so
    PYTHONPATH=python python tests/gpu/rtc.py DIR

For each entry point checked it times the first GPU call (the NVRTC compile included, or the cubin cache of
DIR/nvrtc/ on a second run), then compares the GPU's results at batch 1 and 333 with the CPU library's, float64
and float32, and times a jitted batch-1 forward_dynamics. Exits non-zero when a difference exceeds its
tolerance.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

from grid_rbd.jax import JaxRobotHandle  # noqa: E402

TOLERANCE = {jnp.float64: 1e-9, jnp.float32: 2e-3}  # relative to the largest magnitude of the CPU's result


def calls(robot: JaxRobotHandle, q, v, a):
    return {
        "forward_dynamics": lambda: robot.forward_dynamics(q, v, a),
        "mass_matrix": lambda: robot.mass_matrix(q),
        "inverse_dynamics": lambda: robot.inverse_dynamics(q, v, a),
        "forward_dynamics_derivatives": lambda: robot.forward_dynamics_derivatives(q, v, a),
    }


def relative_difference(got, want) -> float:
    """Largest absolute difference, relative to the larger of 1 and the largest magnitude of `want`."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want))) / max(1.0, float(np.max(np.abs(want))))


def main(build_dir: Path) -> int:
    gpu, cpu = jax.devices("cuda")[0], jax.devices("cpu")[0]
    robot = JaxRobotHandle(build_dir)
    loaded = robot._robot
    print(f"jax {jax.__version__}, {gpu.device_kind}; {build_dir}: runtime kernels "
          f"{'yes' if loaded.runtime_kernels is not None else 'NO'} (cuda_error {loaded.cuda_error})")
    if loaded.runtime_kernels is None:
        return 1
    # the scratch each call's kernels get at the baked resource tier (none at TIER_SHARED or one thread a sample)
    for algorithm in ("aba", "mass_matrix", "inverse_dynamics", "forward_dynamics_gradient"):
        sizes = [f"batch {b} {8 * s}-bit {loaded.workspace_bytes(algorithm, b, s)} B" for s in (8, 4) for b in (1, 333)]
        print(f"workspace of {algorithm}: {', '.join(sizes)}")
    rng = np.random.default_rng(0)
    failed = 0
    first = True
    for dtype in (jnp.float64, jnp.float32):
        for batch in (1, 333):
            q = robot.random_configuration(jax.random.key(batch), shape=(batch,), dtype=dtype)
            v = jnp.asarray(rng.uniform(-1, 1, (batch, robot.nv)), dtype)
            a = jnp.asarray(rng.normal(size=(batch, robot.nv)), dtype)
            on_gpu = calls(robot, *(jax.device_put(x, gpu) for x in (q, v, a)))
            on_cpu = calls(robot, *(jax.device_put(x, cpu) for x in (q, v, a)))
            for name in on_gpu:
                start = time.perf_counter()
                got = jax.block_until_ready(jax.tree.leaves(on_gpu[name]()))
                if first:
                    print(f"first GPU call of {name}: {time.perf_counter() - start:.1f} s")
                want = jax.tree.leaves(on_cpu[name]())
                assert all(g.devices() == {gpu} for g in got), "the GPU call did not run on the GPU"
                err = max(relative_difference(g, w) for g, w in zip(got, want))
                ok = err <= TOLERANCE[dtype]
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {jnp.dtype(dtype).name:<8} batch {batch:<4} {name:<30} "
                      f"largest relative difference {err:.2e}")
            first = False
    fd = jax.jit(robot.forward_dynamics)
    q = jax.device_put(robot.random_configuration(jax.random.key(1), shape=(1,), dtype=jnp.float32), gpu)
    z = jax.device_put(jnp.zeros((1, robot.nv), jnp.float32), gpu)
    for _ in range(20):
        jax.block_until_ready(fd(q, z, z))
    times = []
    for _ in range(300):
        start = time.perf_counter()
        jax.block_until_ready(fd(q, z, z))
        times.append(time.perf_counter() - start)
    print(f"jitted batch-1 forward_dynamics, float32: median {np.median(times) * 1e6:.1f} us")
    print("FAILED" if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        raise SystemExit(2)
    raise SystemExit(main(Path(sys.argv[1]).resolve()))
