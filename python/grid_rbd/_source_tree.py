"""Where the kernel sources (``kernels/``, ``xla_ffi/``) that run-time builds compile are: ``grid_rbd/_src``
in an installed wheel, else the repository root of a source checkout."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PACKAGE", "CHECKOUT", "source_root"]

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parents[1]  # python/grid_rbd -> the repository root, in a source checkout


def source_root() -> Path | None:
    """The folder holding ``kernels/`` and ``xla_ffi/``, or None when neither place has them."""
    for root in (PACKAGE / "_src", CHECKOUT):
        if (root / "kernels").is_dir() and (root / "xla_ffi").is_dir():
            return root
    return None
