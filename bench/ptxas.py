"""Register, shared-memory and spill figures of every generated kernel, from `nvcc -Xptxas -v`.

Compiles each robot's CUDA FFI translation unit (xla_ffi/ffi_cuda.cu, which instantiates every kernel in float
and double) for one architecture and reads ptxas's report per kernel: registers per thread, spill stores and
loads, stack frame, static shared memory; adds the dynamic shared memory the launch asks for per block
(`<ALGO>_DEVICE_SMEM_BYTES<T>()` in the robot's grid.cuh). No GPU needed; ptxas is the same on every machine
with the same CUDA release.

    python -m bench.ptxas BUILD_DIR [BUILD_DIR ...] --out ptxas.json [--markdown ptxas.md] [--arch sm_90]

BUILD_DIR is a robot folder from `go tool mage gen` or `go tool mage build` (grid.cuh, grid_ffi.h,
metadata.json). nvcc comes from $NVCC, PATH or the .venv's nvidia-cuda-nvcc wheel; the XLA FFI headers from
$GRID_FFI_INCLUDE, .venv/ffi-include or the installed jax.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_DYNAMIC = re.compile(r"constexpr size_t (\w+)_DEVICE_SMEM_BYTES\(\) \{ return size_t\((\d+)\) \* sizeof\(T\); \}")
# Itanium mangling of `grid::<algo>_kernel<T>(...)`: _ZN4grid<len><algo>_kernelI<f|d>EEv...
_KERNEL = re.compile(r"^_ZN4grid\d+(\w+?)_kernelI([fd])E")


def find_nvcc() -> str:
    if os.environ.get("NVCC"):
        return os.environ["NVCC"]
    found = shutil.which("nvcc")
    if found:
        return found
    wheel = sorted(REPO_ROOT.glob(".venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc"))
    if wheel:
        return str(wheel[0])
    sys.exit("nvcc not found: set NVCC, put nvcc on PATH, or run `go tool mage venv`")


def ffi_include() -> str:
    if os.environ.get("GRID_FFI_INCLUDE"):
        return os.environ["GRID_FFI_INCLUDE"]
    pinned = REPO_ROOT / ".venv" / "ffi-include"
    if pinned.is_dir():
        return str(pinned)
    import jax.ffi  # the installed jax's headers

    return str(jax.ffi.include_dir())


def parse_ptxas(log: str) -> list[dict]:
    """One row per generated kernel in ptxas's verbose log (other entry functions are skipped)."""
    rows: list[dict] = []
    current: dict | None = None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            k = _KERNEL.match(m.group(1))
            current = {"algorithm": k.group(1), "dtype": "float32" if k.group(2) == "f" else "float64",
                       "arch": m.group(2)} if k else None
            if current:
                rows.append(current)
            continue
        if current is None:
            continue
        m = _FRAME.search(line)
        if m:
            current.update(stack_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                           spill_load_bytes=int(m.group(3)))
        m = _USED.search(line)
        if m:
            current["registers"] = int(m.group(1))
            s = _SMEM.search(line)
            current["static_smem_bytes"] = int(s.group(1)) if s else 0
    return rows


def robot_report(build: Path, nvcc: str, include: str, arch: str) -> dict:
    meta = json.loads((build / "metadata.json").read_text())
    header = (build / "grid.cuh").read_text()
    dynamic = {name.lower(): int(n) for name, n in _DYNAMIC.findall(header)}
    cmd = [nvcc, "-O2", "-std=c++17", f"-arch={arch}", "-Xptxas", "-v", "-c", "-DGRID_FFI_ROBOT=" + json.dumps(meta["robot"]),
           "-I", str(REPO_ROOT / "kernels"), "-I", str(build), "-isystem", include,
           str(REPO_ROOT / "xla_ffi" / "ffi_cuda.cu"), "-o", os.devnull]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{build}: nvcc failed:\n{' '.join(cmd)}\n{done.stderr[-4000:]}")
    rows = parse_ptxas(done.stderr + done.stdout)
    for r in rows:
        words = dynamic.get(r["algorithm"])
        r["dynamic_smem_bytes"] = None if words is None else words * (4 if r["dtype"] == "float32" else 8)
    rows.sort(key=lambda r: (r["algorithm"], r["dtype"]))
    return {"robot": meta["robot"], "nv": meta["nv"], "kernels": rows}


def markdown(reports: list[dict], arch: str) -> str:
    out = [f"Per kernel (`nvcc -O2 -arch={arch} -Xptxas -v`): registers per thread, spill stores/loads and stack "
           "frame in bytes, static shared memory in bytes, dynamic shared memory per block in bytes.", ""]
    for rep in reports:
        out += [f"### {rep['robot']} (nv {rep['nv']})", "",
                "| kernel | dtype | registers | spill st/ld | stack | static smem | dynamic smem |",
                "|---|---|---|---|---|---|---|"]
        for r in rep["kernels"]:
            dyn = "-" if r["dynamic_smem_bytes"] is None else str(r["dynamic_smem_bytes"])
            out.append(f"| {r['algorithm']} | {r['dtype']} | {r.get('registers', '?')} | "
                       f"{r.get('spill_store_bytes', '?')}/{r.get('spill_load_bytes', '?')} | {r.get('stack_bytes', '?')} | "
                       f"{r.get('static_smem_bytes', '?')} | {dyn} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builds", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    nvcc, include = find_nvcc(), ffi_include()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(robot_report, b, nvcc, include, args.arch) for b in args.builds]
        reports = []
        for b, f in zip(args.builds, futures):
            reports.append(f.result())
            print(f"ptxas figures of {b}: {len(reports[-1]['kernels'])} kernels", file=sys.stderr)
    args.out.write_text(json.dumps({"arch": args.arch, "nvcc": nvcc, "robots": reports}, indent=1) + "\n")
    if args.markdown:
        args.markdown.write_text(markdown(reports, args.arch) + "\n")


if __name__ == "__main__":
    main()
