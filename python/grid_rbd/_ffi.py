"""Loading a robot's kernel libraries and registering their XLA FFI handlers with JAX.

Every build directory's ``libgrid_rbd_cpu.so`` exports one XLA FFI handler per algorithm,
``grid_<algorithm>_cpu``; ``libgrid_rbd_cuda.so``, when present, exports ``grid_<algorithm>_cuda`` and
``grid_<algorithm>_cuda_workspace_bytes``, the scratch a call's trailing ``workspace`` result must hold for
the kernels to run at their tuned resource tier (see :meth:`LoadedRobot.workspace_bytes`). An unrolled robot's
libraries also export the fused rollout handlers (``grid_rollout_<cpu|cuda>``, ``..._tangent``, ``..._adjoint``;
metadata's ``trajectories``), which take no workspace. The handlers are
registered as the FFI targets ``grid_rbd.<robot>.<algorithm>`` for the platforms ``cpu`` and ``CUDA``, where
``<robot>`` is the build directory's name (characters outside ``[A-Za-z0-9_]`` replaced by ``_``, and a
numeric suffix added when two different directories share a name).

A run-time build spreads its CPU handlers over several libraries (:mod:`grid_rbd._libraries`): those of
``libgrid_rbd_cpu.so`` are registered when the directory is loaded, those of a deferred library when a call
first asks for one of its targets (:meth:`LoadedRobot.target`), which waits for the library to be compiled
first if need be. That happens while the call is traced, before JAX lowers it and looks its target up.

Loading happens at most once per build directory and process, under a lock, so creating handles from
several threads is safe and registering is idempotent. The libraries are opened with ``RTLD_LOCAL`` so that
the identically named symbols of different robots never resolve into one another.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jax
import numpy.typing as npt

from ._artifacts import CUDA_LIBRARY, CUDA_RTC_LIBRARY, METADATA, RobotNotBuiltError
from ._libraries import CPULibrary, LibrariesError, cpu_libraries
from ._metadata import RobotMetadata, load_metadata
from ._rtc import RuntimeKernels, gpu_arch, precision_of

__all__ = ["LoadedRobot", "load_robot", "loaded_robots"]

_log = logging.getLogger("grid_rbd")


@dataclass(frozen=True, slots=True, eq=False)
class LoadedRobot:
    """A build directory whose handlers are registered with JAX.

    Attributes:
      build_dir: the resolved build directory.
      name: the directory's name (the robot name used to look it up).
      target_prefix: FFI target names are ``f"{target_prefix}.{algorithm}"``.
      metadata: the parsed ``metadata.json``.
      cuda: whether the CUDA handlers were registered.
      cuda_error: why the CUDA handlers were not registered, if a CUDA library exists but failed to load or
        register; ``None`` otherwise.
      deferred: the deferred CPU libraries of a run-time build, each registered on first use; ``None`` when
        there are none.
      runtime_kernels: the kernels of a CUDA library built without nvcc (``libgrid_rbd_cuda_rtc.so``), compiled
        by NVRTC on each entry point's first call; ``None`` for an nvcc-built library or without a GPU.
    """

    build_dir: Path
    name: str
    target_prefix: str
    metadata: RobotMetadata
    cuda: bool
    cuda_error: str | None
    cuda_workspace: Mapping[str, Callable[[int, int], int]] = field(default_factory=dict)
    deferred: _DeferredLibraries | None = None
    runtime_kernels: RuntimeKernels | None = None

    def target(self, algorithm: str, dtype: npt.DTypeLike | None = None) -> str:
        """The FFI target name of one algorithm or fused rollout, its handlers ready: a deferred CPU library's
        is loaded (and compiled, if no process has yet) on the first call that needs it, and so are the
        NVRTC-compiled kernels of a CUDA library built without nvcc (those of ``dtype``'s precision, float32
        or float64, when given; otherwise both).

        Raises:
          grid_rbd._runtime_build.BuildError: compiling a deferred library failed.
          grid_rbd._nvrtc.NvrtcError: NVRTC is missing or could not compile the kernels.
          RobotNotBuiltError, RuntimeError, OSError: as for :func:`load_robot`, loading it.
        """
        if self.deferred is not None:
            self.deferred.load(algorithm)
        if self.runtime_kernels is not None:
            self.runtime_kernels.load(algorithm, None if dtype is None else precision_of(dtype))
        return f"{self.target_prefix}.{algorithm}"

    def workspace_bytes(self, algorithm: str, samples: int, itemsize: int) -> int:
        """Bytes of the ``workspace`` result a call of ``algorithm`` over ``samples`` samples of
        ``itemsize``-byte scalars needs for the CUDA kernels to run at their baked resource tier
        (``grid::launch_cfg<GRID_ALGO_*>::TIER``); 0 without a CUDA library or where that tier spills nothing.
        With less, the CUDA handler runs the kernels at ``TIER_SHARED``; the CPU handlers ignore it."""
        query = self.cuda_workspace.get(algorithm)
        return int(query(samples, itemsize)) if query is not None else 0


_lock = threading.Lock()
_loaded: dict[Path, LoadedRobot] = {}
_prefix_owner: dict[str, Path] = {}
# Loaded libraries stay referenced for the life of the process: XLA keeps raw pointers into them.
_libraries: list[ctypes.CDLL] = []


def loaded_robots() -> tuple[LoadedRobot, ...]:
    """The robots loaded so far in this process."""
    with _lock:
        return tuple(_loaded.values())


def _open(path: Path) -> ctypes.CDLL:
    return ctypes.CDLL(os.fspath(path), mode=os.RTLD_LOCAL | os.RTLD_NOW)


def _symbols(lib: ctypes.CDLL, path: Path, algorithms: list[str], suffix: str) -> dict[str, object]:
    found: dict[str, object] = {}
    missing: list[str] = []
    for algo in algorithms:
        symbol = f"grid_{algo}_{suffix}"
        try:
            found[algo] = getattr(lib, symbol)
        except AttributeError:
            missing.append(symbol)
    if missing:
        raise LookupError(f"{path} does not export {', '.join(missing)}")
    return found


def _register_cpu(build_dir: Path, library: CPULibrary, prefix: str) -> None:
    """Opens a CPU library and registers the handlers it runs (the targets the build lists for it)."""
    path = build_dir / library.file
    try:
        lib = _open(path)
    except OSError as exc:
        raise OSError(f"cannot load {path}: {exc}") from exc
    try:
        handlers = _symbols(lib, path, list(library.targets), "cpu")
        # the handlers' workspace result came with these queries: a library without them is older
        _symbols(lib, path, list(library.algorithms), "cpu_workspace_bytes")
    except LookupError as exc:
        raise RobotNotBuiltError(
            build_dir.name,
            f"{exc}: the build in {build_dir} is stale or incomplete. Rebuild it with "
            "`go tool mage build <path/to/robot.urdf> [-floating]`.",
            (build_dir,),
        ) from exc
    try:
        for name, fn in handlers.items():
            jax.ffi.register_ffi_target(f"{prefix}.{name}", _capsule(fn), platform="cpu")
    except Exception as exc:
        raise RuntimeError(
            f"cannot register the handlers of {path} with jax {jax.__version__}: {exc}\n"
            "A handler API version newer than this jaxlib's means the library was compiled against the "
            "XLA FFI headers of a newer jax; rebuild it against the headers of the oldest jax it must "
            "run with (`go tool mage build` reads them from $GRID_FFI_INCLUDE or .venv's jax), or "
            "upgrade jax."
        ) from exc
    _libraries.append(lib)


class _DeferredLibraries:
    """The deferred CPU libraries of one build directory, each registered on the first call that needs it."""

    def __init__(self, build_dir: Path, prefix: str, libraries: list[CPULibrary]) -> None:
        self._build_dir = build_dir
        self._prefix = prefix
        self._pending = {name: lib for lib in libraries for name in lib.targets}
        self._lock = threading.Lock()  # one compile and registration at a time, apart from other robots'

    def load(self, name: str) -> None:
        """Registers the library that runs ``name``, compiling it first if no process has."""
        if name not in self._pending:
            return  # registered already, or not deferred
        with self._lock:
            library = self._pending.get(name)
            if library is None:
                return
            path = self._build_dir / library.file
            if not path.is_file():
                self._compile(library)
            _register_cpu(self._build_dir, library, self._prefix)
            for target in library.targets:
                del self._pending[target]

    def _compile(self, library: CPULibrary) -> None:
        from ._runtime_build import compile_deferred, deferred_build_started

        started = deferred_build_started(self._build_dir)
        what = f"{self._build_dir.name}'s {library.kernels} kernels"
        if started is None:
            print(f"grid_rbd: compiling {what} (first use)...", end="", file=sys.stderr, flush=True)
        else:
            print(f"grid_rbd: waiting for {what}, compiling for {time.time() - started:.0f} s so far...", end="",
                  file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            compile_deferred(self._build_dir, [library.file])
        finally:
            print(f" {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def _prefix_for(name: str, build_dir: Path) -> str:
    token = re.sub(r"[^A-Za-z0-9_]", "_", name) or "robot"
    prefix = f"grid_rbd.{token}"
    n = 2
    while prefix in _prefix_owner and _prefix_owner[prefix] != build_dir:
        prefix = f"grid_rbd.{token}_{n}"
        n += 1
    return prefix


def _capsule(fn: object) -> object:
    return jax.ffi.pycapsule(fn)  # type: ignore[no-untyped-call,unused-ignore]


def _gpu_backend_present() -> bool:
    try:
        return len(jax.devices("cuda")) > 0
    except RuntimeError:
        return False


def load_robot(build_dir: Path) -> LoadedRobot:
    """Loads a build directory's libraries and registers their handlers, once per directory.

    Args:
      build_dir: a directory holding ``metadata.json`` and ``libgrid_rbd_cpu.so`` (as returned by
        :func:`grid_rbd._artifacts.find_robot`).

    Returns:
      The registration record, shared by every handle of this directory.

    Raises:
      RobotNotBuiltError: the CPU library does not export a handler for every algorithm its metadata lists
        (a stale or incomplete build).
      RuntimeError: XLA rejected a CPU handler, typically because the library was compiled against the
        FFI headers of a newer jax than the one running.
      OSError: a file cannot be read or the CPU library cannot be loaded.
      grid_rbd._metadata.MetadataError: ``metadata.json`` is malformed.
    """
    key = build_dir.resolve()
    with _lock:
        cached = _loaded.get(key)
        if cached is not None:
            return cached
        metadata = load_metadata(key / METADATA)
        algorithms = list(metadata.algorithms)
        trajectories = list(metadata.trajectories)
        try:
            libraries = cpu_libraries(key, metadata)
        except LibrariesError as exc:
            raise RobotNotBuiltError(key.name, f"{exc}: the build in {key} is stale or incomplete; rebuild it.",
                                     (key,)) from exc
        prefix = _prefix_for(key.name, key)
        _prefix_owner[prefix] = key
        # With the backends up, XLA checks each handler as it is registered and a bad one raises here;
        # registered before, the check runs at backend start-up, and a failure there disables the whole
        # backend for the process.
        jax.devices()
        for library in libraries:
            if not library.deferred:
                _register_cpu(key, library, prefix)
        later = [library for library in libraries if library.deferred]

        cuda = False
        cuda_error: str | None = None
        cuda_workspace: dict[str, Callable[[int, int], int]] = {}
        runtime_kernels: RuntimeKernels | None = None
        cuda_path = key / CUDA_LIBRARY
        # a library of kernels compiled at run time serves where no nvcc-built one is, and needs a GPU to load them
        rtc = not cuda_path.is_file() and (key / CUDA_RTC_LIBRARY).is_file() and _gpu_backend_present()
        if rtc:
            cuda_path = key / CUDA_RTC_LIBRARY
        if cuda_path.is_file():
            try:
                cuda_lib = _open(cuda_path)
                # the fused rollouts' handlers are nvcc-built only (xla_ffi/trajectory_cuda.cu)
                handled = algorithms if rtc else algorithms + trajectories
                cuda_handlers = _symbols(cuda_lib, cuda_path, handled, "cuda")
                queries = _symbols(cuda_lib, cuda_path, algorithms, "cuda_workspace_bytes")
                for algo, fn in cuda_handlers.items():
                    jax.ffi.register_ffi_target(f"{prefix}.{algo}", _capsule(fn), platform="CUDA")
                for algo, query in queries.items():
                    query.restype = ctypes.c_int64  # type: ignore[attr-defined]
                    query.argtypes = [ctypes.c_int64, ctypes.c_int32]  # type: ignore[attr-defined]
                    cuda_workspace[algo] = query  # type: ignore[assignment]
                _libraries.append(cuda_lib)
                if rtc:
                    arch = gpu_arch(str(jax.devices("cuda")[0].compute_capability))
                    runtime_kernels = RuntimeKernels(key, cuda_lib, metadata, arch)
                cuda = True
            except Exception as exc:  # noqa: BLE001 - any failure leaves the CPU handlers usable
                cuda_error = f"{type(exc).__name__}: {exc}"
                _log.debug("grid_rbd: CUDA handlers of %s not registered: %s", key, cuda_error)
                if _gpu_backend_present():
                    warnings.warn(
                        f"grid_rbd: {cuda_path} could not be registered ({cuda_error}); "
                        "only the CPU kernels are available",
                        RuntimeWarning,
                        stacklevel=3,
                    )
        record = LoadedRobot(
            build_dir=key,
            name=key.name,
            target_prefix=prefix,
            metadata=metadata,
            cuda=cuda,
            cuda_error=cuda_error,
            cuda_workspace=cuda_workspace,
            deferred=_DeferredLibraries(key, prefix, later) if later else None,
            runtime_kernels=runtime_kernels,
        )
        _loaded[key] = record
        return record
