"""Inverse kinematics: joint configurations that put a frame at target poses (HJCD-IK, on the CPU).

Example::

    import numpy as np
    from grid_rbd import ik

    result = ik.solve("panda", [0.4, 0.0, 0.5], [1.0, 0.0, 0.0, 0.0], frame="panda_link7", num_solutions=4)
    result.q[0, 0]                      # the best configuration for the first (here: only) target
    result.solved()                     # (num_targets, num_solutions): within 1 mm and 1 degree

Each target is solved from ``batch`` random restarts by an orientation-aware greedy coordinate descent
(PO-CCD); the ``num_polish`` restarts with the lowest error are polished by Levenberg-Marquardt on the
frame's geometric Jacobian, with the joint limits of the URDF respected throughout. The solver is the
template ``kernels/grid/algorithms/ik.cuh``, compiled for the robot into ``libgrid_rbd_ik_cpu.so`` by
``go tool mage build``. Results are deterministic for a given ``seed``.

Fixed-base robots only; collision checking of the solutions is not done yet.
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ._artifacts import METADATA, RobotNotBuiltError, find_robot
from ._core import RobotBase
from ._metadata import RobotMetadata, load_metadata

__all__ = ["IK_LIBRARY", "IKResult", "solve"]

IK_LIBRARY = "libgrid_rbd_ik_cpu.so"

DEFAULT_POSITION_TOLERANCE = 1e-3
"""A solution's largest position error, metres."""
DEFAULT_ORIENTATION_TOLERANCE = math.radians(1.0)
"""A solution's largest orientation error, radians."""


class _Options(ctypes.Structure):
    # Mirrors `Options` in xla_ffi/ik_cpu.cc.
    _fields_ = [
        ("batch", ctypes.c_int32),
        ("num_polish", ctypes.c_int32),
        ("num_solutions", ctypes.c_int32),
        ("ccd_iters", ctypes.c_int32),
        ("lm_iters", ctypes.c_int32),
        ("seed", ctypes.c_uint64),
        ("rot_weight", ctypes.c_double),
        ("pos_tol", ctypes.c_double),
        ("ang_tol", ctypes.c_double),
        ("distinct_tol", ctypes.c_double),
    ]


@dataclass(frozen=True, slots=True)
class IKResult:
    """Solutions of :func:`solve` for ``G`` targets, ``S = num_solutions`` per target.

    Attributes:
      q: ``(G, S, nq)`` configurations, best first: distinct solutions within tolerance in order of error,
        then (when fewer were found) the best of the other polished restarts, which may miss the tolerance;
        NaN where fewer than ``S`` restarts were polished.
      position_error: ``(G, S)`` distance from the frame's origin to the target position, metres.
      orientation_error: ``(G, S)`` angle between the frame's orientation and the target's, radians.
      num_distinct: ``(G,)`` distinct solutions within tolerance among all polished restarts (may exceed S).
      position_tolerance, orientation_tolerance: what counted as a solution (metres, radians).
    """

    q: npt.NDArray[np.float64]
    position_error: npt.NDArray[np.float64]
    orientation_error: npt.NDArray[np.float64]
    num_distinct: npt.NDArray[np.int32]
    position_tolerance: float
    orientation_tolerance: float

    def solved(self) -> npt.NDArray[np.bool_]:
        """``(G, S)``: which configurations are within both tolerances."""
        return (self.position_error <= self.position_tolerance) & (
            self.orientation_error <= self.orientation_tolerance
        )


@dataclass(frozen=True)
class _Library:
    lib: ctypes.CDLL
    metadata: RobotMetadata
    lower: npt.NDArray[np.float64]
    upper: npt.NDArray[np.float64]


_lock = threading.Lock()
_libraries: dict[Path, _Library] = {}


def _library(build_dir: Path) -> _Library:
    with _lock:
        found = _libraries.get(build_dir)
        if found is not None:
            return found
        path = build_dir / IK_LIBRARY
        if not path.is_file():
            raise RobotNotBuiltError(
                str(build_dir),
                f"{build_dir} has no {IK_LIBRARY} (run-time builds such as from_urdf's leave it out, and rolled "
                "or floating-base robots have none): build the robot with `go tool mage build <urdf>` in a "
                "checkout, which compiles the inverse-kinematics library beside the dynamics one",
                (build_dir,),
            )
        lib = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        if lib.grid_ik_options_size() != ctypes.sizeof(_Options):
            raise RobotNotBuiltError(
                str(build_dir), f"{path} was built from another version of the solver: rebuild the robot"
            )
        dbl = ctypes.POINTER(ctypes.c_double)
        lib.grid_ik_solve.argtypes = [ctypes.c_int, ctypes.c_int, dbl, dbl, dbl, dbl, ctypes.POINTER(_Options),
                                      dbl, dbl, dbl, ctypes.POINTER(ctypes.c_int32)]
        lib.grid_ik_solve.restype = ctypes.c_int
        lib.grid_ik_frame_supported.argtypes = [ctypes.c_int]
        metadata = load_metadata(build_dir / METADATA)
        lower, upper = metadata.position_limits()
        found = _Library(lib, metadata, np.ascontiguousarray(lower), np.ascontiguousarray(upper))
        _libraries[build_dir] = found
        return found


def _build_dir(robot: str | os.PathLike[str] | RobotBase) -> Path:
    if isinstance(robot, RobotBase):
        return robot._robot.build_dir
    # A folder with only the header, metadata and the IK library (`go tool mage ikbench` builds no more)
    # serves too; anything else is looked up as the handles do.
    if isinstance(robot, os.PathLike) or os.sep in robot:
        path = Path(robot).expanduser().resolve()
        if (path / METADATA).is_file() and (path / IK_LIBRARY).is_file():
            return path
    return find_robot(robot)


def _targets(value: npt.ArrayLike, width: int, name: str) -> npt.NDArray[np.float64]:
    a = np.asarray(value, dtype=np.float64)
    if a.ndim not in (1, 2) or a.shape[-1] != width:
        raise ValueError(f"{name} must have shape ({width},) or (num_targets, {width}), got {a.shape}")
    a = a.reshape(-1, width)
    if not np.all(np.isfinite(a)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(a), axis=1))[0])
        raise ValueError(f"{name} of target {bad} is not finite: {a[bad].tolist()}")
    return a


def _ptr(a: npt.NDArray[np.float64]) -> ctypes._Pointer[ctypes.c_double]:
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def solve(
    robot: str | os.PathLike[str] | RobotBase,
    target_pos: npt.ArrayLike,
    target_quat: npt.ArrayLike,
    *,
    frame: str,
    num_solutions: int = 1,
    batch: int = 64,
    num_polish: int | None = None,
    seed: int = 0,
    position_tolerance: float = DEFAULT_POSITION_TOLERANCE,
    orientation_tolerance: float = DEFAULT_ORIENTATION_TOLERANCE,
    distinct_tolerance: float = 0.1,
    rotation_weight: float = 0.1,
    ccd_iters: int = 48,
    lm_iters: int = 60,
) -> IKResult:
    """Configurations that put ``frame`` at each target pose.

    Args:
      robot: a built robot: its name or build directory (as for :class:`grid_rbd.RobotHandle`) or a handle.
      target_pos: ``(3,)`` or ``(G, 3)`` frame origins in the base (world) frame, metres.
      target_quat: ``(4,)`` or ``(G, 4)`` frame orientations as quaternions ``xyzw`` (normalised here).
      frame: the frame's name (a URDF link; ``metadata.json``'s ``frames``).
      num_solutions: configurations returned per target.
      batch: random restarts per target.
      num_polish: restarts polished by Levenberg-Marquardt, the lowest-error ones after the coarse search;
        default ``min(batch, max(num_solutions, batch // 2))``.
      seed: the restarts' seed; a target's restarts depend on the seed and its index in the call.
      position_tolerance, orientation_tolerance: what counts as a solution (metres, radians).
      distinct_tolerance: two solutions are one when no chain coordinate differs by more (rad or m).
      rotation_weight: metres per radian of orientation error in the solver's cost.
      ccd_iters, lm_iters: coordinate-descent moves per restart and LM iterations per polished restart.

    Returns:
      An :class:`IKResult` for the ``G`` targets (``G = 1`` for single targets).

    Raises:
      RobotNotBuiltError: the robot, or its inverse-kinematics library, is not built.
      KeyError: no frame of that name.
      ValueError: bad shapes, non-finite or zero-length targets, a frame fixed to the world or on a
        floating base, or out-of-range settings.
    """
    build_dir = _build_dir(robot)
    lib = _library(build_dir)
    names = [f.name for f in lib.metadata.frames]
    if frame not in names:
        raise KeyError(f"robot {lib.metadata.robot!r} has no frame {frame!r}; its frames: {', '.join(names)}")
    frame_index = names.index(frame)
    if not lib.lib.grid_ik_frame_supported(frame_index):
        raise ValueError(
            f"frame {frame!r} cannot be solved for: it is fixed to the world or its chain has a floating base"
        )
    pos = _targets(target_pos, 3, "target_pos")
    quat = _targets(target_quat, 4, "target_quat")
    if pos.shape[0] != quat.shape[0]:
        raise ValueError(f"{pos.shape[0]} target positions but {quat.shape[0]} target quaternions")
    norm = np.linalg.norm(quat, axis=1, keepdims=True)
    if np.any(norm < 1e-6):
        raise ValueError(f"target_quat {int(np.flatnonzero(norm[:, 0] < 1e-6)[0])} has zero length")
    quat = np.ascontiguousarray(quat / norm)
    pos = np.ascontiguousarray(pos)
    if num_polish is None:
        num_polish = min(batch, max(num_solutions, batch // 2))
    for name, value, low in (("num_solutions", num_solutions, 1), ("batch", batch, 1),
                             ("num_polish", num_polish, 1), ("ccd_iters", ccd_iters, 0),
                             ("lm_iters", lm_iters, 0)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if num_polish > batch:
        raise ValueError(f"num_polish ({num_polish}) exceeds batch ({batch})")
    for name, x in (("position_tolerance", position_tolerance), ("orientation_tolerance", orientation_tolerance),
                    ("distinct_tolerance", distinct_tolerance), ("rotation_weight", rotation_weight)):
        if not (math.isfinite(x) and x > 0):
            raise ValueError(f"{name} must be a positive number, got {x!r}")
    opts = _Options(int(batch), int(num_polish), int(num_solutions), int(ccd_iters), int(lm_iters),
                    int(seed) & (2**64 - 1), float(rotation_weight), float(position_tolerance),
                    float(orientation_tolerance), float(distinct_tolerance))
    g, s, nq = pos.shape[0], int(num_solutions), lib.metadata.nq
    q = np.empty((g, s, nq))
    perr = np.empty((g, s))
    aerr = np.empty((g, s))
    distinct = np.empty(g, dtype=np.int32)
    rc = lib.lib.grid_ik_solve(frame_index, g, _ptr(pos), _ptr(quat), _ptr(lib.lower), _ptr(lib.upper),
                               ctypes.byref(opts), _ptr(q), _ptr(perr), _ptr(aerr),
                               distinct.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)))
    if rc != 0:
        raise RuntimeError(f"grid_ik_solve returned {rc} for frame {frame!r} of {build_dir}")
    return IKResult(q, perr, aerr, distinct, float(position_tolerance), float(orientation_tolerance))
