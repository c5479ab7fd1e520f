"""What the JAX and NumPy handles share: robot properties, argument validation and frame lookup."""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Self

import numpy as np
import numpy.typing as npt

from . import configuration
from ._artifacts import find_robot
from ._ffi import LoadedRobot, load_robot
from ._metadata import AlgorithmInfo

__all__ = [
    "DEFAULT_GRAVITY",
    "RobotBase",
    "check_inputs",
    "compute_dtype",
    "format_shape",
    "parse_gravity",
]

DEFAULT_GRAVITY: Final[tuple[float, float, float]] = (0.0, 0.0, -9.81)
_FLOAT_DTYPES: Final = (np.dtype(np.float32), np.dtype(np.float64))


def format_shape(shape: Sequence[int]) -> str:
    """Formats a shape the way Python prints a tuple: ``(7,)``, ``(3, 5, 7)``, ``()``."""
    return str(tuple(int(d) for d in shape))


def _expected(trailing: tuple[int, ...]) -> str:
    return "(..., " + ", ".join(str(d) for d in trailing) + ")" if trailing else "(...)"


def compute_dtype(dtypes: Sequence[np.dtype[Any]], typed: Sequence[bool], default: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype a call computes in, promoting its arguments as NumPy would.

    Floating-point arrays are *typed*: the result type of their dtypes decides (float32 with float64 gives
    float64; float16 widens to float32). Integer and boolean arrays and Python numbers and lists (*untyped*)
    take that dtype, or ``default`` when no argument is typed. The dtypes are real (:func:`check_inputs`
    rejects the others, naming the argument).
    """
    floats = [dt for dt, t in zip(dtypes, typed, strict=True) if t and dt.kind == "f"]
    if not floats:
        return default
    result = np.result_type(*floats)
    return _FLOAT_DTYPES[0] if result.itemsize <= 4 else _FLOAT_DTYPES[1]


def check_inputs(
    algorithm: AlgorithmInfo,
    shapes: Sequence[tuple[int, ...]],
    dtypes: Sequence[np.dtype[Any]],
    typed: Sequence[bool] | None = None,
    default: np.dtype[Any] = _FLOAT_DTYPES[1],
) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """Checks the arguments of one algorithm call against its metadata.

    Works on shapes and dtypes only, so it applies equally to concrete arrays and to tracers.

    Args:
      algorithm: the algorithm whose inputs are checked, in metadata order.
      shapes: each argument's full shape (batch dimensions first).
      dtypes: each argument's dtype, already canonicalised.
      typed: which arguments are typed (see :func:`compute_dtype`); default: every floating-point one.
      default: the dtype of a call whose arguments are all untyped.

    Returns:
      The common leading batch shape and the dtype to compute in (:func:`compute_dtype`).

    Raises:
      ValueError: an argument has the wrong trailing shape, a dtype that is not real, or leading batch
        dimensions different from the first argument's. The message names the argument, what it got and
        what was expected.
    """
    batch: tuple[int, ...] | None = None
    first = algorithm.inputs[0].name
    for info, shape, dt in zip(algorithm.inputs, shapes, dtypes, strict=True):
        trailing = info.shape
        k = len(trailing)
        if len(shape) < k or tuple(shape[len(shape) - k :]) != trailing:
            raise ValueError(f"{info.name} must have shape {_expected(trailing)}; got {format_shape(shape)}")
        if dt.kind not in "biuf":
            raise ValueError(
                f"{info.name} must be a real array of shape {_expected(trailing)} (float32 or float64; integer "
                f"and boolean arrays are converted); got dtype {dt}"
            )
        lead = tuple(shape[: len(shape) - k])
        if batch is None:
            batch = lead
            continue
        if lead != batch:
            raise ValueError(
                f"{info.name} must have shape {format_shape(batch + trailing)} to match the batch "
                f"shape {format_shape(batch)} of {first}; got {format_shape(shape)}"
            )
    assert batch is not None
    flags = typed if typed is not None else [dt.kind == "f" for dt in dtypes]
    return batch, compute_dtype(dtypes, flags, default)


def parse_gravity(gravity: Any) -> tuple[float, float, float]:
    """Turns a gravity argument into three finite Python floats.

    Raises:
      ValueError: not three finite numbers.
      TypeError: not concrete (a tracer) or not numeric.
    """
    try:
        g = np.asarray(gravity, dtype=np.float64)
    except TypeError as exc:
        raise TypeError(
            f"gravity must be three concrete numbers (it is baked into the kernel call); got {gravity!r}"
        ) from exc
    if g.shape != (3,):
        raise ValueError(f"gravity must have shape (3,); got {format_shape(g.shape)}")
    values = (float(g[0]), float(g[1]), float(g[2]))
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"gravity must be finite; got {values}")
    return values


def _readonly(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    a.setflags(write=False)
    return a


class RobotBase:
    """Robot properties shared by :class:`grid_rbd.RobotHandle` and :class:`grid_rbd.jax.JaxRobotHandle`.

    Instances are immutable; attribute assignment raises ``AttributeError``.
    """

    __slots__ = ("_robot", "_gravity")

    _robot: LoadedRobot
    _gravity: tuple[float, float, float]

    def __init__(
        self,
        robot: str | os.PathLike[str],
        *,
        gravity: Sequence[float] | npt.ArrayLike = DEFAULT_GRAVITY,
    ) -> None:
        object.__setattr__(self, "_gravity", parse_gravity(gravity))
        object.__setattr__(self, "_robot", load_robot(find_robot(robot)))
        self._setup()

    @classmethod
    def from_urdf(
        cls,
        urdf: str | os.PathLike[str],
        *,
        floating: bool = False,
        roll: str = "auto",
        gravity: Sequence[float] | npt.ArrayLike = DEFAULT_GRAVITY,
    ) -> Self:
        """A handle of the robot a URDF file describes, its kernels generated and compiled on first use and
        cached for later processes (:mod:`grid_rbd._runtime_build`; the CPU kernels, through the system's C++
        compiler). It returns once the kernels a first call needs are built; the derivative and rollout
        kernels compile in a background process, and a call that needs them waits for it
        (``$GRID_RBD_DEFER``: ``first-use`` compiles them on that call instead, ``no`` before this returns).

        Args:
          urdf: path to the URDF file.
          floating: add a free-flyer base.
          roll: ``"auto"``, ``"always"`` or ``"never"``: whether the robot's description is rolled (compiles in
            seconds at any size, no second-order kernels) or unrolled (fastest kernels; minutes to compile for
            a humanoid); ``"auto"`` rolls robots of more than 64 bodies.
          gravity: as for the constructor.

        Raises:
          FileNotFoundError: no such file.
          ValueError: the URDF is invalid (the message names the element and line).
          grid_rbd._runtime_build.BuildError: no generator or C++ compiler, or a compile error.
        """
        from ._runtime_build import build_from_urdf

        return cls(build_from_urdf(urdf, floating=floating, roll=roll), gravity=gravity)

    @classmethod
    def _from_loaded(cls, robot: LoadedRobot, gravity: tuple[float, float, float]) -> Self:
        new = object.__new__(cls)
        object.__setattr__(new, "_robot", robot)
        object.__setattr__(new, "_gravity", gravity)
        new._setup()
        return new

    def _setup(self) -> None:
        """Hook for subclasses: initialises derived slots after ``_robot`` and ``_gravity`` are set."""

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use with_gravity() for another gravity")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.name!r}, nq={self.nq}, nv={self.nv}, "
            f"floating_base={self.floating_base}, gravity={self._gravity})"
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, RobotBase)
        return self._robot.build_dir == other._robot.build_dir and self._gravity == other._gravity

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._robot.build_dir, self._gravity))

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), os.fspath(self._robot.build_dir), self._gravity))

    def _with(self, gravity: tuple[float, float, float]) -> Self:
        return type(self)._from_loaded(self._robot, gravity)

    # Properties -------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The robot's name: the name of its build directory (``"iiwa"`` for ``build/iiwa``)."""
        return self._robot.name

    @property
    def model_name(self) -> str:
        """The robot name from the URDF's ``<robot name=...>`` (``"iiwa14"`` for the iiwa)."""
        return self._robot.metadata.robot

    @property
    def build_dir(self) -> Path:
        """The build directory the kernels were loaded from."""
        return self._robot.build_dir

    @property
    def nq(self) -> int:
        """Number of configuration coordinates (a free-flyer base contributes 7: ``x y z qx qy qz qw``)."""
        return self._robot.metadata.nq

    @property
    def nv(self) -> int:
        """Number of velocity coordinates (a free-flyer base contributes 6: ``v_lin; omega``)."""
        return self._robot.metadata.nv

    @property
    def n_frames(self) -> int:
        """Number of frames: every URDF link, links attached by fixed joints included."""
        return len(self._robot.metadata.frames)

    @property
    def joint_names(self) -> tuple[str, ...]:
        """Names of the movable joints in kinematic order (a free-flyer base's joint first)."""
        return tuple(j.name for j in self._robot.metadata.joints)

    @property
    def frame_names(self) -> tuple[str, ...]:
        """Names of the frames in the order of :meth:`frame_poses`'s frame axis."""
        return tuple(f.name for f in self._robot.metadata.frames)

    @property
    def floating_base(self) -> bool:
        """Whether the base is a free flyer."""
        return self._robot.metadata.floating_base

    @property
    def gravity(self) -> tuple[float, float, float]:
        """The gravity vector in world coordinates (m/s²) passed to every gravity-dependent kernel."""
        return self._gravity

    @property
    def position_limits(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Lower and upper configuration bounds, float64 arrays of length ``nq`` (read-only).

        ``-inf``/``inf`` where a coordinate is unbounded: continuous joints and every free-flyer coordinate.
        """
        lower, upper = self._robot.metadata.position_limits()
        return _readonly(lower), _readonly(upper)

    @property
    def velocity_limits(self) -> npt.NDArray[np.float64]:
        """Velocity bounds from the URDF, a float64 array of length ``nv`` (read-only); ``inf`` where unknown."""
        return _readonly(self._robot.metadata.velocity_limits())

    @property
    def effort_limits(self) -> npt.NDArray[np.float64]:
        """Effort bounds from the URDF, a float64 array of length ``nv`` (read-only); ``inf`` where unknown."""
        return _readonly(self._robot.metadata.effort_limits())

    @property
    def n_bodies(self) -> int:
        """Number of bodies, one per movable joint in :attr:`joint_names`' order (links welded to a body by
        fixed joints are part of it): the body axis of inertial parameters."""
        return len(self._robot.metadata.joints)

    def inertial_parameters(self) -> npt.NDArray[np.float64]:
        """The URDF's inertial parameters, float64 of shape ``(n_bodies, 10)`` (read-only): what the dynamics
        use when a method's ``params`` is omitted, and where an identification starts.

        Row ``i`` is body ``i``'s inertia (its joint's child link and the links welded to it by fixed joints)
        in Pinocchio's dynamic-parameter order ``[m, m·cx, m·cy, m·cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]``: the
        mass, the first moment (mass times the centre of mass) and the rotational inertia about the body
        frame's origin (not the centre of mass), in the joint frame's axes (docs/inertial-parameters.md).

        Raises:
          NotImplementedError: the build predates inertial parameters (rebuild the robot).
        """
        rows = [j.inertial_parameters for j in self._robot.metadata.joints]
        if any(r is None for r in rows):
            raise NotImplementedError(
                f"the build of robot {self.name!r} has no inertial parameters in its metadata.json; rebuild it "
                "(go tool mage build URDF)")
        return _readonly(np.array(rows, dtype=np.float64).reshape(self.n_bodies, 10))

    @property
    def has_cuda(self) -> bool:
        """Whether CUDA kernels were registered (the build has ``libgrid_rbd_cuda.so`` and it loaded)."""
        return self._robot.cuda

    # Configuration space ---------------------------------------------------------------------------

    # The array namespace of the configuration operations (jax.numpy in JaxRobotHandle).
    _xp: Any = np

    def _as_coordinates(self, name: str, x: Any, n: int, what: str) -> Any:
        a = self._xp.asarray(x)
        if a.ndim < 1 or a.shape[-1] != n:
            raise ValueError(
                f"{self.name}: {name} must have shape {_expected((n,))} ({what}); got {format_shape(a.shape)}"
            )
        if not self._xp.issubdtype(a.dtype, self._xp.floating):
            a = a.astype(self._xp.result_type(float))
        return a

    def neutral(self) -> Any:
        """The neutral configuration, shape ``(nq,)``: zero joint coordinates, the identity free-flyer pose
        (``[0 0 0 0 0 0 1]``, quaternion ``xyzw``), as Pinocchio's ``neutral``."""
        return configuration.neutral(self._robot.metadata.joints, self.nq, self._xp)

    def integrate(self, q: Any, v: Any) -> Any:
        """``q ⊕ v``, shape ``(..., nq)``: the configuration reached from ``q`` (``(..., nq)``, quaternions
        ``xyzw``) by the tangent vector ``v`` (``(..., nv)``) in unit time, as Pinocchio's ``integrate``:
        ``q + v`` per joint coordinate, ``M·exp6([v_lin; ω])`` for a free-flyer (twist in the base frame)."""
        q = self._as_coordinates("q", q, self.nq, "configurations")
        v = self._as_coordinates("v", v, self.nv, "tangent vectors")
        return configuration.integrate(self._robot.metadata.joints, q, v, self._xp)

    def difference(self, q0: Any, q1: Any) -> Any:
        """The tangent vector ``v`` (``(..., nv)``) with ``integrate(q0, v) == q1``, as Pinocchio's
        ``difference`` (a free-flyer's part is ``log6(M0⁻¹·M1)``, the shorter rotation)."""
        q0 = self._as_coordinates("q0", q0, self.nq, "configurations")
        q1 = self._as_coordinates("q1", q1, self.nq, "configurations")
        return configuration.difference(self._robot.metadata.joints, q0, q1, self._xp)

    def invalid_configuration(self, q: Any) -> Any:
        """Which configurations (``(..., nq)``) the dynamics cannot use, a boolean array of shape ``(...)``:
        a NaN or infinite coordinate, or a free-flyer quaternion of zero norm (what an all-zero ``q`` has).
        The kernels give NaN for such a sample (in every output that depends on the offending coordinate)
        and never touch other samples; under ``jit`` this is the way to detect them, e.g. with
        ``checkify.check(~robot.invalid_configuration(q).any(), "invalid configuration")``.
        :class:`grid_rbd.RobotHandle` raises ``ValueError`` for a zero quaternion instead."""
        q = self._as_coordinates("q", q, self.nq, "configurations")
        return configuration.invalid(self._robot.metadata.joints, q, self._xp)

    def frame_index(self, frame: str | int) -> int:
        """Resolves a frame name or index to a non-negative frame index.

        Args:
          frame: a name from :attr:`frame_names`, or an integer index; negative indices count from the end
            as in Python sequences.

        Returns:
          The index in ``range(n_frames)``.

        Raises:
          ValueError: unknown name, or index out of range.
          TypeError: neither a string nor an integer (for example a traced value: the frame must be static).
        """
        names = self.frame_names
        n = len(names)
        if isinstance(frame, str):
            try:
                return names.index(frame)
            except ValueError:
                shown = ", ".join(repr(s) for s in names[:5]) + (", ..." if n > 5 else "")
                raise ValueError(
                    f"unknown frame {frame!r} for robot {self.name!r}; valid names include {shown} "
                    f"({n} frames, see frame_names)"
                ) from None
        if isinstance(frame, (bool, np.bool_)):
            raise TypeError(f"frame must be a frame name or an integer index; got {frame!r}")
        try:
            index = operator.index(frame)
        except TypeError:
            raise TypeError(
                "frame must be a static frame name (str) or integer index; "
                f"got {type(frame).__name__} (a traced value cannot select a frame)"
            ) from None
        if not -n <= index < n:
            raise ValueError(f"frame index {index} is out of range for {n} frames of robot {self.name!r}")
        return index % n

    def _target_frames(self, frames: Sequence[str | int] | None) -> tuple[int, ...] | None:
        """The frame indices of ``multi_target_position``'s ``frames`` (``None``: every frame).

        Raises:
          ValueError: an unknown frame.
          TypeError: ``frames`` is a single name or index rather than a sequence of them.
        """
        if frames is None:
            return None
        if isinstance(frames, (str, int)):
            raise TypeError(f"frames must be a sequence of frame names or indices; got {frames!r}")
        return tuple(self.frame_index(f) for f in frames)

    def joint_coordinates(self, joint: str | int) -> tuple[slice, slice]:
        """Where one joint's coordinates are: ``(q_slice, v_slice)``, so that ``q[..., q_slice]`` is its
        configuration and ``qd[..., v_slice]`` (or ``tau``, ``qdd``, a row or column of a derivative) its
        velocity coordinates. A free-flyer takes 7 configuration and 6 velocity coordinates (Pinocchio's
        ``idx_q``/``nq`` and ``idx_v``/``nv``), every other joint one of each.

        Args:
          joint: a name from :attr:`joint_names`, or an index into it (negative counts from the end).

        Raises:
          ValueError: unknown name, or index out of range.
        """
        joints = self._robot.metadata.joints
        names = [j.name for j in joints]
        if isinstance(joint, str):
            if joint not in names:
                shown = ", ".join(repr(s) for s in names[:5]) + (", ..." if len(names) > 5 else "")
                raise ValueError(f"unknown joint {joint!r} for robot {self.name!r}; valid names include {shown} "
                                 f"({len(names)} joints, see joint_names)")
            info = joints[names.index(joint)]
        else:
            index = operator.index(joint)
            if not -len(joints) <= index < len(joints):
                raise ValueError(f"joint index {index} is out of range for {len(joints)} joints of robot {self.name!r}")
            info = joints[index]
        return slice(info.q_index, info.q_index + info.nq), slice(info.v_index, info.v_index + info.nv)


def _rebuild(cls: type[RobotBase], build_dir: str, gravity: tuple[float, float, float]) -> RobotBase:
    return cls(Path(build_dir), gravity=gravity)
