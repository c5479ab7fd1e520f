"""Where the CUDA 13 pieces grid_rbd uses without nvcc are installed: the ``nvidia-cuda-*`` wheels' folders
(``nvidia/cu13/...`` in every site-packages that has them), else a CUDA toolkit (``$CUDA_HOME``, ``$CUDA_PATH``,
else ``/usr/local/cuda``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cuda_runtime", "nvidia_dirs", "toolkit_root"]

# Headers a host compilation against the CUDA runtime needs: the API itself and the compiler-support headers it
# includes (nvidia-cuda-crt since CUDA 13; a wheel folder may hold the one without the other).
RUNTIME_HEADERS = ("cuda_runtime_api.h", "crt/host_defines.h")


def nvidia_dirs(relative: str) -> list[Path]:
    """Folders `relative` under the installed nvidia-* wheels' namespace package, in import order."""
    try:
        import nvidia  # the nvidia-cuda-* wheels' namespace package
    except ImportError:
        return []
    return [Path(p) / relative for p in nvidia.__path__ if (Path(p) / relative).is_dir()]


def toolkit_root() -> Path:
    """The CUDA toolkit's folder, whether or not it exists."""
    return Path(os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda")


def cuda_runtime() -> tuple[Path, Path] | None:
    """The CUDA runtime's include folder and shared library, from the first of the wheels' folders and the
    toolkit that has every header of `RUNTIME_HEADERS` and a ``libcudart.so.*``; None when none has."""
    for root in [*nvidia_dirs("cu13"), toolkit_root()]:
        if not all((root / "include" / h).is_file() for h in RUNTIME_HEADERS):
            continue
        for lib in ("lib", "lib64"):
            found = sorted((root / lib).glob("libcudart.so.*"))
            if found:
                return root / "include", found[0]
    return None
