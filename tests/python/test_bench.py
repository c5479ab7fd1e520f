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
    assert "## Goals (float32)" in text and "Dispatch floor of this machine" in text
    assert "## Roofline" not in text, "a roofline without measured roofs"


def test_report_companions(results, tmp_path):
    """Roofs, counts, ptxas figures and the analysis beside the results appear as their sections."""
    stem = tmp_path / "run"
    doc = json.loads(results.read_text())
    (tmp_path / "run.json").write_text(json.dumps(doc))
    grid = [r for r in doc["rows"] if r["impl"] == "grid" and "missing" not in r and int(r["batch"]) == max(BATCHES)]
    peaks = {"bandwidth_GBps": 1000.0, "fma_f32_GFLOPs": 2000.0, "fma_f64_GFLOPs": 1000.0}
    counts = {"iiwa": {"aba": {"flops": 4000, "bytes_f32": 112, "bytes_f64": 224}}}
    ptxas_doc = {"arch": "sm_90", "nvcc": "nvcc", "robots": [{"robot": "iiwa14", "nv": 7, "kernels": [
        {"algorithm": "aba", "dtype": "float32", "registers": 96, "spill_store_bytes": 0, "spill_load_bytes": 0,
         "stack_bytes": 0, "static_smem_bytes": 0, "dynamic_smem_bytes": 2128}]}]}
    for kind, data in (("peaks", peaks), ("counts", counts), ("ptxas", ptxas_doc)):
        Path(f"{stem}-{kind}.json").write_text(json.dumps(data))
    Path(f"{stem}-analysis.md").write_text("### Why\n\nThe analysis text.\n")
    _python("-m", "bench.report", str(tmp_path / "run.json"))
    text = (tmp_path / "run.md").read_text()
    assert "### Why" in text.split("## iiwa")[0], "the analysis belongs under the goals"
    aba = next(r for r in grid if r["op"] == "forward_dynamics_aba" and r["dtype"] == "float32")
    # 4000 flops at 112 bytes: intensity 35.7, so the float32 limit is the 2000 GFLOP/s FMA roof
    percent = 100 * 4000 * aba["samples_per_s"] / 1e9 / 2000
    line = next(ln for ln in text.split("## Roofline")[1].splitlines() if "forward dynamics (ABA) | float32" in ln)
    assert line.rstrip(" |").endswith(f"{percent:.2f}"), line
    assert "### ptxas: iiwa14 (nv 7)" in text and "| aba | float32 | 96 | 0/0 | 0 | 0 | 2128 |" in text


def _row(robot, op, impl, batch, rate, dtype="float32", **extra):
    return {"robot": robot, "op": op, "impl": impl, "batch": batch, "dtype": dtype, "samples_per_s": rate,
            "median_s": batch / rate, **extra}


@pytest.mark.parametrize("case", [
    {"name": "fastest method counts", "rows": [
        _row("iiwa", "forward_dynamics_aba", "grid", 65536, 5e8), _row("iiwa", "forward_dynamics_minv", "grid", 65536, 2e9)],
     "goal": "forward dynamics, batch 65536", "robot": "iiwa", "reached": True},
    {"name": "below the target", "rows": [_row("iiwa", "forward_dynamics_aba", "grid", 65536, 9.9e8)],
     "goal": "forward dynamics, batch 65536", "robot": "iiwa", "reached": False},
    {"name": "float64 does not count", "rows": [_row("iiwa", "forward_dynamics_aba", "grid", 65536, 2e9, "float64")],
     "goal": "forward dynamics, batch 65536", "robot": "iiwa", "reached": None},
    {"name": "ten times MJX", "rows": [
        _row("hyq", "forward_dynamics_aba", "grid", 65536, 1e9), _row("hyq", "forward_dynamics_minv", "mjx", 65536, 1e8)],
     "goal": "forward dynamics vs MJX, batch 65536", "robot": "hyq", "reached": True},
    {"name": "under ten times pure JAX", "rows": [
        _row("hyq", "forward_dynamics_aba", "grid", 65536, 1e9),
        _row("hyq", "forward_dynamics_minv", "purejax", 65536, 1.1e8)],
     "goal": "forward dynamics vs pure JAX, batch 65536", "robot": "hyq", "reached": False},
    {"name": "missing peer row", "rows": [
        _row("hyq", "forward_dynamics_aba", "grid", 65536, 1e9),
        {"robot": "hyq", "op": "forward_dynamics_minv", "impl": "mjx", "batch": 65536, "dtype": "float32",
         "missing": "time budget"}],
     "goal": "forward dynamics vs MJX, batch 65536", "robot": "hyq", "reached": None},
    {"name": "jitted batch-1 call", "rows": [_row("go2", "forward_dynamics_aba", "grid", 1, 1 / 29e-6)],
     "goal": "jitted batch-1 forward-dynamics call", "robot": "go2", "reached": True},
    {"name": "slowest compile decides", "rows": [
        _row("go2", "mass_matrix", "grid", 1, 1e4, lower_s=0.1, compile_s=0.2),
        _row("go2", "minv", "grid", 1, 1e4, lower_s=0.1, compile_s=0.45)],
     "goal": "jit compile, slowest operation", "robot": "go2", "reached": False},
], ids=lambda c: c["name"])
def test_goals(case):
    from bench import goals

    robots = sorted({r["robot"] for r in case["rows"]})
    found = [g for g in goals.evaluate(case["rows"], robots) if g["goal"] == case["goal"] and g["robot"] == case["robot"]]
    assert len(found) == 1, found
    assert found[0]["reached"] is case["reached"], found[0]


def test_goal_kernel_times_from_sweep():
    from bench import goals

    cells = {("iiwa14", "aba", "float", 1): {(256, "32x1"): 9.0, (256, "128x1"): 7.0, (1024, "baked"): 8.0},
             ("iiwa14", "forward_dynamics", "float", 1): {(256, "32x1"): 6.0, (256, "64x1"): 4.0}}
    tuned = {("iiwa14", "aba"): (256, "32x1"), ("iiwa14", "forward_dynamics"): (256, "32x1")}
    got = goals.kernel_times_from_sweep(cells, lambda m, a, p, b: tuned.get((m, a)), {"iiwa": "iiwa14"})
    assert got == {"iiwa": (6.0, "forward_dynamics")}, "the tuned shape's time, not the sweep's fastest"
    untuned = goals.kernel_times_from_sweep(cells, lambda *k: None, {"iiwa": "iiwa14"})
    assert untuned == {"iiwa": (4.0, "forward_dynamics")}
    rows = [_row("iiwa", "forward_dynamics_aba", "grid", 1, 1e4)]
    (entry,) = [g for g in goals.evaluate(rows, ["iiwa"], got) if g["goal"] == "batch-1 forward-dynamics kernel"]
    assert entry["reached"] is False and entry["measured"] == "6.0 µs (forward_dynamics)"


def test_frax_peer_agrees_with_grid(robots_dir):
    """The frax peer computes what grid-rbd does (float64, random states), so its timings compare like with like."""
    proc = _python("-m", "bench.run", "--robots-dir", str(robots_dir), "--robots", "iiwa", "--check", "--peers", "frax")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("frax")]
    ops = ("inverse_dynamics", "mass_matrix", "minv", "forward_dynamics_minv")
    assert len(lines) == len(ops) and all(" ok " in ln for ln in lines), proc.stdout


def test_sweep_summary_tiers(tmp_path):
    from bench.launch import summary

    sweep = tmp_path / "sweep.txt"
    sweep.write_text("\n".join([
        "# launch-shape sweep",
        "g1_29dof minv double 256 1x32 1 70 69 30",
        "g1_29dof minv double 256 64x1 1 50 49 30",
        "g1_29dof minv double 256 64x1@lite 1 52 49 30",
        "g1_29dof minv double 256 64x1@minimal 1 40 39 30",
        "g1_29dof minv double 256 128x1@minimal 1 55 49 30",
    ]) + "\n")
    _, cells, _ = summary.parse(sweep)
    assert cells[("g1_29dof", "minv", "double", 1)] == {(256, "1x32"): 70.0, (256, "64x1"): 50.0}, \
        "the launch tables' cells only"
    text = summary.summarize(sweep, None)
    row = next(line for line in text.splitlines() if line.startswith("| g1_29dof | minv | double | 1 |"))
    assert row == "| g1_29dof | minv | double | 1 | **50.0 (64x1)** | 52.0 (64x1) | 40.0 (64x1) |"
    # a table that bakes TIER_MINIMAL for the entry point moves the mark
    table = tmp_path / "h200.json"
    steps = [{"max_batch": 0, "threads_per_sample": 64, "samples_per_block": 1}]
    table.write_text(json.dumps({"robots": {"g1_29dof nq=36": {"minv": {
        "double": {"max_threads": 256, "steps": steps, "tier": "minimal"}}}}}))
    text = summary.summarize(sweep, table)
    row = next(line for line in text.splitlines() if line.startswith("| g1_29dof | minv | double | 1 |"))
    assert row == "| g1_29dof | minv | double | 1 | 50.0 (64x1) | 52.0 (64x1) | **40.0 (64x1)** |"


def test_rollout_benchmark_peers_agree(robots_dir, tmp_path):
    """bench.rollout times the gradient of one rollout loss by grid-rbd's fused kernels (reverse mode as a user
    gets it, by every step's Jacobians, and by the adjoint kernel), its scan of single steps and the pure-JAX
    peer; in float64 the four agree to rounding, so the timings compare the same computation."""
    out = tmp_path / "rollout.json"
    _python("-m", "bench.rollout", "--robots-dir", str(robots_dir), "--robots", "iiwa", "--batch", "4", "--steps", "3",
            "--reps", "1", "--dtype", "float64", "--out", str(out))
    rows = json.loads(out.read_text())["rows"]
    assert [r["impl"] for r in rows] == ["grid", "grid_kernel", "grid_steps", "purejax"]
    assert all(r["max_rel_diff_vs_grid"] < 1e-10 for r in rows[1:]), rows
    assert all(r["median_ms"] > 0 for r in rows)


def test_params_benchmark_rows(robots_dir, tmp_path):
    """bench.params times the regressor and each operation with and without per-call inertial parameters: one
    row per variant and batch, and a table line per operation with the cost of ``params=``."""
    out = tmp_path / "params.json"
    proc = _python("-m", "bench.params", "--robots-dir", str(robots_dir), "--robots", "iiwa", "--batches", "1", "3",
                   "--reps", "2", "--dtype", "float64", "--out", str(out))
    rows = json.loads(out.read_text())["rows"]
    variants = {"joint_torque_regressor", "inverse_dynamics", "inverse_dynamics+params", "mass_matrix",
                "mass_matrix+params", "forward_dynamics", "forward_dynamics+params"}
    assert {(r["variant"], r["batch"]) for r in rows} == {(v, b) for v in variants for b in (1, 3)}
    assert all(r["median_s"] > 0 and r["robot"] == "iiwa" for r in rows)
    assert "| iiwa | 3 | mass_matrix |" in proc.stdout and "×" in proc.stdout, proc.stdout
