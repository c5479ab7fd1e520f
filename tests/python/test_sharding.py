"""Batches sharded over eight host devices: every handle method, its derivative rules under
``jit(vmap(grad))`` and a Hessian run each device's own samples, with no collective.

The cases run in a process of their own (sharding_cases.py; XLA's host device count is fixed when JAX
starts, and the rest of the suite runs on one device). Each case is held to three oracles: the same call on
unsharded arrays, the compiled HLO's collectives, and the batch every grid_rbd custom call in that HLO sees
(one device's shard); the outputs must keep the inputs' sharding. A control, the bare FFI call without the
partitioning, shows the checks see a gathered batch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sharding_cases

HERE = Path(__file__).resolve().parent
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
