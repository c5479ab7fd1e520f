"""The kernels of a CUDA handler library built without nvcc (``libgrid_rbd_cuda_rtc.so``, from
``xla_ffi/ffi_cuda_rtc.cc`` with ``GRID_RTC_HOST``), compiled by NVRTC when an entry point is first called.

The library holds the launch code and the XLA FFI handlers; ``metadata.json`` lists, per entry point, the
name expressions of the kernels its handler launches. Before JAX lowers the first call of an entry point,
:meth:`RuntimeKernels.load` compiles those kernels for the GPU's architecture (one NVRTC program per kernel, as
many side by side as there are CPUs: a program's own parsing costs little next to its kernel's code
generation), keeps each cubin in the build folder (``nvrtc/``, keyed by the architecture, the kernel and the
sources it is compiled from) so that later processes and other entry points launching it only load it, and hands it to the library
(``grid_rtc_load``), whose launches then find the kernels by name.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import _nvrtc
from ._metadata import RobotMetadata
from ._runtime_build import _sources

__all__ = ["RuntimeKernels", "gpu_arch"]

CACHE_DIR = "nvrtc"


def gpu_arch(compute_capability: str) -> str:
    """``"9.0"`` → ``"sm_90"``."""
    major, _, minor = compute_capability.partition(".")
    return f"sm_{int(major)}{int(minor or 0)}"


def _sources_digest(build_dir: Path) -> str:
    """A digest of what the kernels compile from: the robot's header and the kernel headers."""
    h = hashlib.sha256((build_dir / "grid.cuh").read_bytes())
    kernels = _sources() / "kernels"
    for path in sorted(kernels.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(kernels)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


class RuntimeKernels:
    """The NVRTC-compiled kernels of one build folder's run-time CUDA library, loaded per entry point."""

    def __init__(self, build_dir: Path, library: ctypes.CDLL, metadata: RobotMetadata, arch: str) -> None:
        self._build_dir = build_dir
        self._library = library
        self._metadata = metadata
        self._arch = arch
        self._loaded: set[str] = set()  # name expressions bound in the library
        self._ready: set[str] = set()  # entry points whose kernels are all loaded
        self._digest: str | None = None
        self._lock = threading.Lock()
        library.grid_rtc_load.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_char_p)]
        library.grid_rtc_load.restype = ctypes.c_int
        library.grid_rtc_error.argtypes = [ctypes.c_int]
        library.grid_rtc_error.restype = ctypes.c_char_p

    def load(self, algorithm: str) -> None:
        """Makes the kernels of ``algorithm``'s CUDA handler ready: from the cache, else compiled now.

        Raises:
          grid_rbd._nvrtc.NvrtcError: NVRTC or libcu++ is missing, or a kernel did not compile.
          RuntimeError: the build lists no kernels (it predates them) or the CUDA runtime refused the cubin.
        """
        if algorithm in self._ready:
            return
        info = self._metadata.algorithms.get(algorithm)
        if info is None:
            return  # not an entry point of this library (a fused rollout): the handler lookup reports it
        with self._lock:
            if algorithm in self._ready:
                return
            if not info.kernels:
                raise RuntimeError(f"{self._build_dir / 'metadata.json'} lists no kernels for {algorithm}: the build "
                                   "predates kernels compiled at run time; rebuild the robot")
            missing = [k for k in info.kernels if k not in self._loaded]
            if missing:
                self._load_groups(algorithm, [[k] for k in missing])
            self._ready.add(algorithm)

    def _load_groups(self, algorithm: str, groups: list[list[str]]) -> None:
        if self._digest is None:
            self._digest = _sources_digest(self._build_dir)
        cached = [self._read(g) for g in groups]
        todo = [g for g, c in zip(groups, cached) if c is None]
        if todo:
            what = f"{self._metadata.robot}'s {algorithm} kernels for {self._arch}"
            print(f"grid_rbd: compiling {what} with NVRTC (first use)...", end="", file=sys.stderr, flush=True)
            start = time.perf_counter()
            try:
                with ThreadPoolExecutor(min(len(todo), os.cpu_count() or 1)) as pool:
                    compiled = dict(zip(map(tuple, todo), pool.map(self._compile, todo)))
            finally:
                print(f" {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            cached = [c if c is not None else compiled[tuple(g)] for g, c in zip(groups, cached)]
        for names, (cubin, mangled) in zip(groups, cached):
            array = ctypes.c_char_p * len(names)
            rc = self._library.grid_rtc_load(cubin, len(names), array(*(n.encode() for n in names)),
                                             array(*(mangled[n].encode() for n in names)))
            if rc != 0:
                raise RuntimeError(f"loading {self._metadata.robot}'s {algorithm} kernels for {self._arch} failed: "
                                   f"{self._library.grid_rtc_error(rc).decode(errors='replace')}")
            self._loaded.update(names)

    def _path(self, names: list[str]) -> Path:
        key = hashlib.sha256("\n".join([self._arch, self._digest or "", *names]).encode()).hexdigest()[:32]
        return self._build_dir / CACHE_DIR / f"{self._arch}-{key}"

    def _read(self, names: list[str]) -> tuple[bytes, dict[str, str]] | None:
        path = self._path(names)
        try:
            mangled = json.loads(path.with_suffix(".json").read_text())
            cubin = path.with_suffix(".cubin").read_bytes()
        except (OSError, ValueError):
            return None
        return (cubin, mangled) if all(n in mangled for n in names) else None

    def _compile(self, names: list[str]) -> tuple[bytes, dict[str, str]]:
        result = _nvrtc.compile_kernels(self._build_dir, names, arch=self._arch)
        path = self._path(names)
        try:  # the cache is an optimisation: a read-only build folder still runs
            path.parent.mkdir(exist_ok=True)
            for suffix, data in ((".cubin", result.cubin), (".json", json.dumps(result.mangled).encode())):
                with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
                    f.write(data)
                os.replace(f.name, path.with_suffix(suffix))  # the cubin lands first: a reader wants both
        except OSError:
            pass
        return result.cubin, result.mangled
