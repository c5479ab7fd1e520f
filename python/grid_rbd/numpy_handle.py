"""NumPy interface: the same dynamics as :mod:`grid_rbd.jax`, NumPy arrays in and out, run on the CPU.

Example::

    import numpy as np
    import grid_rbd

    robot = grid_rbd.RobotHandle("iiwa")
    q = np.zeros(robot.nq)
    tau = robot.gravity_forces(q)          # float64, shape (7,)

64-bit precision: float64 inputs give float64 results even when JAX's global ``jax_enable_x64`` flag is
off. Each call that sees float64 inputs runs inside the ``jax.enable_x64(True)`` context manager
(``jax >= 0.8``), which changes the flag for the calling thread and for the duration of the call only; the
global setting and other threads are unaffected. Float32 inputs run in float32 whatever the flag says.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

import jax
import numpy as np
import numpy.typing as npt

from . import configuration, integrators
from ._core import DEFAULT_GRAVITY, RobotBase, check_inputs, parse_gravity
from ._kernels import KERNEL_OF, forward_dynamics_kernel
from .jax import JaxRobotHandle

__all__ = ["RobotHandle"]

_F64 = np.dtype(np.float64)


@functools.cache
def _cpu_device() -> jax.Device:
    return jax.devices("cpu")[0]


def _prepare(args: Sequence[npt.ArrayLike]) -> tuple[list[npt.NDArray[Any]], list[bool]]:
    """Converts array-likes to NumPy arrays and says which are typed (floating-point arrays, NumPy or
    JAX; lists, Python numbers, integer and boolean arrays are untyped): :func:`check_inputs` promotes."""
    arrays: list[npt.NDArray[Any]] = []
    typed: list[bool] = []
    for x in args:
        is_array = isinstance(x, (np.ndarray, np.generic, jax.Array))
        a = np.asarray(x)
        arrays.append(a)
        typed.append(is_array and a.dtype.kind == "f")
    return arrays, typed


class RobotHandle(RobotBase):
    """A generated robot's dynamics on NumPy arrays, computed by the CPU kernels.

    Args:
      robot: the robot's name, looked up in ``GRID_RBD_PATH``, the installed package and ``./build``
        (see :func:`grid_rbd.available_robots`), or a path to its build directory.
      gravity: the gravity vector in world coordinates (m/s²) used by every gravity-dependent method.

    Raises:
      grid_rbd.RobotNotBuiltError: no build of the robot was found.
      ValueError: ``gravity`` is not three finite numbers.

    Methods mirror :class:`grid_rbd.jax.JaxRobotHandle` and take any array-likes with any number of
    identical leading batch dimensions. They return new, writable NumPy arrays: float32 for float32
    inputs, float64 for float64 inputs (whatever ``jax_enable_x64`` says globally, see the module
    documentation); mixed float32 and float64 arguments compute in float64, as NumPy would promote them.
    Lists, Python numbers and integer or boolean arrays take the dtype of the floating-point array
    arguments, or float64 when there are none. Arguments are validated before any kernel runs, with the
    same ``ValueError`` messages as the JAX handle. Calls run on the CPU device even when JAX's default
    backend is a GPU.

    Handles are immutable and hashable; each keeps a cache of compiled functions, one per method and
    input shape and dtype.
    """

    __slots__ = ("_jax", "_compiled", "_compiled_lock")

    _jax: JaxRobotHandle
    _compiled: dict[tuple[Any, ...], Callable[..., Any]]
    _compiled_lock: threading.Lock

    def __init__(
        self,
        robot: str | os.PathLike[str],
        *,
        gravity: Sequence[float] | npt.ArrayLike = DEFAULT_GRAVITY,
    ) -> None:
        super().__init__(robot, gravity=gravity)

    def _setup(self) -> None:
        object.__setattr__(self, "_jax", JaxRobotHandle._from_loaded(self._robot, self._gravity))
        object.__setattr__(self, "_compiled", {})
        object.__setattr__(self, "_compiled_lock", threading.Lock())

    def with_gravity(self, gravity: Sequence[float] | npt.ArrayLike) -> RobotHandle:
        """Returns a handle of the same robot with another gravity vector.

        Args:
          gravity: three finite numbers, world coordinates, m/s².
        """
        return self._with(parse_gravity(gravity))

    def random_configuration(
        self, rng: np.random.Generator | int | None = None, shape: Sequence[int] = ()
    ) -> npt.NDArray[np.float64]:
        """Random configurations, float64 of shape ``(*shape, nq)``.

        Joint coordinates are uniform within the URDF limits (``[-π, π]`` where there are none); a free-flyer's
        position is uniform in ``[-1, 1]³`` and its quaternion (``xyzw``) uniform over the rotations.

        Args:
          rng: a NumPy generator, or a seed for one (``None``: fresh entropy).
          shape: leading batch shape.
        """
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        batch = tuple(int(n) for n in shape)
        return configuration.random_configuration(
            self._robot.metadata.joints,
            self.nq,
            uniform=lambda lo, hi: gen.uniform(lo, hi, size=batch + lo.shape),
            normal=lambda n: gen.standard_normal(batch + (n,)),
        )

    @property
    def jax_handle(self) -> JaxRobotHandle:
        """The :class:`~grid_rbd.jax.JaxRobotHandle` of the same robot and gravity."""
        return self._jax

    # Kernel call ----------------------------------------------------------------------------------

    def _compiled_fn(self, name: str, static: tuple[tuple[str, Any], ...]) -> Callable[..., Any]:
        key = (name, static)
        fn = self._compiled.get(key)
        if fn is None:
            with self._compiled_lock:
                fn = self._compiled.get(key)
                if fn is None:
                    fn = jax.jit(functools.partial(getattr(self._jax, name), **dict(static)))
                    self._compiled[key] = fn
        return fn

    def _reject_zero_quaternions(self, q: npt.NDArray[Any]) -> None:
        """A free-flyer quaternion of zero norm has no rotation: ValueError naming the first such sample.
        (NaN and infinite inputs give NaN outputs instead, as in the JAX handle.)"""
        joints = self._robot.metadata.joints
        zero = configuration.zero_quaternions(joints, q)
        if np.any(zero):
            first = next(j for j in joints if j.nq == 7)  # the free-flyer: a tree has at most one, its root
            where = tuple(int(k) for k in np.argwhere(zero)[0])
            raise ValueError(
                f"{self.name}: q{list(where) if where else ''}[{first.q_index + 3}:{first.q_index + 7}], the "
                f"free-flyer quaternion (x, y, z, w), has zero norm; use a unit quaternion, e.g. start from "
                f"robot.neutral() or robot.random_configuration()")

    def _run(
        self,
        name: str,
        args: Sequence[npt.ArrayLike],
        /,
        kernel: str | None = None,
        params: npt.ArrayLike | None = None,
        **static: Any,
    ) -> tuple[npt.NDArray[Any], ...]:
        """The JAX handle's method ``name`` on the CPU, its inputs checked against its kernel's metadata
        (``KERNEL_OF[name]`` unless ``kernel`` is given); ``params``, when given, passed on in the inputs'
        dtype (the JAX method checks its shape)."""
        arrays, typed = _prepare(args)
        info = self._robot.metadata.algorithm(kernel or KERNEL_OF[name])
        _, dtype = check_inputs(info, [a.shape for a in arrays], [a.dtype for a in arrays], typed, _F64)
        arrays = [a.astype(dtype, copy=False) for a in arrays]
        if info.inputs[0].name == "q":
            self._reject_zero_quaternions(arrays[0])
        fn = self._compiled_fn(name, tuple(sorted(static.items())))
        extra = {} if params is None else {"params": np.asarray(params)}
        with jax.enable_x64(True) if dtype == _F64 else contextlib.nullcontext(), jax.default_device(_cpu_device()):
            result = fn(*arrays, **extra)
            leaves = result if isinstance(result, tuple) else (result,)
            out = tuple(np.array(leaf) for leaf in leaves)
        for o in out:
            if o.dtype != dtype:
                raise RuntimeError(f"internal error: {name} returned {o.dtype} for {dtype} inputs")
        return out

    # Dynamics -------------------------------------------------------------------------------------

    def inverse_dynamics(self, q: npt.ArrayLike, qd: npt.ArrayLike, qdd: npt.ArrayLike, *,
                         params: npt.ArrayLike | None = None) -> npt.NDArray[Any]:
        """Inverse dynamics (RNEA): ``tau = M(q) qdd + C(q, qd) qd + g(q)``.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          qdd: acceleration, shape ``(..., NV)``.
          params: inertial parameters replacing the URDF's, ``(n_bodies, 10)`` or ``(..., n_bodies, 10)``;
            see :meth:`grid_rbd.jax.JaxRobotHandle.inverse_dynamics`.

        Returns:
          Joint efforts ``tau``, shape ``(..., NV)``.
        """
        return self._run("inverse_dynamics", (q, qd, qdd), params=params)[0]

    def joint_torque_regressor(self, q: npt.ArrayLike, qd: npt.ArrayLike, qdd: npt.ArrayLike) -> npt.NDArray[Any]:
        """The joint-torque regressor ``Y``, ``(..., NV, 10·n_bodies)``, with ``inverse_dynamics(q, qd, qdd,
        params=p) == Y @ p.reshape(-1)``; see :meth:`grid_rbd.jax.JaxRobotHandle.joint_torque_regressor`."""
        return self._run("joint_torque_regressor", (q, qd, qdd))[0]

    def bias_forces(self, q: npt.ArrayLike, qd: npt.ArrayLike) -> npt.NDArray[Any]:
        """Bias forces: ``C(q, qd) qd + g(q)`` (inverse dynamics at zero acceleration).

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.

        Returns:
          Efforts, shape ``(..., NV)``.
        """
        return self._run("bias_forces", (q, qd))[0]

    def gravity_forces(self, q: npt.ArrayLike) -> npt.NDArray[Any]:
        """Generalised gravity ``g(q)`` (inverse dynamics at zero velocity and acceleration).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          Efforts, shape ``(..., NV)``.
        """
        return self._run("gravity_forces", (q,))[0]

    def mass_matrix(self, q: npt.ArrayLike, *, params: npt.ArrayLike | None = None) -> npt.NDArray[Any]:
        """Joint-space mass matrix ``M(q)`` (CRBA).

        Args:
          q: configuration, shape ``(..., NQ)``.
          params: inertial parameters replacing the URDF's; see
            :meth:`grid_rbd.jax.JaxRobotHandle.mass_matrix`.

        Returns:
          The symmetric positive-definite mass matrix, shape ``(..., NV, NV)``.
        """
        return self._run("mass_matrix", (q,), params=params)[0]

    def minv(self, q: npt.ArrayLike) -> npt.NDArray[Any]:
        """Inverse mass matrix ``M(q)⁻¹``, computed analytically (no factorisation of ``M``).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          ``M⁻¹``, shape ``(..., NV, NV)``.
        """
        return self._run("minv", (q,))[0]

    def forward_dynamics(
        self,
        q: npt.ArrayLike,
        qd: npt.ArrayLike,
        tau: npt.ArrayLike,
        *,
        method: Literal["aba", "minv"] = "aba",
        params: npt.ArrayLike | None = None,
    ) -> npt.NDArray[Any]:
        """Forward dynamics: ``qdd = M(q)⁻¹ (tau - C(q, qd) qd - g(q))``.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          tau: joint efforts, shape ``(..., NV)``.
          method: ``"aba"`` (default) runs the articulated-body algorithm; ``"minv"`` multiplies the
            analytical ``M⁻¹`` with the effort minus the bias forces.
          params: inertial parameters replacing the URDF's (``method`` is then not used); see
            :meth:`grid_rbd.jax.JaxRobotHandle.forward_dynamics`.

        Returns:
          Accelerations ``qdd``, shape ``(..., NV)``.

        Raises:
          ValueError: unknown ``method``.
        """
        kernel = forward_dynamics_kernel(method)
        return self._run("forward_dynamics", (q, qd, tau), kernel=kernel, params=params, method=method)[0]

    # Kinematics -----------------------------------------------------------------------------------

    def frame_poses(self, q: npt.ArrayLike) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """World poses of every frame (every URDF link, fixed-joint links included).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          A tuple ``(pos, rot, quat)``: frame origins ``(..., NF, 3)``, rotation matrices ``(..., NF, 3, 3)``
          whose columns are the frame axes in world coordinates, and unit quaternions ``(..., NF, 4)``
          ordered ``(x, y, z, w)`` with ``w >= 0``. The frame axis follows :attr:`frame_names`.
        """
        pos, rot, quat = self._run("frame_poses", (q,))
        return pos, rot, quat

    def end_effector_pose(
        self, q: npt.ArrayLike, frame: str | int
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """World pose of one frame.

        Args:
          q: configuration, shape ``(..., NQ)``.
          frame: a frame name from :attr:`frame_names` or an index (negative counts from the end).

        Returns:
          A tuple ``(pos, rot, quat)`` of shapes ``(..., 3)``, ``(..., 3, 3)`` and ``(..., 4)`` (``x, y, z, w``).

        Raises:
          ValueError: unknown frame name or index out of range.
        """
        index = self.frame_index(frame)
        pos, rot, quat = self._run("end_effector_pose", (q,), frame=index)
        return pos, rot, quat

    def multi_target_position(
        self, q: npt.ArrayLike, frames: Sequence[str | int] | None = None
    ) -> npt.NDArray[Any]:
        """World positions of target frames over a horizon, ``(..., T, F, 3)`` from ``q`` of shape
        ``(..., T, NQ)``; see :meth:`grid_rbd.jax.JaxRobotHandle.multi_target_position`."""
        indices = self._target_frames(frames)
        return self._run("multi_target_position", (q,), frames=indices)[0]

    def frame_jacobian(self, q: npt.ArrayLike, frame: str | int) -> npt.NDArray[Any]:
        """World-aligned Jacobian of one frame, rows ``[v; omega]`` in world coordinates (Pinocchio's
        ``LOCAL_WORLD_ALIGNED`` frame Jacobian).

        Args:
          q: configuration, shape ``(..., NQ)``.
          frame: a frame name from :attr:`frame_names` or an index (negative counts from the end).

        Returns:
          The Jacobian, shape ``(..., 6, NV)``.

        Raises:
          ValueError: unknown frame name or index out of range.
        """
        index = self.frame_index(frame)
        return self._run("frame_jacobian", (q,), frame=index)[0]

    # Derivatives ----------------------------------------------------------------------------------

    def inverse_dynamics_derivatives(
        self, q: npt.ArrayLike, qd: npt.ArrayLike, qdd: npt.ArrayLike
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """``(dtau_dq, dtau_dqd)``, each ``(..., NV, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.inverse_dynamics_derivatives`."""
        dq, dqd = self._run("inverse_dynamics_derivatives", (q, qd, qdd))
        return dq, dqd

    def forward_dynamics_derivatives(
        self, q: npt.ArrayLike, qd: npt.ArrayLike, tau: npt.ArrayLike
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """``(dqdd_dq, dqdd_dqd, minv)``, each ``(..., NV, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.forward_dynamics_derivatives`."""
        dq, dqd, minv = self._run("forward_dynamics_derivatives", (q, qd, tau))
        return dq, dqd, minv

    def step_derivatives(
        self, q: npt.ArrayLike, qd: npt.ArrayLike, u: npt.ArrayLike, dt: npt.ArrayLike, *,
        method: str = "semi_implicit",
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """``(q1, qd1, dx1_dx, dx1_du)``: one integration step and its Jacobians in tangent coordinates,
        ``(..., 2·NV, 2·NV)`` and ``(..., 2·NV, NV)``; see :meth:`grid_rbd.jax.JaxRobotHandle.step_derivatives`."""
        integrators.check_method(method)
        q_arr = np.asarray(q)
        batch = q_arr.shape[:-1]
        shape = np.shape(dt)
        if shape not in ((), batch, batch + (1,)):
            raise ValueError(f"{self.name}: dt must be a scalar or have q's batch shape {batch}; got shape {shape}")
        # the step in the states' dtype (a Python float would promote float32 states)
        like = q_arr.dtype if np.issubdtype(q_arr.dtype, np.floating) else None
        steps = np.broadcast_to(np.reshape(np.asarray(dt, dtype=like), shape[: len(batch)]), batch)[..., None]
        q1, qd1, dx, du = self._run("step_derivatives", (q, qd, u, steps), method=method)
        return q1, qd1, dx, du

    def inverse_dynamics_second_derivatives(
        self, q: npt.ArrayLike, qd: npt.ArrayLike, qdd: npt.ArrayLike
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """``(d2tau_dq2, d2tau_dqdqd, d2tau_dqd2, dM_dq)``, each ``(..., NV, NV, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.inverse_dynamics_second_derivatives`."""
        a, b, c, d = self._run("inverse_dynamics_second_derivatives", (q, qd, qdd))
        return a, b, c, d

    def forward_dynamics_second_derivatives(
        self, q: npt.ArrayLike, qd: npt.ArrayLike, tau: npt.ArrayLike
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """``(d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2, dMinv_dq)``, each ``(..., NV, NV, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.forward_dynamics_second_derivatives`."""
        a, b, c, d = self._run("forward_dynamics_second_derivatives", (q, qd, tau))
        return a, b, c, d

    def multi_target_position_derivatives(
        self, q: npt.ArrayLike, frames: Sequence[str | int] | None = None
    ) -> npt.NDArray[Any]:
        """``∂pos/∂θ`` of :meth:`multi_target_position`, ``(..., T, F, 3, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.multi_target_position_derivatives`."""
        indices = self._target_frames(frames)
        return self._run("multi_target_position_derivatives", (q,), frames=indices)[0]

    def frame_jacobians(self, q: npt.ArrayLike) -> npt.NDArray[Any]:
        """World-aligned Jacobians of every frame, ``(..., NF, 6, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.frame_jacobians`."""
        return self._run("frame_jacobians", (q,))[0]

    def frame_jacobian_derivatives(self, q: npt.ArrayLike, frame: str | int) -> npt.NDArray[Any]:
        """The derivative of one frame's Jacobian along every tangent direction, ``(..., 6, NV, NV)``; see
        :meth:`grid_rbd.jax.JaxRobotHandle.frame_jacobian_derivatives`."""
        index = self.frame_index(frame)
        return self._run("frame_jacobian_derivatives", (q,), frame=index)[0]
