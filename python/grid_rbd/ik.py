"""Inverse kinematics: joint configurations that put a frame at target poses (HJCD-IK, on the GPU or the CPU).

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
``go tool mage build``, and with ``-cuda`` also into ``libgrid_rbd_ik_cuda.so``, which runs every restart on a
GPU thread of its own and polishes one candidate per warp; ``device="auto"`` (the default) takes the GPU when
that library is built and a CUDA device is present. Both run the same source in double precision and give
the same solutions up to rounding. Results are deterministic for a given ``seed``.

With ``collision_free=True`` (a robot built with ``go tool mage build <urdf> -collision``) the polished
restarts are scored against ``obstacles`` and the robot itself by the covering spheres of its URDF collision
shapes, and ``collision_mode`` says what the scores do (docs/ik.md)::

    obstacles = {"spheres": [[0.5, 0.0, 0.3, 0.1]],             # x, y, z, radius
                 "cuboids": [[0.0, 0.0, -0.05, 2.0, 2.0, 0.1]],  # x, y, z, sizes (+ quaternion xyzw)
                 "cylinders": [[0.3, 0.4, 0.5, 0.05, 1.0]]}      # x, y, z, radius, length (+ quaternion)
    r = ik.solve("panda", pos, quat, frame="panda_link7", collision_free=True, obstacles=obstacles)

On a floating-base robot the base stays where ``q_rest`` puts it (default: the identity pose) and the frame's
chain of joints reaches the targets, given in the world frame; joints off the chain keep their ``q_rest``
values on any robot.
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ._artifacts import METADATA, RobotNotBuiltError, find_robot
from ._core import RobotBase
from ._metadata import RobotMetadata, load_metadata
from .configuration import neutral

__all__ = ["COLLISION_MODES", "DEVICES", "IK_CUDA_LIBRARY", "IK_LIBRARY", "IKResult", "solve"]

IK_LIBRARY = "libgrid_rbd_ik_cpu.so"
IK_CUDA_LIBRARY = "libgrid_rbd_ik_cuda.so"

DEVICES = ("auto", "cpu", "gpu")
"""Where :func:`solve` runs: ``auto`` takes the GPU when the robot's CUDA IK library is built and a CUDA
device is present, else the CPU."""

DEFAULT_POSITION_TOLERANCE = 1e-3
"""A solution's largest position error, metres."""
DEFAULT_ORIENTATION_TOLERANCE = math.radians(1.0)
"""A solution's largest orientation error, radians."""

COLLISION_MODES = ("hard", "soft", "both")
"""hard: drop colliding candidates; soft: rank by cost + weight * penalty**2; both: drop, then rank so."""
_MODE_CODES = {"hard": 1, "soft": 2, "both": 3}
_DEVICE_ERROR = -4  # grid_ik_solve's code for a CUDA error (xla_ffi/ik_driver.h)

# Obstacle kinds: the columns a row may have and what they hold; the short form is axis-aligned.
_OBSTACLE_COLUMNS = {
    "spheres": ((4,), "[x, y, z, radius]"),
    "cuboids": ((6, 10), "[x, y, z, size_x, size_y, size_z] or those and a quaternion [qx, qy, qz, qw]"),
    "cylinders": ((5, 9), "[x, y, z, radius, length] or those and a quaternion [qx, qy, qz, qw] (axis: z)"),
}


class _Options(ctypes.Structure):
    # Mirrors `Options` in xla_ffi/ik_driver.h.
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
        ("collision_mode", ctypes.c_int32),
        ("collision_margin", ctypes.c_double),
        ("collision_weight", ctypes.c_double),
    ]


class _Obstacles(ctypes.Structure):
    # Mirrors `Obstacles` in xla_ffi/ik_driver.h.
    _fields_ = [
        ("spheres", ctypes.POINTER(ctypes.c_double)),
        ("num_spheres", ctypes.c_int32),
        ("cuboids", ctypes.POINTER(ctypes.c_double)),
        ("num_cuboids", ctypes.c_int32),
        ("cylinders", ctypes.POINTER(ctypes.c_double)),
        ("num_cylinders", ctypes.c_int32),
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
      num_distinct: ``(G,)`` distinct solutions within tolerance among all polished restarts (may exceed S);
        in the ``hard`` and ``both`` collision modes among the collision-free ones.
      position_tolerance, orientation_tolerance: what counted as a solution (metres, radians).
      collision_distance: ``(G, S)`` least signed distance (m) between the robot's spheres and the obstacles
        or its own checked pairs, negative when they penetrate; NaN without ``collision_free`` and in empty
        slots. In the ``hard`` and ``both`` modes every returned configuration has one >= 0.
      collision_penalty: ``(G, S)`` the sum over checked sphere pairs of ``max(0, margin - distance)`` (m);
        NaN where collision_distance is.
      collision_mode: the mode used, or None without ``collision_free``.
      device: where the solver ran, ``"cpu"`` or ``"gpu"``.
    """

    q: npt.NDArray[np.float64]
    position_error: npt.NDArray[np.float64]
    orientation_error: npt.NDArray[np.float64]
    num_distinct: npt.NDArray[np.int32]
    position_tolerance: float
    orientation_tolerance: float
    collision_distance: npt.NDArray[np.float64]
    collision_penalty: npt.NDArray[np.float64]
    collision_mode: str | None = None
    device: str = "cpu"

    def solved(self) -> npt.NDArray[np.bool_]:
        """``(G, S)``: which configurations are within both tolerances."""
        return (self.position_error <= self.position_tolerance) & (
            self.orientation_error <= self.orientation_tolerance
        )

    def collision_free(self) -> npt.NDArray[np.bool_]:
        """``(G, S)``: which configurations were scored free of collisions (all False without scoring)."""
        return self.collision_distance >= 0.0


@dataclass(frozen=True)
class _Library:
    lib: ctypes.CDLL
    metadata: RobotMetadata
    lower: npt.NDArray[np.float64]
    upper: npt.NDArray[np.float64]
    device: str  # "cpu" or "gpu"
    frames: dict[str, int]  # frame name → index
    default_rest: npt.NDArray[np.float64]  # the neutral configuration clipped into the limits


_lock = threading.Lock()
_libraries: dict[Path, _Library] = {}
# What one call resolved, for the next calls with the same arguments: a single goal per call is dominated by
# this bookkeeping otherwise (path resolution and file checks cost more than a small solve).
_build_dirs: dict[str | os.PathLike[str], Path] = {}
_chosen: dict[tuple[Path, str], _Library] = {}


def _library(build_dir: Path, device: str = "cpu") -> _Library:
    """The robot's IK library for ``device`` (one of DEVICES), loaded once per process."""
    found = _chosen.get((build_dir, device))
    if found is not None:
        return found
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICES))}, got {device!r}")
    found = _gpu_library(build_dir, required=device == "gpu") if device != "cpu" else None
    if found is None:
        found = _load(build_dir, IK_LIBRARY)
    _chosen[(build_dir, device)] = found
    return found


def _gpu_library(build_dir: Path, required: bool) -> _Library | None:
    """The CUDA IK library when it is built and a CUDA device is present; else None, or an error if required."""
    if not (build_dir / IK_CUDA_LIBRARY).is_file():
        if not required:
            return None
        raise RobotNotBuiltError(
            str(build_dir),
            f"{build_dir} has no {IK_CUDA_LIBRARY}: build the robot with `go tool mage build <urdf> -cuda` (on a "
            "machine with nvcc), or solve with device='cpu'",
            (build_dir,),
        )
    found = _load(build_dir, IK_CUDA_LIBRARY)
    if found.lib.grid_ik_cuda_devices() > 0:
        return found
    if required:
        raise RuntimeError(f"device='gpu', but {build_dir / IK_CUDA_LIBRARY} finds no CUDA device (no GPU or no "
                           "driver): solve with device='cpu' or 'auto'")
    return None


def _load(build_dir: Path, name: str) -> _Library:
    key = build_dir / name
    with _lock:
        found = _libraries.get(key)
        if found is not None:
            return found
        path = key
        if not path.is_file():
            raise RobotNotBuiltError(
                str(build_dir),
                f"{build_dir} has no {IK_LIBRARY} (run-time builds such as from_urdf's leave it out, and rolled "
                "robots have none): build the robot with `go tool mage build <urdf>` in a "
                "checkout, which compiles the inverse-kinematics library beside the dynamics one",
                (build_dir,),
            )
        lib = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        if lib.grid_ik_options_size() != ctypes.sizeof(_Options):
            raise RobotNotBuiltError(
                str(build_dir), f"{path} was built from another version of the solver: rebuild the robot"
            )
        # arrays go as addresses (ndarray.ctypes.data): building typed pointers costs more than a small solve
        ptr = ctypes.c_void_p
        lib.grid_ik_solve.argtypes = [ctypes.c_int, ctypes.c_int, ptr, ptr, ptr, ptr, ptr, ctypes.POINTER(_Options),
                                      ctypes.POINTER(_Obstacles), ptr, ptr, ptr, ptr, ptr, ptr]
        lib.grid_ik_solve.restype = ctypes.c_int
        lib.grid_ik_frame_supported.argtypes = [ctypes.c_int]
        device = "cpu"
        if name == IK_CUDA_LIBRARY:
            device = "gpu"
            lib.grid_ik_last_error.restype = ctypes.c_char_p
        metadata = load_metadata(build_dir / METADATA)
        lower, upper = (np.ascontiguousarray(x) for x in metadata.position_limits())
        frames = {f.name: i for i, f in enumerate(metadata.frames)}
        rest = np.ascontiguousarray(np.clip(neutral(metadata.joints, metadata.nq), lower, upper))
        for shared in (lower, upper, rest):  # handed to every call: nobody may write them
            shared.setflags(write=False)
        found = _Library(lib, metadata, lower, upper, device, frames, rest)
        _libraries[key] = found
        return found


def _build_dir(robot: str | os.PathLike[str] | RobotBase) -> Path:
    if isinstance(robot, (str, os.PathLike)):
        found = _build_dirs.get(robot)
        if found is None:
            found = _build_dirs[robot] = _find_build_dir(robot)
        return found
    return _find_build_dir(robot)


def _find_build_dir(robot: str | os.PathLike[str] | RobotBase) -> Path:
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


def _obstacle_struct(rows: dict[str, npt.NDArray[np.float64]]) -> _Obstacles:
    """The solver's view of obstacle rows (which must outlive it)."""
    return _Obstacles(_ptr(rows["spheres"]), rows["spheres"].shape[0], _ptr(rows["cuboids"]),
                      rows["cuboids"].shape[0], _ptr(rows["cylinders"]), rows["cylinders"].shape[0])


def _rows(value: npt.ArrayLike, widths: tuple[int, ...], what: str) -> npt.NDArray[np.float64]:
    """An array of rows; a list mixing the short and the long form gets the identity quaternion appended."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (ValueError, TypeError):
        pass
    try:
        rows = [np.asarray(r, dtype=np.float64) for r in value]  # type: ignore[union-attr]
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what}: {e}") from None
    if any(r.ndim != 1 or r.size not in widths for r in rows):
        raise ValueError(f"{what}, got rows of {sorted({r.size for r in rows})} numbers")
    return np.array([np.concatenate([r, [0.0, 0.0, 0.0, 1.0]]) if r.size < widths[-1] else r for r in rows])


def _obstacle_rows(obstacles: Mapping[str, npt.ArrayLike] | None) -> dict[str, npt.NDArray[np.float64]]:
    """The obstacles as C-contiguous rows of their long form (quaternions appended where left out)."""
    if obstacles is None:
        obstacles = {}
    if not isinstance(obstacles, Mapping):
        raise ValueError(f"obstacles must be a mapping of {', '.join(_OBSTACLE_COLUMNS)} to arrays, "
                         f"got {type(obstacles).__name__}")
    unknown = set(obstacles) - set(_OBSTACLE_COLUMNS)
    if unknown:
        raise ValueError(f"unknown obstacle kinds {sorted(unknown)}; the kinds are {', '.join(_OBSTACLE_COLUMNS)}")
    rows = {}
    for kind, (widths, layout) in _OBSTACLE_COLUMNS.items():
        what = f"obstacles[{kind!r}] must have rows {layout}"
        a = _rows(obstacles.get(kind, np.zeros((0, widths[-1]))), widths, what)
        if a.ndim == 1 and a.size in widths:
            a = a[None]
        if a.ndim != 2 or (a.shape[1] not in widths and a.shape[0] > 0):
            raise ValueError(f"{what}, got shape {a.shape}")
        if a.shape[0] == 0:
            a = np.zeros((0, widths[-1]))
        if not np.all(np.isfinite(a)):
            raise ValueError(f"obstacles[{kind!r}] row {int(np.flatnonzero(~np.isfinite(a).all(axis=1))[0])} "
                             "is not finite")
        sizes = a[:, 3:widths[0]]
        if np.any(sizes <= 0):
            raise ValueError(f"obstacles[{kind!r}] row {int(np.flatnonzero((sizes <= 0).any(axis=1))[0])} has a "
                             f"size that is not positive: rows are {layout}")
        if kind != "spheres":
            if a.shape[1] == widths[0]:
                a = np.hstack([a, np.tile([0.0, 0.0, 0.0, 1.0], (a.shape[0], 1))])
            bad = np.linalg.norm(a[:, widths[0]:], axis=1) < 1e-9
            if np.any(bad):
                raise ValueError(f"obstacles[{kind!r}] row {int(np.flatnonzero(bad)[0])} has a zero quaternion")
        rows[kind] = np.ascontiguousarray(a)
    return rows



# A call without obstacles: empty rows, built once and kept alive with the struct that points at them.
_NO_OBSTACLE_ROWS = _obstacle_rows(None)
_NO_OBSTACLES = _obstacle_struct(_NO_OBSTACLE_ROWS)

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
    collision_free: bool = False,
    collision_mode: str = "hard",
    obstacles: Mapping[str, npt.ArrayLike] | None = None,
    collision_margin: float = 0.01,
    collision_weight: float = 1.0,
    q_rest: npt.ArrayLike | None = None,
    device: str = "auto",
) -> IKResult:
    """Configurations that put ``frame`` at each target pose.

    Args:
      robot: a built robot: its name or build directory (as for :class:`grid_rbd.RobotHandle`) or a handle.
      target_pos: ``(3,)`` or ``(G, 3)`` frame origins in the world frame, metres.
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
      collision_free: score the polished restarts for collisions with ``obstacles`` and between the robot's
        own links (adjacent ones excluded), after polishing; needs a build with ``-collision``.
      collision_mode: ``"hard"`` drops colliding restarts (fewer than ``num_solutions``, even none, may be
        returned: NaN slots), ``"soft"`` ranks by ``cost + collision_weight * penalty**2`` and drops nothing,
        ``"both"`` drops colliding restarts and ranks the rest by that key.
      obstacles: a mapping of ``"spheres"`` (rows ``[x, y, z, radius]``), ``"cuboids"`` (``[x, y, z, size_x,
        size_y, size_z]``, axis-aligned, or with a quaternion ``[qx, qy, qz, qw]`` appended) and
        ``"cylinders"`` (``[x, y, z, radius, length]``, axis along z, or with a quaternion appended), in the
        base frame, metres; centres are the shapes' centres. One set for all targets of the call.
      collision_margin: the penalty counts sphere pairs closer than this (m); with it ``"both"`` prefers
        solutions with clearance.
      collision_weight: the squared penalty's weight in the ranking key, whose cost term is the solver's
        ``|p - p*|² + (rotation_weight · angle)²`` in square metres, like the squared penalty.
      q_rest: ``(nq,)``, the coordinates the solver does not move: a floating base's pose (position and
        quaternion ``xyzw``, normalised here), which places the targets' world frame relative to the robot,
        and the joints off the frame's chain; every returned configuration holds them. Default: the neutral
        configuration clipped into the joint limits (the identity base pose).
      device: ``"auto"`` (the GPU when the robot's CUDA IK library is built and a CUDA device is present, else
        the CPU), ``"gpu"`` or ``"cpu"``. The GPU runs the restarts of all targets of the call at once, so
        many targets per call amortise its fixed cost (a few tens of microseconds).

    Returns:
      An :class:`IKResult` for the ``G`` targets (``G = 1`` for single targets).

    Raises:
      RobotNotBuiltError: the robot, or its inverse-kinematics library, is not built (with ``device="gpu"``:
        its CUDA one).
      RuntimeError: ``device="gpu"`` without a CUDA device, or a CUDA error during the solve.
      KeyError: no frame of that name.
      ValueError: bad shapes, non-finite or zero-length targets, a frame fixed to the world or to a floating
        base (no joint moves it), a ``q_rest`` of the wrong shape, not finite, outside the joint limits or
        with a zero base quaternion, out-of-range settings, malformed obstacles, obstacles without ``collision_free``, or
        ``collision_free`` on a robot built without ``-collision``.
    """
    build_dir = _build_dir(robot)
    lib = _library(build_dir, device)
    frame_index = lib.frames.get(frame)
    if frame_index is None:
        raise KeyError(f"robot {lib.metadata.robot!r} has no frame {frame!r}; its frames: {', '.join(lib.frames)}")
    if not lib.lib.grid_ik_frame_supported(frame_index):
        raise ValueError(
            f"frame {frame!r} cannot be solved for: no joint moves it (it is fixed to the world or to a "
            "floating base)"
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
    mode = _collision_mode(lib, build_dir, collision_free, collision_mode, obstacles)
    for name, x in (("collision_margin", collision_margin), ("collision_weight", collision_weight)):
        if not (math.isfinite(x) and x >= 0):
            raise ValueError(f"{name} must be a non-negative number, got {x!r}")
    if obstacles is None:
        obs = _NO_OBSTACLES
    else:
        rows = _obstacle_rows(obstacles)
        obs = _obstacle_struct(rows)
    opts = _Options(int(batch), int(num_polish), int(num_solutions), int(ccd_iters), int(lm_iters),
                    int(seed) & (2**64 - 1), float(rotation_weight), float(position_tolerance),
                    float(orientation_tolerance), float(distinct_tolerance), _MODE_CODES.get(mode or "", 0),
                    float(collision_margin), float(collision_weight))
    g, s, nq = pos.shape[0], int(num_solutions), lib.metadata.nq
    q = np.empty((g, s, nq))
    perr, aerr, dist, pen = (np.empty((g, s)) for _ in range(4))
    distinct = np.empty(g, dtype=np.int32)
    rest = _rest(lib, q_rest)
    rc = lib.lib.grid_ik_solve(frame_index, g, pos.ctypes.data, quat.ctypes.data, lib.lower.ctypes.data,
                               lib.upper.ctypes.data, rest.ctypes.data, ctypes.byref(opts), ctypes.byref(obs),
                               q.ctypes.data, perr.ctypes.data, aerr.ctypes.data, dist.ctypes.data, pen.ctypes.data,
                               distinct.ctypes.data)
    if rc == _DEVICE_ERROR:
        raise RuntimeError(f"the GPU solve for frame {frame!r} of {build_dir} failed: "
                           f"{lib.lib.grid_ik_last_error().decode(errors='replace')}")
    if rc != 0:
        raise RuntimeError(f"grid_ik_solve returned {rc} for frame {frame!r} of {build_dir}")
    return IKResult(q, perr, aerr, distinct, float(position_tolerance), float(orientation_tolerance), dist, pen,
                    mode, lib.device)


def _rest(lib: _Library, q_rest: npt.ArrayLike | None) -> npt.NDArray[np.float64]:
    """The rest configuration of a solve: q_rest checked, its base quaternion normalised; by default the
    neutral configuration clipped into the limits."""
    md = lib.metadata
    if q_rest is None:
        return lib.default_rest
    rest = np.array(q_rest, dtype=np.float64)
    if rest.shape != (md.nq,):
        raise ValueError(f"q_rest must have shape ({md.nq},) for robot {md.robot!r}, got {rest.shape}")
    if not np.all(np.isfinite(rest)):
        raise ValueError(f"q_rest is not finite at coordinates {np.flatnonzero(~np.isfinite(rest)).tolist()}")
    outside = np.flatnonzero((rest < lib.lower) | (rest > lib.upper))
    if outside.size:
        i = int(outside[0])
        raise ValueError(f"q_rest[{i}] = {float(rest[i])!r} is outside the joint limits "
                         f"[{float(lib.lower[i])!r}, {float(lib.upper[i])!r}]")
    for j in md.joints:
        if j.nq == 7:  # a free flyer: position, quaternion xyzw
            quat = rest[j.q_index + 3:j.q_index + 7]
            norm = float(np.linalg.norm(quat))
            if norm < 1e-6:
                raise ValueError(f"q_rest's base quaternion (coordinates {j.q_index + 3}-{j.q_index + 6}) has "
                                 "zero length")
            rest[j.q_index + 3:j.q_index + 7] = quat / norm
    return np.ascontiguousarray(rest)


def _collision_mode(lib: _Library, build_dir: Path, collision_free: bool, mode: str,
                    obstacles: object) -> str | None:
    """The collision mode to run (None: no scoring), after checking the request against the build."""
    if mode not in COLLISION_MODES:
        raise ValueError(f"collision_mode must be one of {', '.join(map(repr, COLLISION_MODES))}, got {mode!r}")
    if not collision_free:
        if obstacles is not None:
            raise ValueError("obstacles were given but collision_free is False: pass collision_free=True to "
                             "score the solutions against them")
        return None
    if not lib.lib.grid_ik_has_collision():
        raise ValueError(
            f"collision_free=True, but robot {lib.metadata.robot!r} ({build_dir}) was built without its collision "
            "spheres: rebuild it with `go tool mage build <urdf> -collision` (or `mage ikbench ... -collision`)"
        )
    return mode
