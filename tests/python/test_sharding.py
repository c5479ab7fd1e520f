"""Batches sharded over eight host devices: every handle method, its derivative rules under
``jit(vmap(grad))`` and a Hessian run each device's own samples, with no collective.

The cases run in a process of their own (sharding_cases.py; XLA's host device count is fixed when JAX
starts, and the rest of the suite runs on one device). Each case is held to three oracles: the same call on
unsharded arrays, the compiled HLO's collectives, and the batch every grid_rbd custom call in that HLO sees
(one device's shard); the outputs must keep the inputs' sharding. A control, the bare FFI call without the
partitioning, shows the checks see a gathered batch. The multi-device example (grid_rbd.multidevice) and the
scaling benchmark (bench.sharding) run on eight, one and two devices.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sharding_cases

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
TOLERANCE = 1e-12  # float64, relative to each output's largest magnitude
# What the partitioned calls must not contain (the uneven batch's padding moves rows with collective-permute).
FORBIDDEN = ("all-gather", "all-reduce", "all-to-all", "reduce-scatter")


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    env = dict(os.environ)
    devices = f"--xla_force_host_platform_device_count={sharding_cases.DEVICES}"
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {devices}".strip()
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run([sys.executable, str(HERE / "sharding_cases.py"), *sharding_cases.ROBOTS],
                          capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"sharding_cases.py failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def _case(report: dict[str, Any], robot: str, key: str) -> dict[str, Any]:
    result = report["robots"][robot][key]
    assert "exception" not in result, result["exception"]
    return result


def _batch_of(spec: list[Any], n: int) -> list[Any]:
    return (spec + [None] * n)[:n]


@pytest.mark.parametrize("robot,key", [k for k in sharding_cases.CASE_KEYS if k[1] != "unpartitioned_control"],
                         ids=[f"{r}-{k}" for r, k in sharding_cases.CASE_KEYS if k != "unpartitioned_control"])
def test_each_device_runs_its_shard(report, robot, key):
    result = _case(report, robot, key)
    assert result["error"] <= TOLERANCE, f"sharded result differs from the unsharded call by {result['error']:.3g}"
    local, in_spec = result["local_batch"], result["in_spec"]
    for spec in result["out_specs"]:
        assert _batch_of(spec, len(local)) == in_spec, f"output sharded {spec}, inputs {in_spec}"
    if key == "eager":
        return  # no HLO to read; the sharding above is what a call outside jit shows
    present = [c for c in result["collectives"] if c in FORBIDDEN]
    assert not present, f"the compiled HLO contains {present}"
    assert result["calls"], "no grid_rbd custom call in the compiled HLO"
    for call in result["calls"]:
        for shape in call["shapes"]:
            assert shape[: len(local)] == local, f"{call['target']} sees {shape}, not a shard of batch {local}"


@pytest.mark.parametrize("robot", sharding_cases.ROBOTS)
def test_checks_see_an_unpartitioned_call(report, robot):
    result = _case(report, robot, "unpartitioned_control")
    assert "all-gather" in result["collectives"], result["collectives"]
    batches = {shape[0] for call in result["calls"] for shape in call["shapes"]}
    assert batches == {sharding_cases.BATCH}, batches


def _run_on_devices(devices: int, *args: str) -> str:
    """``python *args`` from the repository root with ``devices`` host devices; its stdout."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}".strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "python"), str(REPO_ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    return proc.stdout


def _largest_difference(out: str) -> float:
    found = re.findall(r"largest relative difference from the unsharded call on its (\d+) shard\(s\): (\S+)", out)
    assert found, out
    return max(float(d) for _, d in found)


def test_example_pads_a_batch_over_eight_devices():
    """The multi-device example: 100 samples over 8 devices are 13 per device, 4 of them padding; the step's
    only collective is the user's mean, and every shard equals the unsharded call."""
    out = _run_on_devices(8, "-m", "grid_rbd.multidevice", "--robot", "iiwa", "--batch", "100", "--iterations", "2")
    assert "8 device(s)" in out and "13 per device (4 padding samples)" in out, out
    assert "collectives in the step: all-reduce\n" in out, out
    assert "on its 8 shard(s)" in out, out
    assert _largest_difference(out) <= TOLERANCE, out


def test_example_in_the_suites_process(capsys):
    """The example in this process, on its devices (one, except on a multi-GPU machine): a batch they divide."""
    import jax

    from grid_rbd import multidevice

    n = jax.device_count()
    assert multidevice.main(["--robot", "iiwa", "--batch", str(5 * n), "--iterations", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{n} device(s)" in out and "5 per device" in out and "padding" not in out, out
    assert ("collectives in the step: none" if n == 1 else "collectives in the step: all-reduce\n") in out, out
    assert _largest_difference(out) <= TOLERANCE, out


def test_scaling_benchmark_runs_on_two_devices(tmp_path):
    """bench.sharding end to end on two host devices: one row per device count and operation, the collective
    only where the mean crosses devices; on one device also the unsharded and direct calls, with the same
    batch and no collective."""
    out_file = tmp_path / "sharding.json"
    _run_on_devices(2, "-m", "bench.sharding", "--robot", "iiwa", "--per-device", "16", "--reps", "2",
                    "--ops", "dispatch_floor", "forward_dynamics_aba", "grad_step_mean", "--out", str(out_file))
    rows = json.loads(out_file.read_text())["rows"]
    cells = {(r["devices"], r["op"]): r for r in rows if r["mode"] == "sharded"}
    ops = ("dispatch_floor", "forward_dynamics_aba", "grad_step_mean")
    assert set(cells) == {(n, op) for n in (1, 2) for op in ops}
    baselines = {(r["mode"], r["op"]): r for r in rows if r["mode"] != "sharded"}
    assert set(baselines) == {(mode, op) for mode in ("unsharded", "direct") for op in ops}
    assert all(r["devices"] == 1 and r["collectives"] == [] for r in baselines.values())
    assert baselines[("direct", "forward_dynamics_aba")]["batch"] == 16
    assert cells[(2, "forward_dynamics_aba")]["batch"] == 32 and cells[(2, "forward_dynamics_aba")]["collectives"] == []
    assert cells[(2, "grad_step_mean")]["collectives"] == ["all-reduce"]
    assert cells[(1, "grad_step_mean")]["collectives"] == []
