"""grid-rbd: rigid-body dynamics kernels generated per robot, callable from JAX and NumPy.

A robot is compiled from its URDF by ``go tool mage build <robot.urdf> [-floating]`` into a build directory
(``metadata.json`` plus the kernel libraries), or at run time by ``JaxRobotHandle.from_urdf(path)`` /
``python -m grid_rbd build path`` (CPU kernels, cached). This package finds such builds and exposes them as

* :class:`grid_rbd.jax.JaxRobotHandle` (also ``grid_rbd.JaxRobotHandle``): JAX functions that work under
  ``jit`` and ``vmap`` with any leading batch shape, on CPU and, with a CUDA build, on GPU;
* :class:`grid_rbd.RobotHandle`: the same methods on NumPy arrays, computed on the CPU.

``import grid_rbd`` does not import JAX; the two handle classes are loaded on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._artifacts import RobotNotBuiltError, available_robots

if TYPE_CHECKING:
    from .jax import JaxRobotHandle
    from .numpy_handle import RobotHandle

__version__ = "0.1.0"

__all__ = [
    "JaxRobotHandle",
    "RobotHandle",
    "RobotNotBuiltError",
    "__version__",
    "available_robots",
]

_LAZY = {"JaxRobotHandle": ".jax", "RobotHandle": ".numpy_handle"}


def __getattr__(name: str) -> Any:
    if name in ("jax", "numpy_handle"):
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "jax", "numpy_handle"])
