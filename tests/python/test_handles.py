"""Handles of several robots live side by side in one process.

Each robot's kernels come from its own libgrid_rbd_cpu.so; loading a second robot must not change what
the first one computes. Checked in fresh interpreters, so that the load order is the test's and not the
session's: gravity_forces, mass_matrix and frame_poses of each robot, loaded alone and loaded after or
before another robot, must be identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

_SCRIPT = r"""
import json, sys
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
from grid_rbd.jax import JaxRobotHandle

out = {}
handles = [JaxRobotHandle(name) for name in sys.argv[1:]]
for h in handles:
    q = np.linspace(-0.5, 0.5, h.nq)
    if h.floating_base:
        q[3:7] = [0.0, 0.0, 0.0, 1.0]
    try:
        out[h.name] = {
            "gravity_forces": np.asarray(h.gravity_forces(q)).tolist(),
            "mass_matrix": np.asarray(h.mass_matrix(q)).tolist(),
            "frame_pos": np.asarray(h.frame_poses(q)[0]).tolist(),
        }
    except Exception as e:
        out[h.name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
print(json.dumps(out))
"""


def _run(names: list[str]) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, *names], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, f"loading {names} in a fresh interpreter failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("pair", [("iiwa", "go2"), ("go2", "iiwa")], ids=["iiwa_then_go2", "go2_then_iiwa"])
def test_two_robots_in_one_process(pair, jax_handle):
    for name in pair:
        jax_handle(name)  # a robot that is not built errors here, with the build hint
    alone = {name: _run([name])[name] for name in pair}
    together = _run(list(pair))
    problems = []
    for name in pair:
        a, t = alone[name], together[name]
        if "error" in a:
            problems.append(f"{name} alone: {a['error']}")
            continue
        if "error" in t:
            problems.append(f"{name} loaded with {pair}: {t['error']}")
            continue
        for key in a:
            if not np.array_equal(np.asarray(a[key]), np.asarray(t[key])):
                problems.append(f"{name}.{key} differs when loaded with {pair} from {name} alone")
    if problems:
        pytest.fail(f"robots loaded in the order {pair} interfere:\n  " + "\n  ".join(problems), pytrace=False)
