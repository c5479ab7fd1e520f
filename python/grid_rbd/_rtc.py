"""The kernels of a CUDA handler library built without nvcc (``libgrid_rbd_cuda_rtc.so``, from
``xla_ffi/ffi_cuda_rtc.cc`` with ``GRID_RTC_HOST``), compiled by NVRTC when an entry point is first called.

The library holds the launch code and the XLA FFI handlers; ``metadata.json`` lists, per entry point, the
name expressions of the kernels its handler launches. Before JAX lowers the first call of an entry point,
:meth:`RuntimeKernels.load` compiles those kernels for the GPU's architecture, only those of the precision
being called (one NVRTC program per kernel, as many side by side as there are CPUs, each in a process of its
own: NVRTC compilations on threads of one process partly wait for each other; a program's own parsing costs
little next to its kernel's code generation), keeps each cubin in the build folder (``nvrtc/``, keyed by the
architecture, the kernel and the sources it is compiled from) so that later processes and other entry points
launching it only load it, and hands it to the library (``grid_rtc_load``), whose launches then find the
kernels by name. A run-time build (:mod:`grid_rbd._runtime_build`) fills that cache for the likely first call
(:func:`prefetch`) while the host compiler builds the libraries.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from . import _nvrtc
from ._artifacts import METADATA
from ._metadata import RobotMetadata, load_metadata
from ._locations import MISSING_SOURCES, cache_root, source_root

__all__ = ["FIRST_CALL", "RuntimeKernels", "gpu_arch", "precision_of", "prefetch"]

CACHE_DIR = "nvrtc"


def gpu_arch(compute_capability: str) -> str:
    """``"9.0"`` → ``"sm_90"``."""
    major, _, minor = compute_capability.partition(".")
    return f"sm_{int(major)}{int(minor or 0)}"


def _sources_digest(build_dir: Path) -> str:
    """A digest of what the kernels compile from: the robot's header and the kernel headers."""
    h = hashlib.sha256((build_dir / "grid.cuh").read_bytes())
    root = source_root()
    if root is None:
        raise RuntimeError(MISSING_SOURCES)
    kernels = root / "kernels"
    for path in sorted(kernels.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(kernels)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


Compiled = tuple[bytes, dict[str, str]]  # a cubin, and the mangled name of each name expression in it


def _store(path: Path, result: _nvrtc.CompiledKernels) -> None:
    """Writes a compiled kernel's cubin and mangled names under path (.cubin, .json), each file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix, data in ((".cubin", result.cubin), (".json", json.dumps(result.mangled).encode())):
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            f.write(data)
        os.replace(f.name, path.with_suffix(suffix))  # the cubin lands first: a reader wants both


_WORKER_NVRTC_ERROR = 3


def _worker(argv: Sequence[str]) -> int:
    """``python -m grid_rbd._rtc BUILD_DIR ARCH KERNEL PATH``: compiles one kernel into the cache entry PATH."""
    build_dir, arch, name, path = argv
    try:
        _store(Path(path), _nvrtc.compile_kernels(build_dir, [name], arch=arch))
    except _nvrtc.NvrtcError as e:
        print(e, file=sys.stderr)
        return _WORKER_NVRTC_ERROR
    return 0


def precision_of(dtype: npt.DTypeLike) -> str:
    """The kernels' precision (``"float"``, ``"double"``) that a call in ``dtype`` (float32, float64) runs."""
    return "double" if np.dtype(dtype) == np.float64 else "float"


def _of_precision(names: Sequence[str], precision: str | None) -> list[str]:
    """The kernels a call in ``precision`` (``"float"``, ``"double"``; None: both) launches: those whose name
    expression does not name the other precision."""
    if precision is None:
        return list(names)
    if precision not in ("float", "double"):
        raise ValueError(f"precision must be 'float' or 'double', got {precision!r}")
    other = re.compile(r"\b" + ("double" if precision == "float" else "float") + r"\b")
    return [n for n in names if not other.search(n)]


class _KernelCache:
    """One build folder's NVRTC kernels for one GPU architecture: each kernel its own program, its cubin kept in
    the folder's ``nvrtc/`` (in the user's cache, :func:`grid_rbd._locations.cache_root`, where the folder is
    read-only, as an installed wheel's robots may be) under a key of the architecture, the kernel and the
    sources (so that a changed header or kernel source compiles anew)."""

    def __init__(self, build_dir: Path, arch: str) -> None:
        self.build_dir = build_dir
        self.arch = arch
        self._digest: str | None = None
        writable = os.access(build_dir, os.W_OK) or os.access(build_dir / CACHE_DIR, os.W_OK)
        self._dir = build_dir / CACHE_DIR if writable else cache_root() / CACHE_DIR

    def _path(self, name: str) -> Path:
        if self._digest is None:
            self._digest = _sources_digest(self.build_dir)
        key = hashlib.sha256("\n".join([self.arch, self._digest, name]).encode()).hexdigest()[:32]
        return self._dir / f"{self.arch}-{key}"

    def read(self, name: str) -> Compiled | None:
        path = self._path(name)
        try:
            mangled = json.loads(path.with_suffix(".json").read_text())
            cubin = path.with_suffix(".cubin").read_bytes()
        except (OSError, ValueError):
            return None
        return (cubin, mangled) if name in mangled else None

    def compile(self, name: str) -> Compiled:
        """Compiles one kernel into the cache in a process of its own (:func:`_worker`), or in this one where the
        cache cannot be written or no worker could start."""
        path = self._path(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        else:
            env = dict(os.environ)
            package_parent = str(Path(__file__).resolve().parent.parent)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
            try:
                proc = subprocess.run([sys.executable, "-m", __name__, str(self.build_dir), self.arch, name, str(path)],
                                      capture_output=True, text=True, env=env)
            except OSError:
                proc = None
            if proc is not None:
                if proc.returncode == _WORKER_NVRTC_ERROR:
                    raise _nvrtc.NvrtcError(proc.stderr.strip())
                if proc.returncode == 0 and (compiled := self.read(name)) is not None:
                    return compiled
        result = _nvrtc.compile_kernels(self.build_dir, [name], arch=self.arch)
        try:  # the cache is an optimisation: a read-only build folder still runs
            _store(path, result)
        except OSError:
            pass
        return result.cubin, result.mangled

    def cached(self, names: Sequence[str]) -> dict[str, Compiled]:
        """The kernels of names that the cache holds."""
        return {n: c for n in names if (c := self.read(n)) is not None}

    def compile_all(self, names: Sequence[str], workers: int) -> dict[str, Compiled]:
        """Compiles names into the cache, up to workers at a time."""
        if not names:
            return {}
        with ThreadPoolExecutor(max(1, min(len(names), workers))) as pool:
            return dict(zip(names, pool.map(self.compile, names)))

    def get(self, names: Sequence[str], workers: int) -> dict[str, Compiled]:
        """Each kernel from the cache, else compiled, up to workers at a time."""
        found = self.cached(names)
        found.update(self.compile_all([n for n in names if n not in found], workers))
        return found


class RuntimeKernels:
    """The NVRTC-compiled kernels of one build folder's run-time CUDA library, loaded per entry point."""

    def __init__(self, build_dir: Path, library: ctypes.CDLL, metadata: RobotMetadata, arch: str) -> None:
        self._cache = _KernelCache(build_dir, arch)
        self._library = library
        self._metadata = metadata
        self._loaded: set[str] = set()  # name expressions bound in the library
        self._ready: set[str] = set()  # entry points whose kernels are all loaded
        self._lock = threading.Lock()
        library.grid_rtc_load.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_char_p)]
        library.grid_rtc_load.restype = ctypes.c_int
        library.grid_rtc_error.argtypes = [ctypes.c_int]
        library.grid_rtc_error.restype = ctypes.c_char_p

    def load(self, algorithm: str, precision: str | None = None) -> None:
        """Makes the kernels of ``algorithm``'s CUDA handler ready for calls in ``precision`` (``"float"``,
        ``"double"``; None: both): from the cache, else compiled now.

        Raises:
          grid_rbd._nvrtc.NvrtcError: NVRTC or libcu++ is missing, or a kernel did not compile.
          RuntimeError: the build lists no kernels (it predates them) or the CUDA runtime refused the cubin.
        """
        key = (algorithm, precision)
        if key in self._ready:
            return
        info = self._metadata.algorithms.get(algorithm)
        if info is None:
            return  # not an entry point of this library (a fused rollout): the handler lookup reports it
        with self._lock:
            if key in self._ready:
                return
            if not info.kernels:
                raise RuntimeError(f"{self._cache.build_dir / 'metadata.json'} lists no kernels for {algorithm}: "
                                   "the build predates kernels compiled at run time; rebuild the robot")
            missing = [k for k in _of_precision(info.kernels, precision) if k not in self._loaded]
            if missing:
                self._load(algorithm, missing)
            self._ready.add(key)

    def _load(self, algorithm: str, names: list[str]) -> None:
        what = f"{self._metadata.robot}'s {algorithm} kernels for {self._cache.arch}"
        compiled = self._cache.cached(names)
        todo = [n for n in names if n not in compiled]
        if todo:
            print(f"grid_rbd: compiling {what} with NVRTC (first use)...", end="", file=sys.stderr, flush=True)
            start = time.perf_counter()
            try:
                compiled.update(self._cache.compile_all(todo, os.cpu_count() or 1))
            finally:
                print(f" {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        for name in names:
            cubin, mangled = compiled[name]
            array = ctypes.c_char_p * 1
            rc = self._library.grid_rtc_load(cubin, 1, array(name.encode()), array(mangled[name].encode()))
            if rc != 0:
                raise RuntimeError(f"loading {what} failed: "
                                   f"{self._library.grid_rtc_error(rc).decode(errors='replace')}")
            self._loaded.add(name)


# The entry points whose kernels a run-time build compiles while its CPU library compiles: those of
# forward_dynamics with its default method (ABA), the call a new user makes first.
FIRST_CALL = ("aba",)


def prefetch(build_dir: Path, compute_capability: str, algorithms: Sequence[str] = FIRST_CALL,
             workers: int | None = None, precision: str | None = None) -> Callable[[], None]:
    """Starts compiling the kernels of ``algorithms`` in ``precision`` (``"float"``, ``"double"``; None: both) for
    a GPU of ``compute_capability`` into ``build_dir``'s kernel cache, in a thread of its own; returns the
    function that waits for it. A failure is not reported here: the first call compiles the kernel again and
    raises it."""
    metadata = load_metadata(build_dir / METADATA)
    names = _of_precision(list(dict.fromkeys(k for a in algorithms if a in metadata.algorithms
                                             for k in metadata.algorithms[a].kernels)), precision)
    cache = _KernelCache(build_dir, gpu_arch(compute_capability))

    def run() -> None:
        try:
            cache.get(names, workers or os.cpu_count() or 1)
        except Exception:  # noqa: BLE001 - see the docstring
            pass

    thread = threading.Thread(target=run, name="grid_rbd-nvrtc-prefetch", daemon=True)
    thread.start()
    return thread.join


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
