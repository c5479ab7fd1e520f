"""Roofline arithmetic of bench/roofline/model.py on synthetic numbers worked out by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.roofline import model  # noqa: E402

# Two kernels on a device with 1000 GB/s, 50 000 GFLOP/s in float32 and 25 000 GFLOP/s in float64
# (ridge at 50 and 25 flops/byte).
COUNTS = {
    "bot": {
        # 100 flops over 200 (f64) or 100 (f32) bytes: memory-bound in both precisions
        "light": {"flops": 100, "bytes_f32": 100, "bytes_f64": 200},
        # 1e6 flops in float64, 1.2e6 in float32 (say, a precision-dependent branch), 1000/500 bytes
        "heavy": {"flops": 1_000_000, "flops_f32": 1_200_000, "bytes_f32": 500, "bytes_f64": 1000},
    }
}
PEAKS = {"bandwidth_GBps": 1000.0, "fma_f32_GFLOPs": 50_000.0, "fma_f64_GFLOPs": 25_000.0}


def test_memory_bound_row():
    row = {"robot": "bot", "op": "light", "dtype": "float64", "batch": 4096, "samples_per_s": 1e9}
    r = model.analyse_row(row, COUNTS, PEAKS)
    # intensity 100/200 = 0.5 flop/byte; memory roof 1000 GB/s × 0.5 = 500 GFLOP/s < 25 000
    assert r["intensity"] == pytest.approx(0.5)
    assert r["limit_GFLOPs"] == pytest.approx(500.0)
    assert r["bound"] == "memory"
    # 100 flops × 1e9 samples/s = 100 GFLOP/s, 200 GB/s; 100/500 = 20 % of the limit
    assert r["achieved_GFLOPs"] == pytest.approx(100.0)
    assert r["achieved_GBps"] == pytest.approx(200.0)
    assert r["percent_of_limit"] == pytest.approx(20.0)
    # the limit in samples: min(25e12/100, 1e12/200) = 5e9 samples/s
    assert r["limit_samples_per_s"] == pytest.approx(5e9)
    assert r["ridge_intensity"] == pytest.approx(25.0)
    assert r["batch"] == 4096  # the row's own fields are kept


def test_compute_bound_rows_use_their_precision():
    f64 = model.analyse_row(
        {"robot": "bot", "op": "heavy", "dtype": "float64", "batch": 1, "samples_per_s": 5e6}, COUNTS, PEAKS
    )
    # intensity 1e6/1000 = 1000 > 25: limited by 25 000 GFLOP/s; achieved 1e6 × 5e6 = 5000 GFLOP/s = 20 %
    assert f64["intensity"] == pytest.approx(1000.0)
    assert f64["bound"] == "compute"
    assert f64["limit_GFLOPs"] == pytest.approx(25_000.0)
    assert f64["achieved_GFLOPs"] == pytest.approx(5000.0)
    assert f64["percent_of_limit"] == pytest.approx(20.0)
    assert f64["limit_samples_per_s"] == pytest.approx(2.5e7)

    f32 = model.analyse_row(
        {"robot": "bot", "op": "heavy", "dtype": "f32", "batch": 1, "samples_per_s": 1e7}, COUNTS, PEAKS
    )
    # float32 counts: 1.2e6 flops over 500 bytes = 2400 flops/byte; limit 50 000 GFLOP/s;
    # achieved 1.2e6 × 1e7 = 12 000 GFLOP/s = 24 %
    assert f32["flops_per_sample"] == 1_200_000
    assert f32["intensity"] == pytest.approx(2400.0)
    assert f32["limit_GFLOPs"] == pytest.approx(50_000.0)
    assert f32["percent_of_limit"] == pytest.approx(24.0)


def test_rows_without_counts_are_dropped():
    rows = [
        {"robot": "bot", "op": "light", "dtype": "float32", "batch": 1, "samples_per_s": 2e9},
        {"robot": "other", "op": "light", "dtype": "float32", "batch": 1, "samples_per_s": 1.0},
        {"robot": "bot", "op": "unknown", "dtype": "float32", "batch": 1, "samples_per_s": 1.0},
    ]
    (r,) = model.roofline(COUNTS, PEAKS, rows)
    # float32: 100 flops / 100 bytes = 1 flop/byte, limit 1000 GFLOP/s; achieved 200 GFLOP/s = 20 %
    assert r["limit_GFLOPs"] == pytest.approx(1000.0)
    assert r["percent_of_limit"] == pytest.approx(20.0)
    assert "| bot | light | float32 |" in model.markdown([r])


def test_benchmark_op_names_and_implementations():
    counts = {"bot": {"aba": {"flops": 400, "bytes_f32": 40, "bytes_f64": 80}}}
    rows = [
        {"robot": "bot", "op": "forward_dynamics_aba", "dtype": "float64", "batch": 1, "samples_per_s": 1e9,
         "impl": "grid"},
        {"robot": "bot", "op": "forward_dynamics_aba", "dtype": "float64", "batch": 1, "samples_per_s": 1e9,
         "impl": "purejax"},
        {"robot": "bot", "op": "forward_dynamics_aba", "dtype": "float64", "batch": 1, "samples_per_s": None,
         "impl": "grid"},
    ]
    (r,) = model.roofline(counts, PEAKS, rows)
    # the aba kernel's counts: 400/80 = 5 flops/byte, limit min(25 000, 5000) = 5000; 400 GFLOP/s = 8 %
    assert r["impl"] == "grid"
    assert r["limit_GFLOPs"] == pytest.approx(5000.0)
    assert r["percent_of_limit"] == pytest.approx(8.0)


def test_unknown_dtype_is_an_error():
    with pytest.raises(ValueError):
        model.precision("bfloat16")


def test_kernel_roofline_at_the_counted_and_the_reference_flops():
    """bench/report.py's kernel roofline: the fastest shape at the sweep's largest batch, % of the FMA roof at
    the counted flops and at a fixed reference count."""
    from bench import report

    # 'heavy' in float32 at batch 1000: 2x8 takes 10 µs (1e8 samples/s), 1x32 20 µs; baked is ignored
    cells = {("botmodel", "heavy", "float", 1000): {(256, "2x8"): 10.0, (256, "1x32"): 20.0, (256, "baked"): 5.0},
             ("botmodel", "heavy", "float", 1): {(256, "1x32"): 3.0}}
    reference = {"bot": {"heavy": {"flops": 3_000_000, "bytes_f32": 500, "bytes_f64": 1000}}}
    lines = report.kernel_roofline_section(PEAKS, COUNTS, reference, cells, {"bot": "botmodel"}, "`s.txt`")
    rows = [line for line in lines if line.startswith("| bot |")]
    assert len(rows) == 1
    cols = [c.strip() for c in rows[0].strip("|").split("|")]
    # 1.2e6 flops (float32 count) × 1e8 samples/s = 1.2e5 GFLOP/s = 240 % of 50 000; the reference count
    # (3e6, its float64 figure standing for both) gives 600 %
    assert cols[:5] == ["bot", "heavy", "float32", "2x8", "10.0"]
    assert cols[6] == "1200000" and cols[7] == "240.00"
    assert cols[8] == "3000000" and cols[9] == "600.00"
