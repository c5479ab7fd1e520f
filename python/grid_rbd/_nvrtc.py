"""CUDA kernels compiled at run time with NVRTC, without nvcc: a robot's generated ``grid.cuh`` and the kernel
headers to a cubin for one GPU architecture.

NVRTC compiles device code only, and has no C++ standard library: ``kernels/nvrtc/`` maps the standard headers
the kernels include to libcu++'s (CCCL), and the headers leave out their launch helpers and host wrappers
under NVRTC (``GRID_CUDA_HOST`` in ``grid/launch.cuh``). The kernels are named as C++ name expressions
(``grid::aba_kernel<float, grid::TIER_SHARED>``, ``grid::aba_thread_kernel<double>``); the result maps each
to its mangled name in the cubin, which the CUDA driver API loads (``cuModuleLoadData``,
``cuModuleGetFunction``).

NVRTC comes from the ``nvidia-cuda-nvrtc`` wheel and libcu++ from ``nvidia-cuda-cccl`` (both CUDA 13), or from
a CUDA 13 toolkit: libnvrtc on the library path, libcu++ under ``$CUDA_HOME/include/cccl`` (``CUDA_PATH``, else
``/usr/local/cuda``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ._cuda_paths import nvidia_dirs, toolkit_root
from ._locations import MISSING_SOURCES, source_root

__all__ = ["CompiledKernels", "NvrtcError", "compile_kernels", "include_dirs"]

# The NVRTC major version the kernels are compiled with (its builtins library carries the full version).
NVRTC_SONAME = "libnvrtc.so.13"
NVRTC_BUILTINS = "libnvrtc-builtins.so.13.0"
_INSTALL = ("pip install nvidia-cuda-nvrtc==13.* nvidia-cuda-cccl==13.* (or put a CUDA 13 toolkit's lib64 on "
            "LD_LIBRARY_PATH)")


class NvrtcError(RuntimeError):
    """NVRTC is missing, or a compilation failed (the message holds NVRTC's log)."""


@dataclass(frozen=True)
class CompiledKernels:
    """A cubin and, for each requested name expression, its mangled name in it."""

    cubin: bytes
    mangled: dict[str, str]
    arch: str
    seconds: float
    log: str


_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def _nvrtc() -> ctypes.CDLL:
    """libnvrtc, loaded once: the wheel's (its builtins library preloaded, which NVRTC opens by name), else the
    system's."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        for lib_dir in nvidia_dirs("cu13/lib"):
            if (lib_dir / NVRTC_SONAME).is_file():
                if (lib_dir / NVRTC_BUILTINS).is_file():
                    ctypes.CDLL(str(lib_dir / NVRTC_BUILTINS), mode=os.RTLD_GLOBAL)
                _library = ctypes.CDLL(str(lib_dir / NVRTC_SONAME))
                break
        else:
            name = ctypes.util.find_library("nvrtc")
            try:
                _library = ctypes.CDLL(name or NVRTC_SONAME)
            except OSError as e:
                raise NvrtcError(f"NVRTC ({NVRTC_SONAME}) is not installed: {_INSTALL}") from e
        lib = _library
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        lib.nvrtcAddNameExpression.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.nvrtcGetCUBINSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.nvrtcGetCUBIN.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.nvrtcGetLoweredName.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        return lib


def include_dirs() -> list[Path]:
    """The include path of an NVRTC compilation: the standard-header map, the kernel headers, libcu++."""
    root = source_root()
    if root is None:
        raise NvrtcError(MISSING_SOURCES)
    kernels = root / "kernels"
    toolkit = toolkit_root() / "include/cccl"
    cccl = nvidia_dirs("cu13/include/cccl") + ([toolkit] if toolkit.is_dir() else [])
    if not cccl:
        raise NvrtcError(f"libcu++ (CCCL), which NVRTC compilations include, is not installed: {_INSTALL}")
    return [kernels / "nvrtc", kernels, cccl[0]]


def compile_kernels(build_dir: str | os.PathLike[str], kernels: Sequence[str], *, arch: str = "sm_90",
                    defines: Sequence[str] = ()) -> CompiledKernels:
    """Compiles the named kernels of the robot built in ``build_dir`` (its ``grid.cuh``) for ``arch``.

    Args:
      build_dir: a folder with a generated ``grid.cuh``.
      kernels: name expressions of kernel template instances, e.g. ``"grid::aba_kernel<float, grid::TIER_SHARED>"``.
      arch: the GPU architecture, ``sm_XY``.
      defines: extra preprocessor definitions (``NAME`` or ``NAME=VALUE``).

    Raises:
      NvrtcError: NVRTC or libcu++ is missing, or the compilation failed (NVRTC's log in the message).
    """
    build = Path(build_dir)
    if not (build / "grid.cuh").is_file():
        raise NvrtcError(f"{build} holds no grid.cuh: generate the robot first")
    if not kernels:
        raise NvrtcError("no kernels to compile")
    if not (arch.startswith("sm_") and arch[3:].isdigit()):
        raise NvrtcError(f"arch must be sm_XY (e.g. sm_90), got {arch!r}")
    lib = _nvrtc()
    options = [f"--gpu-architecture={arch}", "-std=c++17", "-default-device", "-DGRID_SEPARATE_ENTRIES"]
    options += [f"-I{d}" for d in [*include_dirs(), build]]
    options += [f"-D{d}" for d in defines]
    source = b'#include "grid.cuh"\n'
    program = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(program), source, b"grid_nvrtc.cu", 0, None, None), "create")
    try:
        for name in kernels:
            _check(lib, lib.nvrtcAddNameExpression(program, name.encode()), f"name {name!r}")
        argv = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        start = time.perf_counter()
        rc = lib.nvrtcCompileProgram(program, len(options), argv)
        seconds = time.perf_counter() - start
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetProgramLogSize(program, ctypes.byref(size)), "log size")
        buf = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetProgramLog(program, buf), "log")
        log = buf.value.decode(errors="replace")
        if rc != 0:
            raise NvrtcError(f"NVRTC could not compile {', '.join(kernels)} for {arch} from {build / 'grid.cuh'} "
                             f"({lib.nvrtcGetErrorString(rc).decode()}):\n{log[-8000:]}")
        _check(lib, lib.nvrtcGetCUBINSize(program, ctypes.byref(size)), "cubin size")
        cubin = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetCUBIN(program, cubin), "cubin")
        mangled = {}
        for name in kernels:
            lowered = ctypes.c_char_p()
            _check(lib, lib.nvrtcGetLoweredName(program, name.encode(), ctypes.byref(lowered)), f"name {name!r}")
            mangled[name] = lowered.value.decode()
        return CompiledKernels(cubin.raw, mangled, arch, seconds, log)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))


def _check(lib: ctypes.CDLL, rc: int, what: str) -> None:
    if rc != 0:
        raise NvrtcError(f"NVRTC failed ({what}): {lib.nvrtcGetErrorString(rc).decode()}")
