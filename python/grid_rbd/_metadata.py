"""Parsing of a robot build's ``metadata.json``.

The Go generator writes ``metadata.json`` beside ``grid.cuh`` and the kernel libraries. It describes the
robot (joints in order with their coordinate indices and limits, frames) and every algorithm's per-sample
input and output shapes. This module turns it into small immutable records that the handles use for
validation and for building FFI calls.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "AlgorithmInfo",
    "BufferInfo",
    "FrameInfo",
    "JointInfo",
    "MetadataError",
    "RobotMetadata",
    "load_metadata",
]


class MetadataError(ValueError):
    """``metadata.json`` is unreadable or does not have the expected structure."""


@dataclass(frozen=True, slots=True)
class BufferInfo:
    """One per-sample array of an algorithm: its name and row-major shape."""

    name: str
    shape: tuple[int, ...]
    doc: str


@dataclass(frozen=True, slots=True)
class AlgorithmInfo:
    """One algorithm entry point: inputs and outputs in call order, and which attributes it takes."""

    name: str
    doc: str
    inputs: tuple[BufferInfo, ...]
    outputs: tuple[BufferInfo, ...]
    gravity: bool
    frame: bool
    # takes an integrator number (0 semi-implicit Euler, 1 RK4)
    method: bool = False
    # the name expressions of the kernels its CUDA handler launches, which NVRTC compiles for a library of
    # kernels compiled at run time (libgrid_rbd_cuda_rtc.so); empty in builds that predate them
    kernels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JointInfo:
    """One movable joint; limits are ``None`` where the URDF gives none (continuous joints, free flyers)."""

    name: str
    type: str
    parent: int
    q_index: int
    v_index: int
    nq: int
    nv: int
    lower: float | None
    upper: float | None
    effort: float | None
    velocity: float | None
    # the body's inertia as Pinocchio's dynamic parameters [m, m·c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the
    # joint frame's origin (links welded by fixed joints merged in); None in builds that predate them
    inertial_parameters: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class FrameInfo:
    """One frame (URDF link) and the index of the joint whose body carries it (-1: the world)."""

    name: str
    joint: int


@dataclass(frozen=True, slots=True, eq=False)
class RobotMetadata:
    """The parsed contents of ``metadata.json``."""

    robot: str
    nq: int
    nv: int
    floating_base: bool
    gravity: tuple[float, float, float]
    joints: tuple[JointInfo, ...]
    frames: tuple[FrameInfo, ...]
    algorithms: dict[str, AlgorithmInfo]
    # Kernels this build leaves out, with the reason (a rolled robot has no second-order kernels).
    unavailable: dict[str, str] = field(default_factory=dict)
    # Kernels over whole trajectories (rollout, rollout_tangent, rollout_adjoint), without per-sample shapes.
    trajectories: tuple[str, ...] = ()

    def algorithm(self, name: str) -> AlgorithmInfo:
        """The kernel ``name``; ``NotImplementedError`` naming the reason when the build has none."""
        info = self.algorithms.get(name)
        if info is None:
            reason = self.unavailable.get(name, "no kernel of that name was generated")
            raise NotImplementedError(f"the build of robot {self.robot!r} has no {name!r} kernel: {reason}")
        return info

    def position_limits(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Lower and upper configuration bounds (length ``nq``); ``-inf``/``inf`` where unbounded."""
        lower = np.full(self.nq, -np.inf)
        upper = np.full(self.nq, np.inf)
        for j in self.joints:
            if j.nq == 1 and j.lower is not None and j.upper is not None:
                lower[j.q_index] = j.lower
                upper[j.q_index] = j.upper
        return lower, upper

    def velocity_limits(self) -> npt.NDArray[np.float64]:
        """Velocity bounds (length ``nv``); ``inf`` where unknown."""
        return self._per_dof("velocity")

    def effort_limits(self) -> npt.NDArray[np.float64]:
        """Effort bounds (length ``nv``); ``inf`` where unknown."""
        return self._per_dof("effort")

    def _per_dof(self, field: str) -> npt.NDArray[np.float64]:
        out = np.full(self.nv, np.inf)
        for j in self.joints:
            value = getattr(j, field)
            if j.nv == 1 and value is not None:
                out[j.v_index] = value
        return out


def _shape(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(d, int) and d >= 0 for d in value):
        raise MetadataError(f"{where}: shape must be a list of non-negative integers; got {value!r}")
    return tuple(value)


def _optional_float(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise MetadataError(f"{where}: expected a number; got {value!r}")
    return float(value)


def _parameters(value: Any, where: str) -> tuple[float, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 10:
        raise MetadataError(f"{where}: inertial_parameters must be a list of 10 numbers; got {value!r}")
    return tuple(float(_optional_float(x, where)) for x in value)  # type: ignore[arg-type]


def _parse(raw: Any, source: str) -> RobotMetadata:
    try:
        algorithms: dict[str, AlgorithmInfo] = {}
        for a in raw["algorithms"]:
            where = f"{source}: algorithm {a['name']!r}"
            algorithms[a["name"]] = AlgorithmInfo(
                name=str(a["name"]),
                doc=str(a.get("doc", "")),
                inputs=tuple(
                    BufferInfo(str(b["name"]), _shape(b["shape"], where), str(b.get("doc", "")))
                    for b in a["inputs"]
                ),
                outputs=tuple(
                    BufferInfo(str(b["name"]), _shape(b["shape"], where), str(b.get("doc", "")))
                    for b in a["outputs"]
                ),
                gravity=bool(a.get("gravity", False)),
                frame=bool(a.get("frame", False)),
                kernels=tuple(str(k) for k in a.get("kernels", ())),
                method=bool(a.get("method", False)),
            )
        joints = tuple(
            JointInfo(
                name=str(j["name"]),
                type=str(j["type"]),
                parent=int(j["parent"]),
                q_index=int(j["q_index"]),
                v_index=int(j["v_index"]),
                nq=int(j["nq"]),
                nv=int(j["nv"]),
                lower=_optional_float(j.get("lower"), f"{source}: joint {j['name']!r}"),
                upper=_optional_float(j.get("upper"), f"{source}: joint {j['name']!r}"),
                effort=_optional_float(j.get("effort"), f"{source}: joint {j['name']!r}"),
                velocity=_optional_float(j.get("velocity"), f"{source}: joint {j['name']!r}"),
                inertial_parameters=_parameters(j.get("inertial_parameters"), f"{source}: joint {j['name']!r}"),
            )
            for j in raw["joints"] or []
        )
        frames = tuple(FrameInfo(str(f["name"]), int(f["joint"])) for f in raw["frames"] or [])
        g = raw.get("gravity") or [0.0, 0.0, -9.81]
        if len(g) != 3 or not all(math.isfinite(float(x)) for x in g):
            raise MetadataError(f"{source}: gravity must be three finite numbers; got {g!r}")
        meta = RobotMetadata(
            robot=str(raw["robot"]),
            nq=int(raw["nq"]),
            nv=int(raw["nv"]),
            floating_base=bool(raw["floating_base"]),
            gravity=(float(g[0]), float(g[1]), float(g[2])),
            joints=joints,
            frames=frames,
            algorithms=algorithms,
            unavailable={str(k): str(v) for k, v in (raw.get("unavailable") or {}).items()},
            trajectories=tuple(str(t) for t in raw.get("trajectories") or ()),
        )
    except MetadataError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise MetadataError(f"{source}: malformed metadata ({type(exc).__name__}: {exc})") from exc
    for j in meta.joints:
        if not (0 <= j.q_index and j.q_index + j.nq <= meta.nq and 0 <= j.v_index and j.v_index + j.nv <= meta.nv):
            raise MetadataError(f"{source}: joint {j.name!r} has coordinates outside nq={meta.nq}, nv={meta.nv}")
    return meta


def load_metadata(path: str | os.PathLike[str]) -> RobotMetadata:
    """Reads and validates a ``metadata.json`` file.

    Args:
      path: the file.

    Returns:
      The parsed metadata.

    Raises:
      MetadataError: the file is not valid JSON or lacks required fields.
      OSError: the file cannot be read.
    """
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MetadataError(f"{p}: not valid JSON ({exc})") from exc
    return _parse(raw, str(p))
