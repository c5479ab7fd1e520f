"""Markdown report and plots of benchmark results (the JSON of ``python -m bench.run``).

    python -m bench.report bench/results/2026-01-01-h100.json [more.json ...] [--out REPORT.md]

Writes REPORT.md (default: the first JSON with the suffix .md) and, beside it, one PNG per robot
(``<stem>-<robot>.png``: samples per second against batch size, log-log, one panel per operation, one line
per implementation and dtype). Several JSON files are merged, later rows replacing earlier rows of the same
cell; the first file's environment heads the report.

Sections: environment, implementations (and why any is missing), robots, the performance goals
(bench/goals.py) with the analysis, then per robot and dtype the throughput of every operation and
implementation with the time per call, grid-rbd's speed-up over each peer, the roofline at the largest batch,
the jit compile times, the batch-1 latency, the missing cells with their reasons and the ptxas figures.

Companion files, found beside the first JSON (``<stem>-<kind>``) or named by flags:

- ``-peaks.json``   the GPU's measured roofs (bench/roofline/peak.cu) for the roofline
- ``-counts.json``  flops and bytes per sample (python -m bench.roofline.count) for the roofline
- ``-ptxas.json``   register, spill and shared-memory figures (python -m bench.ptxas) of the kernels run
- ``-analysis.md``  the written analysis of the goals, included under the goals table
- ``--sweep``       launch-shape sweeps (bench/launch/sweep.sh; later files replace earlier cells) for the
                    batch-1 kernel times and, with counts, the roofline of the kernels themselves
- ``--reference-counts`` a fixed flop count (the counts of an earlier, reference algorithm): the kernel
                    roofline also shows the share of the FMA roof at that count, so that a cheaper
                    algorithm does not read as a lower efficiency
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from bench import goals, ptxas
from bench.launch import summary as sweep_summary
from bench.roofline import model as roofline

REPO_ROOT = Path(__file__).resolve().parents[1]

OP_LABELS = {
    "inverse_dynamics": "inverse dynamics",
    "mass_matrix": "mass matrix",
    "minv": "M⁻¹",
    "forward_dynamics_aba": "forward dynamics (ABA)",
    "forward_dynamics_minv": "forward dynamics (M⁻¹)",
    "inverse_dynamics_derivatives": "ID derivatives",
    "forward_dynamics_derivatives": "FD derivatives",
    "frame_poses": "frame poses",
}
IMPL_LABELS = {"grid": "grid-rbd", "purejax": "pure JAX", "mjx": "MJX", "mjwarp": "MuJoCo Warp", "frax": "frax",
               "pinocchio": "Pinocchio (CPU)"}
IMPL_ORDER = ("grid", "purejax", "mjx", "mjwarp", "frax", "pinocchio")
COLORS = {"grid": "tab:red", "purejax": "tab:blue", "mjx": "tab:green", "mjwarp": "tab:olive", "frax": "tab:orange",
          "pinocchio": "tab:purple"}


def load(paths: list[Path]) -> tuple[dict, list[dict]]:
    """The first file's metadata (peers and notes merged from all) and the merged rows."""
    meta: dict = {}
    cells: dict[tuple, dict] = {}
    for p in paths:
        doc = json.loads(p.read_text())
        m = doc.get("meta", {})
        if not meta:
            meta = m
        else:
            for k in ("robots", "notes"):
                for name, v in m.get(k, {}).items():
                    meta.setdefault(k, {}).setdefault(name, v)
            for name, v in m.get("peers", {}).items():
                if v.get("status") == "measured" or name not in meta.get("peers", {}):
                    meta.setdefault("peers", {})[name] = v
        for r in doc.get("rows", []):
            cells[(r["robot"], r["op"], r["dtype"], int(r["batch"]), r["impl"])] = r
    return meta, list(cells.values())


def _ordered(values, order) -> list:
    values = set(values)
    return [v for v in order if v in values] + sorted(v for v in values if v not in order)


def fmt_time(s: float | None) -> str:
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale or unit == "ns":
            v = s / scale
            return f"{v:.3g} {unit}"
    return f"{s:.3g} s"


def fmt_rate(r: float | None) -> str:
    if r is None:
        return "—"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if r >= scale:
            return f"{r / scale:.3g}{unit}"
    return f"{r:.3g}"


class Footnotes:
    """Numbered reasons of missing cells, one list per section."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def mark(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"—[{self.reasons.index(reason) + 1}]"

    def lines(self) -> list[str]:
        return [f"[{i + 1}] {r}  " for i, r in enumerate(self.reasons)]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


def plot_robot(robot: str, rows: list[dict], meta: dict, path: Path) -> bool:
    """throughput against batch, one panel per operation; False if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ops = _ordered({r["op"] for r in rows}, tuple(OP_LABELS))
    ncol = min(4, max(1, len(ops)))
    nrow = (len(ops) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.4 * nrow + 0.6), squeeze=False)
    batches = sorted({int(r["batch"]) for r in rows})
    handles: dict[str, object] = {}
    for ax, op in zip(axes.flat, ops):
        series = defaultdict(list)
        for r in rows:
            if r["op"] == op and "missing" not in r and r.get("samples_per_s"):
                series[(r["impl"], r["dtype"])].append((int(r["batch"]), r["samples_per_s"]))
        for (impl, dtype), pts in sorted(series.items(), key=lambda kv: (IMPL_ORDER.index(kv[0][0])
                                                                         if kv[0][0] in IMPL_ORDER else 99, kv[0][1])):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                    linestyle="-" if dtype == "float32" else "--", color=COLORS.get(impl),
                    label=f"{IMPL_LABELS.get(impl, impl)} {dtype[-2:]}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(batches, [str(b) for b in batches])
        ax.minorticks_off()
        ax.set_title(OP_LABELS.get(op, op), fontsize=10)
        ax.set_xlabel("batch")
        ax.set_ylabel("samples / s")
        ax.grid(True, which="major", alpha=0.3)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(6, len(handles)),
                   fontsize=8, frameon=False)
    info = meta.get("robots", {}).get(robot, {})
    env = meta.get("env", {})
    fig.suptitle(f"{robot} (nq {info.get('nq', '?')}, nv {info.get('nv', '?')}) on "
                 f"{env.get('device', {}).get('kind', '?')}: throughput (solid float32, dashed float64)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def render(meta: dict, rows: list[dict], out: Path, extras: dict | None = None) -> str:
    """The Markdown report; extras holds the companion data: peaks, counts, ptxas, analysis (text) and
    kernel_batch1_us (bench.goals.kernel_times_from_sweep), each optional."""
    extras = extras or {}
    env = meta.get("env", {})
    settings = meta.get("settings", {})
    lines = [f"# grid-rbd benchmark: {env.get('device', {}).get('kind', '?')}, {env.get('date', '?')[:10]}", ""]
    if settings.get("quick"):
        lines += ["**Quick (smoke) run: few repetitions and small batches; not for comparisons.**", ""]
    smi = "; ".join(env.get("nvidia_smi", [])) or "—"
    cpu = env.get("cpu", {})
    lines += ["## Environment", ""]
    lines += _table(["", ""], [
        ["device", f"{env.get('device', {}).get('kind', '?')} ({env.get('device', {}).get('platform', '?')}, "
                   f"{env.get('device', {}).get('count', '?')} visible)"],
        ["nvidia-smi (name, driver, memory, max SM clock)", smi],
        ["CUDA (driver)", env.get("cuda_driver_version", "—")],
        ["jax / jaxlib", f"{env.get('jax', '?')} / {env.get('jaxlib', '?')}"],
        ["CPU", f"{cpu.get('model', '?')}, {cpu.get('count', '?')} logical cores ({cpu.get('usable', '?')} usable)"],
        ["commit", f"{env.get('commit') or '?'}{' (with local changes)' if env.get('dirty') else ''}"],
        ["date", env.get("date", "?")],
        ["timing", f"median of ≥{settings.get('reps', '?')} calls (more until {settings.get('min_time', '?')} s are "
                   f"timed), each synchronised, inputs rotated over {settings.get('buffers', '?')} device buffers, "
                   f"after {settings.get('warmup', '?')}+ warm-up calls"],
    ])
    lines += ["## Implementations", ""]
    prow = []
    for name, p in meta.get("peers", {}).items():
        detail = p.get("reason", "")
        if p.get("version"):
            detail = f"version {p['version']}" + (f", {p['threads']} threads" if p.get("threads") else "")
        prow.append([IMPL_LABELS.get(name, name), p.get("status", "?"), detail])
    lines += _table(["implementation", "status", "detail"], prow)
    notes = meta.get("notes", {})
    if notes:
        lines += ["What each implementation's operation computes, where it is not obvious:", ""]
        for impl in _ordered(notes, IMPL_ORDER):
            for op, text in notes[impl].items():
                lines.append(f"- {IMPL_LABELS.get(impl, impl)}, {OP_LABELS.get(op, op)}: {text}")
        lines.append("")
    robots_meta = meta.get("robots", {})
    robots = _ordered({r["robot"] for r in rows}, tuple(settings.get("robots", ())))
    lines += ["## Robots", ""]
    lines += _table(["robot", "model", "nq", "nv", "base", "frames", "notes"], [
        [r, str(robots_meta.get(r, {}).get("model", "?")), str(robots_meta.get(r, {}).get("nq", "?")),
         str(robots_meta.get(r, {}).get("nv", "?")),
         "floating" if robots_meta.get(r, {}).get("floating_base") else "fixed",
         str(robots_meta.get(r, {}).get("n_frames", "?")),
         "; ".join(robots_meta.get(r, {}).get("notes", []))] for r in robots])

    lines += ["## Goals (float32)", ""]
    lines += goals.markdown(goals.evaluate(rows, robots, extras.get("kernel_batch1_us")))
    if extras.get("kernel_batch1_us"):
        lines += [f"Batch-1 kernel times: {extras.get('sweep_name', 'a launch-shape sweep')} (CUDA events, median "
                  "per launch, the tuned launch shape). The jitted call is timed here: device arrays in, one "
                  "synchronised call.", ""]
    if extras.get("analysis"):
        lines += [extras["analysis"].strip(), ""]

    by_cell = {(r["robot"], r["op"], r["dtype"], int(r["batch"]), r["impl"]): r for r in rows}
    ops = _ordered({r["op"] for r in rows}, tuple(OP_LABELS))
    dtypes = _ordered({r["dtype"] for r in rows}, ("float32", "float64"))
    batches = sorted({int(r["batch"]) for r in rows})
    impls = _ordered({r["impl"] for r in rows}, IMPL_ORDER)
    peers = [i for i in impls if i != "grid"]

    for robot in robots:
        info = robots_meta.get(robot, {})
        lines += [f"## {robot} (nq {info.get('nq', '?')}, nv {info.get('nv', '?')}, "
                  f"{'floating' if info.get('floating_base') else 'fixed'} base)", ""]
        png = out.with_name(f"{out.stem}-{robot}.png")
        robot_rows = [r for r in rows if r["robot"] == robot]
        if plot_robot(robot, robot_rows, meta, png):
            lines += [f"![{robot} throughput]({png.name})", ""]
        notes_fn = Footnotes()
        for dtype in dtypes:
            lines += [f"### {robot}, {dtype}: samples per second (time per call)", ""]
            body = []
            absent: dict[tuple[str, str], list[str]] = defaultdict(list)
            for op in ops:
                for impl in impls:
                    cells = [by_cell.get((robot, op, dtype, b, impl)) for b in batches]
                    if all(c is None for c in cells):
                        continue
                    reasons = {c.get("missing") if c else None for c in cells}
                    if len(reasons) == 1 and None not in reasons:
                        # e.g. Pinocchio in float32: one line under the table instead of a row of dashes
                        absent[(reasons.pop(), impl)].append(OP_LABELS.get(op, op))
                        continue
                    row = [OP_LABELS.get(op, op), IMPL_LABELS.get(impl, impl)]
                    for c in cells:
                        if c is None:
                            row.append("")
                        elif "missing" in c:
                            row.append(notes_fn.mark(c["missing"]))
                        else:
                            row.append(f"{fmt_rate(c['samples_per_s'])} ({fmt_time(c['median_s'])})")
                    body.append(row)
            lines += _table(["operation", "implementation", *[f"batch {b}" for b in batches]], body)
            if absent:
                lines.append("Not measured at any batch:")
                for (reason, impl), op_names in absent.items():
                    what = "every operation" if len(op_names) == len(ops) else ", ".join(op_names)
                    lines.append(f"- {IMPL_LABELS.get(impl, impl)}: {what} {notes_fn.mark(reason)[1:]}")
                lines.append("")
            if peers:
                lines += [f"grid-rbd's speed-up over each peer ({robot}, {dtype}; > 1: grid-rbd faster)", ""]
                body = []
                for op in ops:
                    for peer in peers:
                        vals = []
                        for b in batches:
                            g, p = by_cell.get((robot, op, dtype, b, "grid")), by_cell.get((robot, op, dtype, b, peer))
                            if g and p and "missing" not in g and "missing" not in p and p.get("samples_per_s"):
                                vals.append(f"{g['samples_per_s'] / p['samples_per_s']:.3g}×")
                            else:
                                vals.append("—")
                        if any(v != "—" for v in vals):
                            body.append([OP_LABELS.get(op, op), IMPL_LABELS.get(peer, peer), *vals])
                if body:
                    lines += _table(["operation", "peer", *[f"batch {b}" for b in batches]], body)
                else:
                    lines += ["(no cell measured for both grid-rbd and a peer)", ""]
        if notes_fn.reasons:
            lines += ["Missing cells:", ""] + notes_fn.lines() + [""]

    if extras.get("peaks") and extras.get("counts"):
        lines += roofline_section(extras["peaks"], extras["counts"], rows, batches[-1])
        if extras.get("sweep_cells"):
            lines += kernel_roofline_section(extras["peaks"], extras["counts"], extras.get("reference_counts"),
                                             extras["sweep_cells"], extras["model_of"], extras.get("sweep_name", ""))

    # jit compile times (lowering + XLA compilation) at the smallest measured batch
    lines += ["## jit compile time (lowering + compilation, at the smallest measured batch)", ""]
    jax_impls = [i for i in impls if any("compile_s" in r for r in rows if r["impl"] == i)]
    header = ["robot", "operation", *[f"{IMPL_LABELS.get(i, i)} {d[-2:]}" for i in jax_impls for d in dtypes]]
    body = []
    for robot in robots:
        for op in ops:
            row = [robot, OP_LABELS.get(op, op)]
            for impl in jax_impls:
                for dtype in dtypes:
                    measured = [by_cell[(robot, op, dtype, b, impl)] for b in batches
                                if "compile_s" in by_cell.get((robot, op, dtype, b, impl), {})]
                    row.append(fmt_time(measured[0]["lower_s"] + measured[0]["compile_s"]) if measured else "—")
            body.append(row)
    lines += _table(header, body) if jax_impls else ["(none measured)", ""]

    lines += ["## Batch-1 latency: one call on device arrays / NumPy in to NumPy out", ""]
    columns = [(i, d) for i in impls for d in dtypes
               if any(r["impl"] == i and r["dtype"] == d and int(r["batch"]) == 1 and "missing" not in r
                      for r in rows)]
    header = ["robot", "operation", *[f"{IMPL_LABELS.get(i, i)} {d[-2:]}" for i, d in columns]]
    body = []
    for robot in robots:
        for op in ops:
            row = [robot, OP_LABELS.get(op, op)]
            for impl, dtype in columns:
                c = by_cell.get((robot, op, dtype, 1, impl))
                if c and "missing" not in c:
                    row.append(f"{fmt_time(c['median_s'])} / {fmt_time(c.get('host_latency_s'))}")
                else:
                    row.append("—")
            body.append(row)
    lines += _table(header, body) if columns else ["(batch 1 not measured)", ""]
    floor = env.get("dispatch_floor")
    if floor:
        lines += [f"Dispatch floor of this machine: a jitted `x + 1` on 7 floats takes {fmt_time(floor['median_s'])} "
                  f"per synchronised call on device arrays and {fmt_time(floor.get('host_latency_s'))} from NumPy to "
                  "NumPy; every batch-1 time above includes it.", ""]

    missing = [r for r in rows if "missing" in r]
    lines += ["## Missing cells", ""]
    if not missing:
        lines += ["None: every cell was measured.", ""]
    else:
        groups: dict[tuple[str, str], dict] = defaultdict(lambda: defaultdict(set))
        for r in missing:
            g = groups[(r["impl"], r["missing"])]
            g["robots"].add(r["robot"])
            g["ops"].add(r["op"])
            g["dtypes"].add(r["dtype"])
            g["batches"].add(int(r["batch"]))
            g["n"].add(_cellkey(r))
        body = []
        for (impl, reason), g in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]["n"]))):
            body.append([IMPL_LABELS.get(impl, impl), str(len(g["n"])), reason.replace("|", "\\|"),
                         ", ".join(_ordered(g["robots"], robots)), ", ".join(_ordered(g["ops"], tuple(OP_LABELS))),
                         ", ".join(sorted(g["dtypes"])), ", ".join(str(b) for b in sorted(g["batches"]))])
        lines += _table(["implementation", "cells", "reason", "robots", "operations", "dtypes", "batches"], body)
    if extras.get("ptxas"):
        pt = extras["ptxas"]
        lines += ["## Registers, spills and shared memory (ptxas)", ""]
        lines += [f"From `{pt.get('nvcc', 'nvcc')}`. Dynamic shared memory is per sample; a block of S samples "
                  "asks for S slices of it (padded to an odd number of words).", ""]
        lines += [ptxas.markdown(pt["robots"], pt.get("arch", "?")).replace("### ", "### ptxas: "), ""]
    lines += [f"Generated by `python -m bench.report` from {len(rows)} cells "
              f"({len(rows) - len(missing)} measured, {len(missing)} missing).", ""]
    return "\n".join(lines)


def roofline_section(peaks: dict, counts: dict, rows: list[dict], batch: int) -> list[str]:
    """grid-rbd's rows at one batch against the device's measured roofs."""
    measured = [r for r in rows if r["impl"] == "grid" and int(r["batch"]) == batch and "missing" not in r]
    analysed = roofline.roofline(counts, peaks, measured)
    analysed.sort(key=lambda r: (r["robot"], r["dtype"], tuple(OP_LABELS).index(r["op"]) if r["op"] in OP_LABELS else 99))
    lines = [f"## Roofline (grid-rbd, batch {batch})", ""]
    lines += [f"Roofs measured on this GPU by bench/roofline/peak.cu: copy bandwidth {peaks['bandwidth_GBps']:.0f} GB/s "
              f"(read + write; theoretical {peaks.get('theoretical_bandwidth_GBps', 0):.0f}), FMA "
              f"{peaks['fma_f32_GFLOPs']:.0f} GFLOP/s float32 and {peaks['fma_f64_GFLOPs']:.0f} GFLOP/s float64. "
              "Flops and bytes per sample are counted (bench/roofline/count.py): bytes are the compulsory global "
              "traffic (inputs and outputs). The limit is min(FMA roof, bandwidth × flops/byte); % is the share "
              "of it reached.", ""]
    body = [[r["robot"], OP_LABELS.get(r["op"], r["op"]), r["dtype"], fmt_rate(r["samples_per_s"]),
             f"{r['flops_per_sample']:.0f}", f"{r['bytes_per_sample']:.0f}", f"{r['intensity']:.1f}",
             f"{r['achieved_GFLOPs']:.0f}", f"{r['limit_GFLOPs']:.0f} ({r['bound']})", f"{r['percent_of_limit']:.2f}"]
            for r in analysed]
    lines += _table(["robot", "operation", "dtype", "samples/s", "flops/sample", "bytes/sample", "flops/byte",
                     "GFLOP/s", "limit GFLOP/s", "% of limit"], body) if body else ["(no counted rows)", ""]
    return lines


def kernel_roofline_section(peaks: dict, counts: dict, reference: dict | None, cells: dict, model_of: dict[str, str],
                            sweep_name: str) -> list[str]:
    """The kernels alone (a launch-shape sweep's fastest shape at its largest batch) against the FMA roof, at
    the flops counted on this code and, when given, at a fixed reference count."""
    batch = max(k[3] for k in cells)
    lines = [f"## Roofline of the kernels (launch-shape sweep, batch {batch})", ""]
    lines += [f"Kernel times from {sweep_name} (CUDA events, median, the fastest shape), no JAX dispatch. "
              "\"% of FMA roof\" is counted flops × samples/s over the FMA roof of the dtype"
              + ("; \"at reference count\" uses the fixed count of the reference algorithm instead (the same "
                 "work done the earlier, denser way), so a kernel that needs fewer flops is not shown as less "
                 "efficient; above 100 % the reference algorithm could not reach the measured rate on this GPU at all"
                 if reference else "") + ".", ""]
    body = []
    for robot, model in sorted(model_of.items()):
        for (m, algo, precision, b), times in sorted(cells.items()):
            if m != model or b != batch:
                continue
            shapes = {k: v for k, v in times.items() if k[1] != "baked"} or times
            (_, shape), us = min(shapes.items(), key=lambda kv: kv[1])
            dtype = "float32" if precision == "float" else "float64"
            got = roofline.per_sample(counts, robot, algo, dtype)
            if got is None:
                continue
            sps = batch / (us * 1e-6)
            peak = float(peaks[f"fma_{roofline.precision(dtype)}_GFLOPs"])
            row = [robot, algo, dtype, shape, f"{us:.1f}", fmt_rate(sps), f"{got[0]:.0f}",
                   f"{100 * got[0] * sps / 1e9 / peak:.2f}"]
            if reference is not None:
                ref = roofline.per_sample(reference, robot, algo, dtype)
                row += [f"{ref[0]:.0f}", f"{100 * ref[0] * sps / 1e9 / peak:.2f}"] if ref else ["—", "—"]
            body.append(row)
    head = ["robot", "kernel", "dtype", "shape", "µs", "samples/s", "flops/sample", "% of FMA roof"]
    if reference is not None:
        head += ["reference flops/sample", "% of FMA roof at reference count"]
    return lines + (_table(head, body) if body else ["(no counted kernel in the sweep)", ""])


def _cellkey(r: dict) -> tuple:
    return (r["robot"], r["op"], r["dtype"], int(r["batch"]), r["impl"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", type=Path, help="result JSON files of python -m bench.run")
    p.add_argument("--out", type=Path, help="Markdown report (default: the first JSON's name with .md)")
    p.add_argument("--peaks", type=Path, help="bench/roofline/peak.cu's JSON (default: <stem>-peaks.json)")
    p.add_argument("--counts", type=Path, help="python -m bench.roofline.count's JSON (default: <stem>-counts.json)")
    p.add_argument("--ptxas", type=Path, help="python -m bench.ptxas's JSON (default: <stem>-ptxas.json)")
    p.add_argument("--analysis", type=Path, help="Markdown analysis of the goals (default: <stem>-analysis.md)")
    p.add_argument("--sweep", type=Path, nargs="+",
                   help="launch-shape sweeps (sweep.txt; later files replace earlier cells) for the batch-1 kernel "
                        "times and the kernel roofline")
    p.add_argument("--reference-counts", type=Path,
                   help="a fixed reference flop count (bench.roofline.count JSON of an earlier algorithm)")
    p.add_argument("--launch-table", type=Path, default=REPO_ROOT / "codegen" / "emit" / "launch_configs" / "h200.json",
                   help="tuned launch configurations the sweep's times are read at")
    args = p.parse_args(argv)
    out = args.out or args.results[0].with_suffix(".md")
    meta, rows = load(args.results)
    first = args.results[0]

    def companion(given: Path | None, suffix: str) -> Path | None:
        path = given or first.with_name(f"{first.stem}-{suffix}")
        if given is not None and not given.is_file():
            p.error(f"{given} does not exist")
        return path if path.is_file() else None

    extras: dict = {}
    for key, suffix in (("peaks", "peaks.json"), ("counts", "counts.json"), ("ptxas", "ptxas.json")):
        path = companion(getattr(args, key), suffix)
        if path:
            extras[key] = json.loads(path.read_text())
    analysis = companion(args.analysis, "analysis.md")
    if analysis:
        extras["analysis"] = analysis.read_text()
    if args.reference_counts:
        extras["reference_counts"] = json.loads(args.reference_counts.read_text())
    if args.sweep:
        cells: dict = {}
        for sweep in args.sweep:
            cells.update(sweep_summary.parse(sweep)[1])
        table = json.loads(args.launch_table.read_text()) if args.launch_table.is_file() else None
        model_of = {name: info["model"] for name, info in meta.get("robots", {}).items() if "model" in info}
        extras["kernel_batch1_us"] = goals.kernel_times_from_sweep(
            cells, lambda *k: sweep_summary.baked_shape(table, *k), model_of)
        extras["sweep_cells"], extras["model_of"] = cells, model_of
        extras["sweep_name"] = " and ".join(f"`{sweep.name}`" for sweep in args.sweep)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(meta, rows, out, extras))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
