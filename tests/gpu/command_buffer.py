"""Whether XLA runs grid-rbd's custom calls inside command buffers (CUDA graphs) under ``jax.jit``, and what a
jitted batch-1 call costs over the machine's dispatch floor.

Run on a GPU machine, against robots built with their CUDA library (``go tool mage build``; the folders hold
``metadata.json`` and the libraries)::

    PYTHONPATH=python python tests/gpu/command_buffer.py ROBOT_DIR [ROBOT_DIR ...]

XLA captures a run of commands into a command buffer only when it holds at least
``xla_gpu_graph_min_graph_size`` of them (5 by default), so a jitted program of one custom call runs outside
one whatever its handler declares, while the same call inside a larger program (a training step) is
captured with its neighbours. Every entry point is therefore compiled twice: with XLA's defaults, and with that
threshold at 1 (``compile(compiler_options=...)``), which shows whether the handler itself is capturable
(``kCmdBufferCompatible``) and what a captured call costs. For each it prints whether the optimised HLO places
the custom call in a command-buffer computation and the median time of a synchronised batch-1 call next to
jitted ``x + 1`` on 7 floats (the dispatch floor). Exits non-zero when a custom call stays outside command
buffers with the threshold at 1.
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


def median_call_us(call: Callable, *args) -> float:
    """Median microseconds of a synchronised call of the compiled call, after warming up."""
    for _ in range(20):
        jax.block_until_ready(call(*args))
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        jax.block_until_ready(call(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def compiled(f: Callable, args: tuple, options: dict[str, int] | None) -> Callable:
    """f jitted and compiled for args with XLA compiler options (None: the defaults)."""
    return jax.jit(f).lower(*args).compile(options)


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


def in_command_buffer(call) -> bool | None:
    """Whether every grid-rbd custom call of the compiled call's optimised HLO sits in a command-buffer
    computation (None: no grid-rbd custom call found)."""
    hlo = call.as_text()
    holders = [name for name, body in computations(hlo).items() if 'custom_call_target="grid_rbd.' in body]
    if not holders:
        return None
    return all("command_buffer" in name for name in holders)


# The two compilations of every call: XLA's defaults, and command buffers from a single command on.
VARIANTS = {"defaults": None, "min graph size 1": {"xla_gpu_graph_min_graph_size": 1}}


def main(robot_dirs: list[str]) -> int:
    x = jnp.zeros((1, 7), jnp.float32)
    floor = median_call_us(compiled(lambda x: x + 1, (x,), None), x)
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}; dispatch floor (jitted x + 1): {floor:.1f} us")
    print(f"{'robot':<10} {'entry point':<30} {'XLA options':<18} {'command buffer':<15} {'batch-1 call':>12} "
          f"{'over floor':>11}")
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
            for variant, options in VARIANTS.items():
                call = compiled(f, tuple(args), options)
                wrapped = in_command_buffer(call)
                us = median_call_us(call, *args)
                failed += options is not None and wrapped is False
                state = {True: "yes", False: "no", None: "no custom call"}[wrapped]
                print(f"{robot.name:<10} {name:<30} {variant:<18} {state:<15} {us:>9.1f} us {us - floor:>8.1f} us")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1:]))
