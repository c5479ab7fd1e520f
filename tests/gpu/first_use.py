"""Time to the first CUDA call of a robot built at run time (``from_urdf``, no nvcc): the generator, the CPU and
the CUDA handler libraries (the host compiler), then NVRTC for the kernels of the entry point called.

Run on a GPU machine, from the repository root, with the generator reachable (``GRID_RBD_GENERATOR``: a static
``grid-rbd-build``, ``CGO_ENABLED=0 go build ./codegen/cmd/grid-rbd-build``), a C++ compiler, the CUDA 13
runtime and NVRTC (``pip install grid-rbd[cuda]``'s wheels or a toolkit)::

    PYTHONPATH=python python tests/gpu/first_use.py URDF [--floating] [--roll=auto|always|never] [--detail]

Each run starts from an empty cache (a temporary ``GRID_RBD_CACHE``) and prints the seconds from
``from_urdf`` to the first float32 ``forward_dynamics`` result on the GPU, the split between the build and
the first call (NVRTC), a second call, and a second process that finds everything cached. ``--detail`` also
prints the generator's compile times and when the build's NVRTC prefetch ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

CHILD = """
import sys, time
start = time.perf_counter()
import jax, jax.numpy as jnp
from grid_rbd.jax import JaxRobotHandle
imported = time.perf_counter()
if sys.argv[4] == "1":
    import functools, threading
    from grid_rbd import _runtime_build
    _runtime_build.build_from_urdf = functools.partial(_runtime_build.build_from_urdf, quiet=False)
    prefetch = _runtime_build.prefetch

    def timed_prefetch(*args, **kwargs):
        began = time.perf_counter()
        wait = prefetch(*args, **kwargs)

        def watch():
            wait()
            print(f"grid_rbd: prefetch NVRTC from {began - imported:.1f} s to {time.perf_counter() - imported:.1f} s "
                  "after from_urdf began", file=sys.stderr, flush=True)
        threading.Thread(target=watch, daemon=True).start()
        return wait
    _runtime_build.prefetch = timed_prefetch
robot = JaxRobotHandle.from_urdf(sys.argv[1], floating=sys.argv[2] == "1", roll=sys.argv[3])
built = time.perf_counter()
q = robot.random_configuration(jax.random.key(0), shape=(1,), dtype=jnp.float32)
z = jnp.zeros((1, robot.nv), jnp.float32)
qdd = jax.block_until_ready(robot.forward_dynamics(q, z, z))
first = time.perf_counter()
assert qdd.devices() == {jax.devices("cuda")[0]}, qdd.devices()
jax.block_until_ready(robot.forward_dynamics(q, z, z))
second = time.perf_counter()
print(f"import {imported - start:.1f} s; from_urdf {built - imported:.1f} s; first forward_dynamics on the GPU "
      f"{first - built:.1f} s; from_urdf to the first result {first - imported:.1f} s; next call "
      f"{(second - first) * 1e3:.1f} ms; runtime kernels: {robot._robot.runtime_kernels is not None}")
"""


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    urdf, floating = argv[0], "--floating" in argv[1:]
    roll = next((a.split("=", 1)[1] for a in argv[1:] if a.startswith("--roll=")), "auto")
    detail = "--detail" in argv[1:]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, GRID_RBD_CACHE=cache, GRID_RBD_DEFER="first-use")
        for label in ("empty cache", "second process"):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", CHILD, urdf, "1" if floating else "0", roll,
                                   "1" if detail else "0"], env=env,
                                  capture_output=True, text=True, check=False)
            notes = " | ".join(line.strip() for line in proc.stderr.splitlines() if line.startswith("grid_rbd:") or
                               (detail and re.search(r" in [0-9.]+m?s$", line)))
            print(f"{os.path.basename(urdf)} (roll={roll}, {label}): {proc.stdout.strip() or proc.stderr.strip()[-3000:]} "
                  f"[process {time.perf_counter() - start:.1f} s] {notes}", flush=True)
            if proc.returncode != 0:
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
