"""The operator harness: tests/operators/cpp/harness compiled into a shared library and loaded with ctypes.

``build(out_dir)`` compiles every ``tests/operators/cpp/harness/*.cpp`` into one shared library (the host C++
compiler, ``$CXX`` or ``c++``, warnings as errors); ``Harness`` lists its registered calls and runs them on
NumPy arrays. Call names are ``"<function>[<template arguments>]/<scope>/<precision>"``.

GPU mode (``GLASS_HARNESS_GPU=1``): ``build(out_dir, gpu=True)`` compiles the same sources with nvcc (each file
on its own, in parallel, then one link), and ``Harness(lib, gpu=True)`` runs every call on the device: at every
thread count its scope allows, several problems per launch alternating between the call's current and
previous inputs, outputs poisoned with NaN, every problem's outputs required to be byte-identical to the
first launch's (else ``ThreadCountMismatch``). ``run`` returns the device result, so the tests' oracles check
the GPU values; the host result of the same call is kept in ``Harness.last_host`` for diagnostics. ``STATS``
collects what the device ran (tests/operators/conftest.py prints and writes it).
"""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
KERNELS = REPO_ROOT / "kernels"
SOURCES = Path(__file__).resolve().parent / "cpp" / "harness"

GPU_ENV = "GLASS_HARNESS_GPU"
REPORT_ENV = "GLASS_HARNESS_GPU_REPORT"
SCOPES = ("thread", "warp", "block")  # the executor's Scope enum, by value


def gpu_mode() -> bool:
    """Whether GLASS_HARNESS_GPU asks for the GPU run."""
    return os.environ.get(GPU_ENV, "").strip() not in ("", "0")


def build(out_dir: Path, gpu: bool = False) -> Path:
    """Compiles the harness library into out_dir and returns its path."""
    if gpu:
        return build_cuda(out_dir)
    cxx = os.environ.get("CXX", "c++")
    lib = out_dir / "libglass_harness.so"
    sources = sorted(str(p) for p in SOURCES.glob("*.cpp"))
    cmd = [cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS}",
           f"-I{SOURCES}", *sources, "-o", str(lib)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"building the operator harness failed:\n{' '.join(cmd)}\n{done.stdout}{done.stderr}")
    return lib


def find_nvcc() -> Path | None:
    """nvcc from $NVCC, PATH, the repository's .venv (pip nvidia-cuda-nvcc) or /usr/local/cuda."""
    if os.environ.get("NVCC"):
        found = shutil.which(os.environ["NVCC"])
        return Path(found) if found else None
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    candidates = sorted(REPO_ROOT.glob(".venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc"))
    candidates.append(Path("/usr/local/cuda/bin/nvcc"))
    return next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)


def build_cuda(out_dir: Path) -> Path:
    """Compiles the harness with nvcc for $CUDA_ARCH (default sm_90): one object per source in parallel, then
    a shared library. $GLASS_HARNESS_NVCC_FLAGS adds flags to every compile."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise RuntimeError("nvcc not found ($NVCC, PATH, .venv/lib/python3*/site-packages/nvidia/cu13/bin, "
                           "/usr/local/cuda/bin)")
    arch = os.environ.get("CUDA_ARCH", "sm_90")
    extra = shlex.split(os.environ.get("GLASS_HARNESS_NVCC_FLAGS", ""))
    obj_dir = out_dir / "obj"
    obj_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(SOURCES.glob("*.cpp"))
    start = time.monotonic()

    def compile_one(src: Path) -> tuple[list[str], subprocess.CompletedProcess]:
        cmd = [str(nvcc), "-x", "cu", "-std=c++17", "-O2", f"-arch={arch}", "--extended-lambda", "-Xcompiler",
               "-fPIC", f"-I{KERNELS}", f"-I{SOURCES}", *extra, "-c", str(src), "-o", str(obj_dir / f"{src.stem}.o")]
        return cmd, subprocess.run(cmd, capture_output=True, text=True, check=False)

    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        results = list(pool.map(compile_one, sources))
    failed = [(cmd, done) for cmd, done in results if done.returncode != 0]
    if failed:
        raise RuntimeError("building the operator harness with nvcc failed:\n" + "\n".join(
            f"{' '.join(cmd)}\n{done.stdout}{done.stderr}" for cmd, done in failed))
    lib = out_dir / "libglass_harness_cuda.so"
    # the pip-installed toolkit keeps cudart next to bin/, where nvcc's default search does not look
    libdirs = [f"-L{d}" for d in (nvcc.parent.parent / "lib", nvcc.parent.parent / "lib64") if d.is_dir()]
    cmd = [str(nvcc), "-shared", f"-arch={arch}", *[str(obj_dir / f"{s.stem}.o") for s in sources], *libdirs,
           "-o", str(lib)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"linking the operator harness failed:\n{' '.join(cmd)}\n{done.stdout}{done.stderr}")
    STATS.build_seconds = time.monotonic() - start
    STATS.build = f"{nvcc} -arch={arch}, {len(sources)} files on {os.cpu_count()} cores" + (
        f", extra flags {' '.join(extra)}" if extra else "")
    return lib


class DeviceUnavailable(RuntimeError):
    """GPU mode was asked for but the library has no CUDA build or finds no usable device."""


class DeviceError(RuntimeError):
    """A CUDA or executor error while running a call on the device."""


class ThreadCountMismatch(AssertionError):
    """A call's device results differ across thread counts (or between problems on the same inputs)."""


class _DeviceInfo(ctypes.Structure):
    # mirror of glass_harness::DeviceInfo (harness.h)
    _fields_ = [("launches", ctypes.c_int), ("scope", ctypes.c_int), ("global_memory", ctypes.c_int),
                ("n_sources", ctypes.c_int), ("problems", ctypes.c_int), ("n_configs", ctypes.c_int),
                ("block_dims", ctypes.c_int * 16), ("message", ctypes.c_char * 4096)]


@dataclass
class DeviceStats:
    """What the GPU mode ran, over the session."""
    device: str = ""
    fatal: str = ""  # why the GPU run stopped before running the tests, if it did
    build: str = ""
    build_seconds: float = 0.0
    calls: int = 0
    names: set[str] = field(default_factory=set)
    calls_by_scope: dict[str, int] = field(default_factory=dict)
    launches: int = 0
    problems: int = 0
    thread_counts: dict[str, set[int]] = field(default_factory=dict)
    two_input_calls: int = 0  # problems alternated between the current and the previous inputs
    global_memory_calls: dict[str, int] = field(default_factory=dict)  # calls too big for shared memory
    global_memory_launches: dict[str, int] = field(default_factory=dict)
    global_memory_names: set[str] = field(default_factory=set)
    mismatches: int = 0
    mismatch_messages: list[str] = field(default_factory=list)
    errors: int = 0
    error_messages: list[str] = field(default_factory=list)
    bitwise_equal_to_host: int = 0
    failed_tests: list[dict] = field(default_factory=list)  # with the last device call of each
    deselected: int = 0
    deselected_reason: str = ""

    def as_dict(self) -> dict:
        return {
            "device": self.device,
            "fatal": self.fatal,
            "build": self.build,
            "build_seconds": round(self.build_seconds, 1),
            "calls_run_on_device": self.calls,
            "distinct_calls": len(self.names),
            "calls_by_scope": dict(sorted(self.calls_by_scope.items())),
            "kernel_launches": self.launches,
            "problems": self.problems,
            "thread_counts": {k: sorted(v) for k, v in sorted(self.thread_counts.items())},
            "calls_with_two_inputs": self.two_input_calls,
            "global_memory_calls": dict(sorted(self.global_memory_calls.items())),
            "global_memory_launches": dict(sorted(self.global_memory_launches.items())),
            "global_memory_block_scope_names": sorted(n for n in self.global_memory_names if "/block/" in n),
            "mismatches": self.mismatches,
            "mismatch_messages": self.mismatch_messages[:50],
            "device_errors": self.errors,
            "device_error_messages": self.error_messages[:50],
            "calls_bitwise_equal_to_host": self.bitwise_equal_to_host,
            "failed_tests": self.failed_tests[:200],
            "deselected_tests": self.deselected,
            "deselected_reason": self.deselected_reason,
        }


STATS = DeviceStats()
LAST_CALL: dict = {}  # the latest device call: name, inputs, device and host results (failure reports)


class Harness:
    """The registered calls of a built harness library (run on the device when gpu is set)."""

    def __init__(self, lib: Path, gpu: bool = False) -> None:
        self._lib = ctypes.CDLL(str(lib))
        self._lib.glass_op_name.restype = ctypes.c_char_p
        self._lib.glass_op_run.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_double), ctypes.c_int]
        self.names = [self._lib.glass_op_name(i).decode() for i in range(self._lib.glass_op_count())]
        self.gpu = gpu
        self.last_host: np.ndarray | None = None
        self._previous: dict[str, tuple[np.ndarray, int]] = {}
        if gpu:
            self._init_device()

    def _init_device(self) -> None:
        lib = self._lib
        if not lib.glass_device_built():
            raise DeviceUnavailable("the harness library was built without CUDA")
        lib.glass_device_init.argtypes = [ctypes.c_char_p, ctypes.c_int]
        lib.glass_op_run_device.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                                            ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_double), ctypes.POINTER(_DeviceInfo)]
        msg = ctypes.create_string_buffer(1024)
        if lib.glass_device_init(msg, len(msg)) != 0:
            raise DeviceUnavailable(msg.value.decode(errors="replace"))
        STATS.device = msg.value.decode(errors="replace")

    def assert_same(self, got: np.ndarray, want: np.ndarray, precision: str) -> None:
        """Asserts that two calls which compute the same expression agree: bit for bit on the host, where they
        share one compilation; on the device within 4 units in the last place of the largest entry, since nvcc
        may contract a*b + c into a fused multiply-add in one variant and not in the other."""
        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if not self.gpu:
            np.testing.assert_array_equal(got, want)
            return
        eps = float(np.finfo(np.float32 if precision == "float" else np.float64).eps)
        scale = max(float(np.max(np.abs(want), initial=0.0)), float(np.finfo(np.float64).tiny))
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * eps * scale)

    def functions(self) -> set[str]:
        """The operator names the registered calls exercise (the part before '[' or '/')."""
        return {n.split("/")[0].split("[")[0] for n in self.names}

    def run(self, name: str, *inputs: np.ndarray | float, n_out: int) -> np.ndarray:
        """Runs one call on the inputs (flattened and concatenated, as doubles); returns its n_out outputs.

        Outputs start as NaN, so an entry the operator does not write stays NaN.
        """
        flat = np.concatenate([np.ravel(np.asarray(x, dtype=np.float64)) for x in inputs]) if inputs else np.zeros(0)
        flat = np.ascontiguousarray(flat, dtype=np.float64)
        if self.gpu:
            return self._run_device(name, flat, n_out)
        out = np.full(n_out, np.nan)
        code = self._lib.glass_op_run(name.encode(), flat.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                      flat.size, out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), n_out)
        if code == 1:
            raise KeyError(f"no harness call named {name!r}")
        if code == 2:
            raise ValueError(f"{name}: {flat.size} inputs and {n_out} outputs do not fit the operator")
        return out

    def _run_device(self, name: str, flat: np.ndarray, n_out: int) -> np.ndarray:
        prev = self._previous.get(name)
        if prev is not None and prev[0].size == flat.size and prev[1] == n_out:
            src, n_src = np.ascontiguousarray(np.concatenate([flat, prev[0]])), 2
        else:
            src, n_src = flat, 1
        out = np.full(n_out, np.nan)
        host = np.full(n_out, np.nan)
        info = _DeviceInfo()
        dbl = ctypes.POINTER(ctypes.c_double)
        code = self._lib.glass_op_run_device(name.encode(), src.ctypes.data_as(dbl), flat.size, n_src,
                                             out.ctypes.data_as(dbl), n_out, host.ctypes.data_as(dbl),
                                             ctypes.byref(info))
        if code == 1:
            raise KeyError(f"no harness call named {name!r}")
        if code == 2:
            raise ValueError(f"{name}: {flat.size} inputs and {n_out} outputs do not fit the operator")
        self.last_host = host
        scope = SCOPES[info.scope] if 0 <= info.scope < len(SCOPES) else str(info.scope)
        STATS.calls += 1
        STATS.names.add(name)
        STATS.calls_by_scope[scope] = STATS.calls_by_scope.get(scope, 0) + 1
        STATS.launches += info.launches
        STATS.problems += info.problems
        STATS.thread_counts.setdefault(scope, set()).update(info.block_dims[:info.n_configs])
        if info.n_sources > 1:
            STATS.two_input_calls += 1
        if info.global_memory:
            STATS.global_memory_calls[scope] = STATS.global_memory_calls.get(scope, 0) + 1
            STATS.global_memory_launches[scope] = STATS.global_memory_launches.get(scope, 0) + info.global_memory
            STATS.global_memory_names.add(name)
        message = info.message.decode(errors="replace")
        same = code == 0 and out.tobytes() == host.tobytes()
        LAST_CALL.clear()
        LAST_CALL.update(name=name, inputs=flat.tolist(), device=out.tolist() if code == 0 else message,
                         host=host.tolist(), bitwise_equal=same)
        if code == 3:
            STATS.mismatches += 1
            STATS.mismatch_messages.append(message)
            raise ThreadCountMismatch(f"{message}\nhost result on the current inputs: {host.tolist()}")
        if code != 0:
            STATS.errors += 1
            STATS.error_messages.append(message)
            raise DeviceError(message or f"{name}: device run failed (code {code})")
        self._previous[name] = (flat.copy(), n_out)
        if same:
            STATS.bitwise_equal_to_host += 1
        return out
