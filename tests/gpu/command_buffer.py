"""Whether XLA runs grid-rbd's custom calls inside command buffers (CUDA graphs) under ``jax.jit``, and what a
jitted batch-1 call costs over the machine's dispatch floor.

Run on a GPU machine, against robots built with their CUDA library (``go tool mage build``; the folders hold
``metadata.json`` and the libraries)::

    PYTHONPATH=python python tests/gpu/command_buffer.py ROBOT_DIR [ROBOT_DIR ...]
    XLA_FLAGS=--xla_gpu_enable_command_buffer=+CUSTOM_CALL PYTHONPATH=python python tests/gpu/command_buffer.py ...

For every robot and entry point it prints whether the optimised HLO places the custom call in a command-buffer
computation, and the median time of a synchronised jitted call at batch 1 next to jitted ``x + 1`` on 7 floats
(the dispatch floor). Exits non-zero when a custom call is left outside command buffers.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from grid_rbd.jax import JaxRobotHandle

REPS = 300


def median_call_us(f: Callable, *args) -> float:
    """Median microseconds of a synchronised call of the jitted f, after warming up."""
    jitted = jax.jit(f)
    for _ in range(20):
        jax.block_until_ready(jitted(*args))
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def computations(hlo: str) -> dict[str, str]:
    """The optimised HLO module's computations by name."""
    blocks: dict[str, str] = {}
    name, body = None, []
    for line in hlo.splitlines():
        head = re.match(r"^(?:ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$", line)
        if head and not line.startswith(" "):
            name, body = head.group(1), []
        elif line.startswith("}") and name is not None:
            blocks[name] = "\n".join(body)
            name = None
        elif name is not None:
            body.append(line)
    return blocks


def in_command_buffer(f: Callable, *args) -> bool | None:
    """Whether every grid-rbd custom call of f's optimised HLO sits in a command-buffer computation (None: no
    grid-rbd custom call found)."""
    hlo = jax.jit(f).lower(*args).compile().as_text()
    holders = [name for name, body in computations(hlo).items() if 'custom_call_target="grid_rbd.' in body]
    if not holders:
        return None
    return all("command_buffer" in name for name in holders)


def main(robot_dirs: list[str]) -> int:
    floor = median_call_us(lambda x: x + 1, jnp.zeros((1, 7), jnp.float32))
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}; dispatch floor (jitted x + 1): {floor:.1f} us")
    print(f"{'robot':<16} {'entry point':<34} {'command buffer':<15} {'batch-1 call':>12} {'over floor':>11}")
    failed = 0
    for path in robot_dirs:
        robot = JaxRobotHandle(path)
        key = jax.random.key(0)
        q = robot.random_configuration(key, shape=(1,), dtype=jnp.float32)
        v = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, (1, robot.nv)), jnp.float32)
        calls = {
            "forward_dynamics": (robot.forward_dynamics, q, v, v),
            "inverse_dynamics": (robot.inverse_dynamics, q, v, v),
            "mass_matrix": (robot.mass_matrix, q),
            "forward_dynamics_derivatives": (robot.forward_dynamics_derivatives, q, v, v),
        }
        for name, (f, *args) in calls.items():
            wrapped = in_command_buffer(f, *args)
            us = median_call_us(f, *args)
            failed += wrapped is False
            state = {True: "yes", False: "NO", None: "no custom call"}[wrapped]
            print(f"{robot.name:<16} {name:<34} {state:<15} {us:>9.1f} us {us - floor:>8.1f} us")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1:]))
