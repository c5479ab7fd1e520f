"""Building a robot from its URDF at run time: ``from_urdf`` and ``python -m grid_rbd build``.

The generator is the ``grid-rbd-build`` program (``codegen/cmd/grid-rbd-build``): it parses the URDF, writes
the robot's header, metadata and FFI bindings and compiles the CPU kernel library with the system's C++
compiler, against the installed jax's XLA FFI headers. It is found as ``$GRID_RBD_GENERATOR``, as
``grid_rbd/_bin/grid-rbd-build`` in an installed wheel, or, in a source checkout with Go on ``PATH``, built
once with ``go build``. The kernel sources (``kernels/``, ``xla_ffi/``) come from ``grid_rbd/_src`` in a
wheel or from the checkout.

Builds are cached in ``$GRID_RBD_CACHE`` (default ``$XDG_CACHE_HOME/grid_rbd``, else ``~/.cache/grid_rbd``),
keyed by the URDF's bytes, the flags, the package version and the generator itself; a build is written to a
temporary folder and renamed into place under a file lock, so two processes building the same robot at once
build it once and both load the same folder.

The generator compiles the CPU library's translation units side by side on every CPU;
``$GRID_BUILD_JOBS`` caps how many compilers it runs (1: one translation unit per library, the least work in
total).

A build defers its expensive kernels: ``libgrid_rbd_cpu.so`` holds what a first call needs (dynamics, the
mass matrix and its inverse, frame poses and Jacobians, the integrator) and is all a build waits for; the
derivatives and the fused rollouts go into deferred libraries (``cpu_libraries.json``;
:mod:`grid_rbd._libraries`), compiled by ``grid-rbd-build -finish`` one process at a time. ``defer`` (default
``$GRID_RBD_DEFER``, else ``"background"``) says when: ``"background"`` starts that process as soon as the
build folder is in place, ``"first-use"`` leaves it to the first call that needs a deferred library, ``"no"``
compiles them before the build returns. A call that needs one waits for it (:class:`grid_rbd._ffi.LoadedRobot`).

On a machine with a GPU (the NVIDIA driver lists one and JAX has a CUDA plugin; or always, with
``$GRID_RBD_CUDA_RTC=yes``; never with ``no``) a build also compiles the CUDA handler library of kernels
compiled at run time (``libgrid_rbd_cuda_rtc.so``, seconds: no nvcc and no kernels) against the CUDA runtime's
headers and library (:func:`grid_rbd._cuda_paths.cuda_runtime`: the ``nvidia-cuda-runtime`` and
``nvidia-cuda-crt`` wheels, else the toolkit at ``$CUDA_HOME``, ``/usr/local/cuda``), and, while the host
compiler runs, NVRTC compiles the kernels of ``forward_dynamics`` in JAX's default precision into the build's
kernel cache (:func:`grid_rbd._rtc.prefetch`) while JAX starts CUDA, so that a first call on the GPU finds both
done. Every other entry point's kernels compile with NVRTC on its first call (:mod:`grid_rbd._rtc`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

from ._artifacts import CPU_LIBRARY, CUDA_RTC_LIBRARY, METADATA
from ._cuda_paths import cuda_runtime
from ._libraries import LibrariesError, listed_libraries
from ._locations import CHECKOUT, MISSING_SOURCES, PACKAGE, cache_root, source_root
from ._rtc import precision_of, prefetch

__all__ = ["DEFER_MODES", "BuildError", "build_from_urdf", "cache_root", "compile_deferred", "deferred_build_started"]

GENERATOR = "grid-rbd-build"


class BuildError(RuntimeError):
    """The generator or the compiler failed on a valid URDF (the message holds their output)."""


def _in_checkout() -> bool:
    return (CHECKOUT / "go.mod").is_file() and (CHECKOUT / "codegen" / "cmd" / GENERATOR).is_dir()


def _sources() -> Path:
    """The folder holding kernels/ and xla_ffi/."""
    root = source_root()
    if root is not None:
        return root
    raise BuildError(MISSING_SOURCES)


def _generator() -> Path:
    """The generator program, building it with Go in a source checkout."""
    if env := os.environ.get("GRID_RBD_GENERATOR"):
        path = Path(env)
        if not os.access(path, os.X_OK):
            raise BuildError(f"GRID_RBD_GENERATOR={env} is not an executable file")
        return path
    bundled = PACKAGE / "_bin" / GENERATOR
    if os.access(bundled, os.X_OK):
        return bundled
    go = shutil.which("go")
    if not _in_checkout() or go is None:
        raise BuildError(
            f"no {GENERATOR} program: this installation of grid_rbd does not bundle one for {sys.platform} "
            f"(the wheel for linux x86-64 does). Install that wheel, or run from a grid-rbd checkout with Go "
            f"1.24+ on PATH, or set GRID_RBD_GENERATOR to a {GENERATOR} built with "
            f"`go build ./codegen/cmd/{GENERATOR}`")
    out = cache_root() / "bin" / GENERATOR
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(out.parent / f"{GENERATOR}.lock"):
        # go build is incremental: a current binary is relinked only when the sources changed
        proc = subprocess.run([go, "build", "-o", str(out), f"./codegen/cmd/{GENERATOR}"], cwd=CHECKOUT,
                              capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"building {GENERATOR} with Go failed:\n{proc.stderr.strip()}")
    return out


class _locked:
    """An exclusive lock on a file for the duration of a with-block (processes and threads alike)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.file = open(self.path, "a")  # noqa: SIM115 - held until __exit__
        fcntl.flock(self.file, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def _ffi_include() -> str:
    import jax.ffi

    return str(jax.ffi.include_dir())


ROLL_MODES = ("auto", "always", "never")
DEFER_MODES = ("background", "first-use", "no")
DEFER_ENV = "GRID_RBD_DEFER"
# What grid-rbd-build -finish writes while it compiles a folder's deferred libraries, holding it locked.
_DEFERRED_LOCK = "deferred.lock"
_DEFERRED_LOG = "deferred.log"
_started: set[Path] = set()  # folders whose deferred libraries this process set compiling in the background


def _jobs() -> list[str]:
    if jobs := os.environ.get("GRID_BUILD_JOBS"):
        if not jobs.isdigit() or int(jobs) < 1:
            raise BuildError(f"GRID_BUILD_JOBS={jobs!r} is not a positive integer")
        return [f"-jobs={jobs}"]
    return []


CUDA_RTC_ENV = "GRID_RBD_CUDA_RTC"
CUDA_RTC_MODES = ("auto", "yes", "no")


def _cuda_rtc_flags() -> list[str]:
    """grid-rbd-build's flags for the CUDA handler library of run-time kernels, or none (see the module)."""
    mode = os.environ.get(CUDA_RTC_ENV) or CUDA_RTC_MODES[0]
    if mode not in CUDA_RTC_MODES:
        raise ValueError(f"${CUDA_RTC_ENV} must be one of {', '.join(map(repr, CUDA_RTC_MODES))}; got {mode!r}")
    if mode == "no":
        return []
    if mode == "auto" and not _gpu_likely():
        return []
    runtime = cuda_runtime()
    if runtime is None:
        missing = ("the CUDA runtime's headers and library are not installed: pip install 'grid-rbd[cuda]' "
                   "(or set CUDA_HOME to a CUDA 13 toolkit)")
        if mode == "yes":
            raise BuildError(f"${CUDA_RTC_ENV}=yes, but {missing}")
        warnings.warn(f"this robot's kernels will run on the CPU only although JAX sees a GPU: {missing}; "
                      f"${CUDA_RTC_ENV}=no silences this", RuntimeWarning, stacklevel=4)
        return []
    return ["-cuda-runtime-include", str(runtime[0]), "-cuda-runtime-library", str(runtime[1])]


_NVIDIA_GPUS = Path("/proc/driver/nvidia/gpus")  # a folder per GPU while the NVIDIA driver is loaded


def _gpu_likely() -> bool:
    """Whether JAX will likely see an NVIDIA GPU, told without starting CUDA (seconds where the driver is cold,
    time the build then spends beside it, in :func:`_prefetch_kernels`): the NVIDIA driver lists a GPU and a JAX
    CUDA plugin is installed (JAX finds plugins as ``jax_plugins`` entry points or modules)."""
    try:
        if not any(_NVIDIA_GPUS.iterdir()):
            return False
    except OSError:
        return False
    from importlib.metadata import entry_points

    if any("cuda" in e.name for e in entry_points(group="jax_plugins")):
        return True
    try:
        import jax_plugins  # type: ignore[import-not-found]
    except ImportError:
        return False
    import pkgutil

    return any("cuda" in m.name for m in pkgutil.iter_modules(jax_plugins.__path__))


def _toolchain_flags() -> list[str]:
    return ["-src", str(_sources()), "-ffi-include", _ffi_include(), *_jobs()]


def _finish_command(folder: Path, files: list[str]) -> list[str]:
    return [str(_generator()), "-finish", str(folder), *_toolchain_flags(), *files]


def compile_deferred(folder: Path, files: list[str] | None = None) -> None:
    """Compiles a build folder's deferred CPU libraries that are missing (the named ones, else all), or waits
    for the process compiling them.

    Raises:
      BuildError: no generator or compiler, or a compile error.
    """
    proc = subprocess.run(_finish_command(folder, files or []), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"compiling the deferred kernels of {folder} failed ({GENERATOR} exit status "
                         f"{proc.returncode}):\n{proc.stderr.strip()}\n{proc.stdout.strip()}")


def deferred_build_started(folder: Path) -> float | None:
    """When the process compiling the folder's deferred libraries started (a time.time()), or ``None`` when
    none is."""
    lock = folder / _DEFERRED_LOCK
    try:
        with open(lock, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return os.fstat(f.fileno()).st_mtime  # the builder writes to it as it takes the lock
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:
        pass
    return None


def _start_deferred(folder: Path) -> None:
    """Starts compiling the folder's deferred libraries in a process of its own, which outlives this one so
    that later processes find them built; its output goes to deferred.log in the folder."""
    if folder in _started:
        return
    cmd = _finish_command(folder, [])
    with open(folder / _DEFERRED_LOG, "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    _started.add(folder)
    threading.Thread(target=proc.wait, name="grid_rbd deferred build", daemon=True).start()  # reaps it


def _deferred_missing(folder: Path) -> bool:
    try:
        libraries = listed_libraries(folder) or ()
    except LibrariesError as exc:
        raise BuildError(f"{exc}: remove {folder} to rebuild it") from exc
    return any(lib.deferred and not (folder / lib.file).is_file() for lib in libraries)


def build_from_urdf(urdf: str | os.PathLike[str], *, floating: bool = False, roll: str = "auto",
                    defer: str | None = None, quiet: bool = True) -> Path:
    """The build folder of a robot described by a URDF file, generated and compiled on first use.

    Args:
      urdf: path to the URDF file.
      floating: add a free-flyer base (6 degrees of freedom, quaternion ``xyzw``).
      roll: ``"auto"`` (default) unrolls robots of up to 64 bodies and rolls larger ones; ``"always"``
        generates the rolled description, which compiles in seconds at any size (a humanoid's unrolled CPU
        build takes minutes) but runs slower and has no second-order kernels; ``"never"`` unrolls.
      defer: when the deferred libraries (derivatives, fused rollouts) compile: ``"background"`` (start
        compiling them now, in a process of their own), ``"first-use"`` (when a call first needs them) or
        ``"no"`` (before this returns); default ``$GRID_RBD_DEFER``, else ``"background"``.
      quiet: hide the generator's progress lines (errors are always reported).

    Returns:
      A folder holding ``metadata.json`` and ``libgrid_rbd_cpu.so``, named after the URDF's stem.

    Raises:
      FileNotFoundError: no such file.
      ValueError: the URDF is invalid (the message names the element and line).
      BuildError: no generator, no C++ compiler, or a compile error.
    """
    from . import __version__

    if roll not in ROLL_MODES:
        raise ValueError(f"roll must be one of {', '.join(map(repr, ROLL_MODES))}; got {roll!r}")
    if defer is None:
        defer = os.environ.get(DEFER_ENV) or DEFER_MODES[0]
    if defer not in DEFER_MODES:
        raise ValueError(f"defer (${DEFER_ENV}) must be one of {', '.join(map(repr, DEFER_MODES))}; got {defer!r}")
    path = Path(urdf)
    data = path.read_bytes()
    generator = _generator()
    cuda = _cuda_rtc_flags()
    key = hashlib.sha256()
    for part in (data, f"floating={floating} roll={roll} cuda_rtc={bool(cuda)}".encode(), __version__.encode(),
                 generator.read_bytes()):
        key.update(hashlib.sha256(part).digest())
    stem = "".join(c if c.isalnum() or c in "_-" else "_" for c in path.stem) or "robot"
    slot = cache_root() / key.hexdigest()[:20]
    folder = slot / stem
    complete = [METADATA, CPU_LIBRARY, *([CUDA_RTC_LIBRARY] if cuda else [])]
    if not all((folder / f).is_file() for f in complete):
        _build(path, slot, folder, generator, floating, roll, quiet, cuda)
    if _deferred_missing(folder):
        if defer == "background":
            _start_deferred(folder)
        elif defer == "no":
            compile_deferred(folder)
    return folder


def _run_generator(cmd: list[str], work: Path, cuda: list[str]) -> tuple[int, str, str]:
    """Runs the generator into work: its exit status, stdout and stderr. Building for the GPU, it compiles a
    first call's kernels with NVRTC (:func:`grid_rbd._rtc.prefetch`) as soon as the generator has written the
    sources, beside the host compiler's libraries, and waits for both."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.append(proc.stderr.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    lines = []
    wait_for_kernels = None
    for line in proc.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if cuda and wait_for_kernels is None and line.rstrip("\n").endswith(f": generated {work}"):
            wait_for_kernels = _prefetch_kernels(work)
    returncode = proc.wait()
    reader.join()
    if wait_for_kernels is not None and returncode == 0:
        wait_for_kernels()
    return returncode, "".join(lines), "".join(stderr)


def _prefetch_kernels(work: Path) -> Callable[[], None]:
    """Starts NVRTC on a first call's kernels in work (see _run_generator), in JAX's default floating-point
    precision (float32 unless x64 is enabled), and has JAX start CUDA beside it (what a first call would wait
    for: seconds where the driver is cold); returns the function that waits for both. Without a GPU there is
    nothing to do."""
    import jax
    import numpy as np

    precision = precision_of(jax.dtypes.canonicalize_dtype(np.float64))

    def start_cuda() -> str | None:
        try:
            return str(jax.devices("cuda")[0].compute_capability)
        except (RuntimeError, IndexError):
            return None

    def compile_kernels() -> None:
        capability = _compute_capability() or start_cuda()
        if capability is None:
            return
        try:
            prefetch(work, capability, precision=precision)()
        except Exception:  # noqa: BLE001 - the first call compiles the kernels again and reports the failure
            pass

    threads = [threading.Thread(target=f, name=f"grid_rbd-{f.__name__}", daemon=True)
               for f in (start_cuda, compile_kernels)]
    for t in threads:
        t.start()

    def wait() -> None:
        for t in threads:
            t.join()

    return wait


_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


def _compute_capability() -> str | None:
    """The compute capability (``"9.0"``) of CUDA device 0, JAX's first GPU, from the driver API: no context is
    created, so it takes milliseconds where JAX's start takes seconds. None where the driver cannot say."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        device = ctypes.c_int()
        major, minor = ctypes.c_int(), ctypes.c_int()
        attribute = cuda.cuDeviceGetAttribute
        if (cuda.cuInit(0) or cuda.cuDeviceGet(ctypes.byref(device), 0)
                or attribute(ctypes.byref(major), _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
                or attribute(ctypes.byref(minor), _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)):
            return None
    except (OSError, AttributeError):
        return None
    return f"{major.value}.{minor.value}"


def _build(path: Path, slot: Path, folder: Path, generator: Path, floating: bool, roll: str, quiet: bool,
           cuda: list[str]) -> None:
    """Generates the robot and compiles its core CPU library (and, with cuda's flags, its CUDA handler library
    of run-time kernels) into folder, once for all processes."""
    slot.mkdir(parents=True, exist_ok=True)
    with _locked(slot / "build.lock"):
        if (folder / METADATA).is_file() and (folder / CPU_LIBRARY).is_file():
            return  # another process built it while this one waited
        work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=slot))
        try:
            cmd = [str(generator), "-out", str(work), *_toolchain_flags(), f"-roll={roll}", "-defer", *cuda]
            if floating:
                cmd.append("-floating")
            returncode, stdout, stderr = _run_generator([*cmd, str(path.resolve())], work, cuda)
            if returncode == 2:
                raise ValueError(stderr.strip())
            if returncode != 0:
                raise BuildError(f"building {path} failed ({GENERATOR} exit status {returncode}):\n"
                                 f"{stderr.strip()}\n{stdout.strip()}")
            if not quiet:
                print(stdout.strip(), file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(work, folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)
