"""The benchmark programs (bench/run.py, bench/report.py) end to end on the CPU, in a few seconds.

bench.run times iiwa (the suite's build, which holds model.json) at two batches with three repetitions:
grid-rbd and Pinocchio on every operation (batch 64 spreads Pinocchio over worker processes), MJX (missing
where mujoco is not installed, which must still give rows), then a resumed run that adds the pure-JAX peer on
one operation, then a run whose time budget is spent before the first cell. The JSON must hold every cell
once, measured or with a reason, and bench.report must write the Markdown report and a PNG plot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grid_rbd._artifacts import find_robot

REPO_ROOT = Path(__file__).resolve().parents[2]
OPS = ("inverse_dynamics", "mass_matrix", "minv", "forward_dynamics_aba", "forward_dynamics_minv",
       "inverse_dynamics_derivatives", "forward_dynamics_derivatives", "frame_poses")
BATCHES = (1, 64)
DTYPES = ("float32", "float64")


def _python(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "python"), str(REPO_ROOT), env.get("PYTHONPATH", "")])
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run([sys.executable, *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def robots_dir() -> Path:
    build = find_robot("iiwa")
    if not (build / "model.json").is_file():
        pytest.fail(f"{build} has no model.json: rebuild iiwa with `go tool mage build` (tests/suite_test.go does)")
    return build.parent


@pytest.fixture(scope="module")
def results(robots_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    common = ["-m", "bench.run", "--robots-dir", str(robots_dir), "--robots", "iiwa", "--out", str(out),
              "--quick", "--batches", *map(str, BATCHES), "--reps", "3", "--threads", "2"]
    proc = _python(*common, "--peers", "grid", "pinocchio", "mjx")
    assert proc.stdout.strip().splitlines()[-1] == str(out), "bench.run must print the results path on stdout"
    assert "grid iiwa inverse_dynamics float32 batch 1" in proc.stderr, "no progress line on stderr"
    first = json.loads(out.read_text())
    _python(*common, "--resume", "--peers", "grid", "purejax", "--ops", "inverse_dynamics", "--dtypes", "float64")
    second = json.loads(out.read_text())
    kept = {_key(r): r for r in first["rows"] if r["impl"] == "grid"}
    assert all(_key(r) not in kept or r == kept[_key(r)] for r in second["rows"]), "--resume re-measured a cell"
    return out


def _key(r: dict) -> tuple:
    return (r["robot"], r["op"], r["dtype"], int(r["batch"]), r["impl"])


def test_rows_complete(results):
    doc = json.loads(results.read_text())
    rows = doc["rows"]
    keys = [_key(r) for r in rows]
    assert len(keys) == len(set(keys)), "a cell appears twice"
    want = {("iiwa", op, dt, b, impl) for op in OPS for dt in DTYPES for b in BATCHES
            for impl in ("grid", "pinocchio", "mjx")}
    want |= {("iiwa", "inverse_dynamics", "float64", b, "purejax") for b in BATCHES}
    assert set(keys) == want
    for r in rows:
        if "missing" in r:
            assert isinstance(r["missing"], str) and r["missing"], r
            continue
        assert 0 < r["min_s"] <= r["median_s"] <= r["p90_s"], r
        assert r["samples_per_s"] == pytest.approx(r["batch"] / r["median_s"]), r
        assert r["reps"] >= 3, r
        if r["impl"] != "pinocchio":
            assert r["compile_s"] > 0 and r["lower_s"] > 0, r
        if r["batch"] == 1:
            assert r["host_latency_s"] > 0, r
    by = {_key(r): r for r in rows}
    grid = [r for r in rows if r["impl"] == "grid"]
    assert all("missing" not in r for r in grid), [r["missing"] for r in grid if "missing" in r]
    assert all("missing" not in by[("iiwa", "inverse_dynamics", "float64", b, "purejax")] for b in BATCHES)
    meta = doc["meta"]
    pin = [r for r in rows if r["impl"] == "pinocchio"]
    if meta["peers"]["pinocchio"]["status"] == "measured":  # the test venv has pin; a GPU machine may not
        assert all("float64 only" in r["missing"] and r["unsupported"] for r in pin if r["dtype"] == "float32")
        measured = {r["op"] for r in pin if "missing" not in r}
        assert measured == set(OPS) - {"forward_dynamics_minv"}, measured
        assert by[("iiwa", "mass_matrix", "float64", 64, "pinocchio")]["threads"] == 2
        assert by[("iiwa", "mass_matrix", "float64", 1, "pinocchio")]["threads"] == 1
    else:
        assert all(r["missing"] == meta["peers"]["pinocchio"]["reason"] for r in pin)
    assert meta["env"]["jax"] and meta["env"]["device"]["platform"] == "cpu" and meta["env"]["cpu"]["count"]
    assert meta["robots"]["iiwa"]["nv"] == 7
    if meta["peers"]["mjx"]["status"] != "measured":
        assert all(r["missing"] == meta["peers"]["mjx"]["reason"] for r in rows if r["impl"] == "mjx")


def test_time_budget_still_writes(robots_dir, tmp_path):
    out = tmp_path / "budget.json"
    _python("-m", "bench.run", "--robots-dir", str(robots_dir), "--robots", "iiwa", "--out", str(out), "--quick",
            "--peers", "grid", "--ops", "mass_matrix", "--time-budget", "0")
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 4 and all(r["missing"] == "time budget" for r in rows)


def test_report(results):
    out = results.with_name("report.md")
    _python("-m", "bench.report", str(results), "--out", str(out))
    text = out.read_text()
    for section in ("## Environment", "## Implementations", "## iiwa", "samples per second", "speed-up",
                    "## jit compile time", "## Batch-1 latency", "## Missing cells"):
        assert section in text, f"report lacks {section!r}"
    png = out.with_name("report-iiwa.png")
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"]({png.name})" in text
