"""The operator harness: kernels/glass/test/harness compiled for the host and loaded with ctypes.

``build(out_dir)`` compiles every ``kernels/glass/test/harness/*.cpp`` into one shared library (the host C++
compiler, ``$CXX`` or ``c++``, warnings as errors); ``Harness`` lists its registered calls and runs them on
NumPy arrays. Call names are ``"<function>[<template arguments>]/<scope>/<precision>"``.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
KERNELS = REPO_ROOT / "kernels"
SOURCES = KERNELS / "glass" / "test" / "harness"


def build(out_dir: Path) -> Path:
    """Compiles the harness library into out_dir and returns its path."""
    cxx = os.environ.get("CXX", "c++")
    lib = out_dir / "libglass_harness.so"
    sources = sorted(str(p) for p in SOURCES.glob("*.cpp"))
    cmd = [cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS}",
           f"-I{SOURCES}", *sources, "-o", str(lib)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"building the operator harness failed:\n{' '.join(cmd)}\n{done.stdout}{done.stderr}")
    return lib


class Harness:
    """The registered calls of a built harness library."""

    def __init__(self, lib: Path) -> None:
        self._lib = ctypes.CDLL(str(lib))
        self._lib.glass_op_name.restype = ctypes.c_char_p
        self._lib.glass_op_run.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_double), ctypes.c_int]
        self.names = [self._lib.glass_op_name(i).decode() for i in range(self._lib.glass_op_count())]

    def functions(self) -> set[str]:
        """The operator names the registered calls exercise (the part before '[' or '/')."""
        return {n.split("/")[0].split("[")[0] for n in self.names}

    def run(self, name: str, *inputs: np.ndarray | float, n_out: int) -> np.ndarray:
        """Runs one call on the inputs (flattened and concatenated, as doubles); returns its n_out outputs.

        Outputs start as NaN, so an entry the operator does not write stays NaN.
        """
        flat = np.concatenate([np.ravel(np.asarray(x, dtype=np.float64)) for x in inputs]) if inputs else np.zeros(0)
        flat = np.ascontiguousarray(flat, dtype=np.float64)
        out = np.full(n_out, np.nan)
        code = self._lib.glass_op_run(name.encode(), flat.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                      flat.size, out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), n_out)
        if code == 1:
            raise KeyError(f"no harness call named {name!r}")
        if code == 2:
            raise ValueError(f"{name}: {flat.size} inputs and {n_out} outputs do not fit the operator")
        return out
