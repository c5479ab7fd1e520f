"""Where grid_rbd's own files are: the kernel sources (``kernels/``, ``xla_ffi/``) that run-time builds
compile, ``grid_rbd/_src`` in an installed wheel, else the repository root of a source checkout; and the
cache of run-time builds and compiled kernels."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CHECKOUT", "MISSING_SOURCES", "PACKAGE", "cache_root", "source_root"]

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parents[1]  # python/grid_rbd -> the repository root, in a source checkout
# What to say where source_root() finds nothing.
MISSING_SOURCES = (f"grid_rbd's kernel sources are missing (neither {PACKAGE / '_src'} nor a source checkout): "
                   "reinstall the grid-rbd wheel")


def source_root() -> Path | None:
    """The folder holding ``kernels/`` and ``xla_ffi/``, or None when neither place has them."""
    for root in (PACKAGE / "_src", CHECKOUT):
        if (root / "kernels").is_dir() and (root / "xla_ffi").is_dir():
            return root
    return None


def cache_root() -> Path:
    """Where run-time builds are kept: ``$GRID_RBD_CACHE``, else ``$XDG_CACHE_HOME/grid_rbd``, else
    ``~/.cache/grid_rbd``."""
    if env := os.environ.get("GRID_RBD_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "grid_rbd"
