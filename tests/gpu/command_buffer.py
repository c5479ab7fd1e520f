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
(``kCmdBufferCompatible``) and what a captured call costs. For each it prints whether the custom call runs
inside a command buffer (read from the thunk sequence XLA dumps after its thunk passes), the median time of a
synchronised batch-1 call and of jitted ``x + 1`` on 7 floats (the dispatch floor) timed alternately, so that
both see the same state of the host, and the executable's top-level thunks. Exits non-zero when a custom call stays outside command buffers with the threshold at 1.
Which command types XLA may capture is ``XLA_FLAGS=--xla_gpu_enable_command_buffer=...`` (custom calls are
``+CUSTOM_CALL``).
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from grid_rbd.jax import JaxRobotHandle

REPS = 300


def median_calls_us(*calls: tuple[Callable, tuple]) -> list[float]:
    """Median microseconds of a synchronised call of each compiled call with its arguments, after warming up;
    the calls take turns, so that a change of the host's speed during the run affects all alike."""
    for _ in range(20):
        for call, args in calls:
            jax.block_until_ready(call(*args))
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(REPS):
        for (call, args), out in zip(calls, times):
            start = time.perf_counter()
            jax.block_until_ready(call(*args))
            out.append(time.perf_counter() - start)
    return [statistics.median(t) * 1e6 for t in times]


def compiled(f: Callable, args: tuple, options: dict[str, int] | None) -> tuple[Callable, list[str] | None]:
    """f jitted and compiled for args with XLA compiler options (None: the defaults), and the kinds of the
    executable's top-level thunks (None: XLA wrote no thunk sequence).

    Command buffers are formed from thunks after the HLO passes, so the optimised HLO cannot tell; the
    thunk sequence XLA dumps after its thunk passes can: a captured custom call sits inside a kCommandBuffer
    thunk instead of running as a top-level kCustomCall one."""
    with tempfile.TemporaryDirectory() as dump:
        call = jax.jit(f).lower(*args).compile({**(options or {}), "xla_dump_to": dump})
        # after the thunk passes where XLA ran them (command buffers are formed there), else as emitted
        sequences = (sorted(Path(dump).glob("*thunk_sequence_after_thunk_passes.txt"))
                     or sorted(Path(dump).glob("*thunk_sequence.txt")))
        if not sequences:
            dumped = sorted(p.name for p in Path(dump).iterdir() if "thunk" in p.name)
            print(f"  (no thunk sequence among XLA's dump; its thunk files: {dumped or 'none'})")
            return call, None
        top = re.findall(r"^\d+: (k\w+)", sequences[-1].read_text(), flags=re.MULTILINE)
    return call, top


def floor_like(outputs) -> Callable:
    """The dispatch floor of a call with these outputs: a jitted program that writes arrays of the same shapes
    and dtypes from its input in one fused elementwise kernel (each output a jax.Array costs the host too)."""
    def f(x):
        return tuple(jnp.broadcast_to(x[0, 0] + k, o.shape).astype(o.dtype) for k, o in enumerate(outputs))
    return f


def in_command_buffer(kinds: list[str] | None) -> bool | None:
    """Whether the custom calls run inside command buffers (None: unknown, no thunk sequence dumped)."""
    if kinds is None:
        return None
    return "kCommandBuffer" in kinds and not any("CustomCall" in k for k in kinds)


# The two compilations of every call: XLA's defaults, and command buffers from a single command on.
VARIANTS = {"defaults": None, "min graph size 1": {"xla_gpu_graph_min_graph_size": 1}}


def main(robot_dirs: list[str]) -> int:
    x = jnp.zeros((1, 7), jnp.float32)
    floor_call = (compiled(lambda x: x + 1, (x,), None)[0], (x,))
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}; floor: jitted x + 1, timed in turn with each "
          "call; floor with its outputs: a jitted elementwise program writing the call's output shapes")
    print(f"{'robot':<10} {'entry point':<30} {'XLA options':<18} {'command buffer':<15} {'batch-1 call':>12} "
          f"{'floor':>9} {'over floor':>11} {'floor, outputs':>15} {'over it':>9}")
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
            outputs = jax.tree.leaves(jax.eval_shape(f, *args))
            like = (compiled(floor_like(outputs), (x,), None)[0], (x,))
            for variant, options in VARIANTS.items():
                call, kinds = compiled(f, tuple(args), options)
                wrapped = in_command_buffer(kinds)
                us, floor, floor_outputs = median_calls_us((call, tuple(args)), floor_call, like)
                failed += options is not None and wrapped is not True
                state = {True: "yes", False: "no", None: "unknown"}[wrapped]
                print(f"{robot.name:<10} {name:<30} {variant:<18} {state:<15} {us:>9.1f} us {floor:>6.1f} us "
                      f"{us - floor:>8.1f} us {floor_outputs:>12.1f} us {us - floor_outputs:>6.1f} us  "
                      f"{' '.join(kinds or [])}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1:]))
