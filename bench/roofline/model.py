"""Roofline arithmetic: where each measured benchmark row stands against the device's two roofs.

Inputs:
  counts  {robot: {algorithm: {flops, flops_f32?, bytes_f32, bytes_f64, ...}}} (bench/roofline/count.py)
  peaks   {bandwidth_GBps, fma_f32_GFLOPs, fma_f64_GFLOPs, ...}             (bench/roofline/peak.cu)
  rows    [{robot, op, dtype, batch, samples_per_s, ...}]                   (the benchmark's results)

Per row: achieved GFLOP/s = flops/sample × samples/s, arithmetic intensity = flops/byte of compulsory
global traffic, limit = min(FMA peak of the row's precision, bandwidth × intensity) and the percentage of
that limit reached. Units are decimal: GB = 1e9 bytes, GFLOP = 1e9 flops.

    .venv/bin/python -m bench.roofline.model counts.json peaks.json rows.json   # prints a Markdown table
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

# Benchmark operation names (bench/run.py) that differ from the kernel they run; any other op is its
# kernel's own name. Each is one kernel call per sample through the JAX handle.
OP_ALGORITHM = {
    "forward_dynamics_aba": "aba",
    "forward_dynamics_minv": "forward_dynamics",
    "inverse_dynamics_derivatives": "inverse_dynamics_gradient",
    "forward_dynamics_derivatives": "forward_dynamics_gradient",
}

_F32 = {"float32", "f32", "fp32", "single", "float"}
_F64 = {"float64", "f64", "fp64", "double"}


def precision(dtype: str) -> str:
    """'f32' or 'f64' for the spellings benchmark rows use."""
    d = str(dtype).lower()
    if d in _F32:
        return "f32"
    if d in _F64:
        return "f64"
    raise ValueError(f"unknown dtype {dtype!r}")


def per_sample(counts: Mapping[str, Any], robot: str, op: str, dtype: str) -> tuple[float, float] | None:
    """(flops, bytes) of one sample of op (a kernel or a benchmark operation name) on robot in dtype, or
    None when it was not counted."""
    algorithms = counts.get(robot, {})
    entry = algorithms.get(op, algorithms.get(OP_ALGORITHM.get(op, op)))
    if entry is None:
        return None
    p = precision(dtype)
    flops = entry.get("flops_f32", entry["flops"]) if p == "f32" else entry["flops"]
    return float(flops), float(entry[f"bytes_{p}"])


def limit(flops: float, nbytes: float, peak_gflops: float, bandwidth_gbps: float) -> dict[str, Any]:
    """The roofline at a kernel's arithmetic intensity (flops per byte)."""
    intensity = flops / nbytes
    memory_roof = bandwidth_gbps * intensity
    return {
        "intensity": intensity,
        "limit_GFLOPs": min(peak_gflops, memory_roof),
        "bound": "memory" if memory_roof < peak_gflops else "compute",
        # the same limit in samples: whichever of the flops and the bytes runs out first
        "limit_samples_per_s": min(peak_gflops / flops, bandwidth_gbps / nbytes) * 1e9,
        # the intensity where the two roofs meet
        "ridge_intensity": peak_gflops / bandwidth_gbps,
    }


def analyse_row(row: Mapping[str, Any], counts: Mapping[str, Any], peaks: Mapping[str, Any]) -> dict[str, Any] | None:
    """The row with its roofline figures added, or None when its robot/op has no counts."""
    got = per_sample(counts, row["robot"], row["op"], row["dtype"])
    if got is None:
        return None
    flops, nbytes = got
    p = precision(row["dtype"])
    peak = float(peaks[f"fma_{p}_GFLOPs"])
    bandwidth = float(peaks["bandwidth_GBps"])
    sps = float(row["samples_per_s"])
    out = dict(row)
    out.update(
        flops_per_sample=flops,
        bytes_per_sample=nbytes,
        achieved_GFLOPs=flops * sps / 1e9,
        achieved_GBps=nbytes * sps / 1e9,
        peak_GFLOPs=peak,
        bandwidth_GBps=bandwidth,
        **limit(flops, nbytes, peak, bandwidth),
    )
    out["percent_of_limit"] = 100.0 * out["achieved_GFLOPs"] / out["limit_GFLOPs"]
    return out


def roofline(
    counts: Mapping[str, Any], peaks: Mapping[str, Any], rows: Iterable[Mapping[str, Any]], impl: str | None = "grid"
) -> list[dict[str, Any]]:
    """analyse_row over rows, dropping those without counts and, when rows name their implementation
    ("impl"), those of other implementations than impl (the counts describe grid-rbd's kernels only)."""
    result = []
    for row in rows:
        if impl is not None and row.get("impl", impl) != impl:
            continue
        if row.get("samples_per_s") is None:
            continue
        r = analyse_row(row, counts, peaks)
        if r is not None:
            result.append(r)
    return result


def markdown(results: Iterable[Mapping[str, Any]]) -> str:
    """A Markdown table of analysed rows."""
    head = (
        "| robot | op | dtype | batch | samples/s | flops/sample | bytes/sample | flops/byte | GFLOP/s "
        "| limit GFLOP/s | bound | % of limit |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in results:
        lines.append(
            f"| {r['robot']} | {r['op']} | {r['dtype']} | {r['batch']} | {r['samples_per_s']:.4g} "
            f"| {r['flops_per_sample']:.0f} | {r['bytes_per_sample']:.0f} | {r['intensity']:.2f} "
            f"| {r['achieved_GFLOPs']:.4g} | {r['limit_GFLOPs']:.4g} | {r['bound']} | {r['percent_of_limit']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def _load_rows(path: str) -> list[dict[str, Any]]:
    data = json.loads(open(path).read())
    return data["rows"] if isinstance(data, dict) else data


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        sys.stderr.write("usage: python -m bench.roofline.model counts.json peaks.json rows.json\n")
        return 2
    counts = json.loads(open(args[0]).read())
    peaks = json.loads(open(args[1]).read())
    sys.stdout.write(markdown(roofline(counts, peaks, _load_rows(args[2]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
