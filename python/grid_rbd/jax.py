"""JAX interface: rigid-body dynamics of a generated robot as XLA FFI calls.

Example::

    import jax, jax.numpy as jnp
    from grid_rbd.jax import JaxRobotHandle

    robot = JaxRobotHandle("iiwa")
    q = jnp.zeros((1024, robot.nq))
    tau = jax.jit(robot.inverse_dynamics)(q, q, q)    # (1024, 7)

Every method accepts any number of leading batch dimensions (the same on every argument) and works under
:func:`jax.jit` and :func:`jax.vmap` (nested too). The dtype follows the inputs as NumPy would promote them:
float32, or float64 when ``jax_enable_x64`` is on and an argument is float64 (float32 with float64 gives
float64); integer and boolean arrays and Python numbers take the floating-point arguments' dtype (JAX's
default float when there are none). Complex arguments raise ``ValueError``.

Non-finite and degenerate inputs never crash and never leak into other samples: a NaN or infinite input, or
a free-flyer quaternion of zero norm (all-zero ``q``), gives NaN in that sample's outputs that depend on it (a
floating base's mass matrix does not depend on the base's pose, so it stays finite).
:meth:`JaxRobotHandle.invalid_configuration` flags such configurations under ``jit`` (for
``jax.experimental.checkify``); :class:`grid_rbd.RobotHandle`, whose inputs are concrete, raises
``ValueError`` for a zero quaternion.

The dynamics and kinematics methods are differentiable (``jax.grad``, ``jacfwd``, ``jacrev``, ``jvp``,
``vjp``, also under ``jit`` and ``vmap``) through the robot's generated derivative kernels, never by
tracing the dynamics in JAX (:meth:`JaxRobotHandle.frame_jacobian` through the second-order kinematics
kernel); see :mod:`grid_rbd._autodiff` for the rules. Derivatives with respect to a
free-flyer's quaternion follow the chain rule through its normalisation: the kernels use the rotation of
``quat / |quat|``, so a radial change of the quaternion changes nothing. The derivative kernels are public
too (:meth:`JaxRobotHandle.inverse_dynamics_derivatives`, :meth:`JaxRobotHandle.forward_dynamics_derivatives`,
:meth:`JaxRobotHandle.frame_jacobians`, :meth:`JaxRobotHandle.multi_target_position_derivatives`); their
results are in tangent coordinates, which
:meth:`JaxRobotHandle.configuration_tangent` relates to ``q``. Second derivatives (``jax.hessian``, a ``grad`` of a
``grad``) come from the second-order kernels (:meth:`JaxRobotHandle.inverse_dynamics_second_derivatives`,
:meth:`JaxRobotHandle.forward_dynamics_second_derivatives`, :meth:`JaxRobotHandle.frame_jacobian_derivatives`).
Third derivatives, and second derivatives of :meth:`JaxRobotHandle.frame_jacobian`, raise
:class:`NotImplementedError`.

Sharded batches stay sharded: under ``jit`` with arguments sharded along batch dimensions over a mesh of
devices, every method and every derivative rule runs each device's own samples, with no collective, and the
results keep the arguments' sharding (:mod:`grid_rbd._sharding`; docs/sharding.md has the multi-device and
multi-host recipe).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
from jax.typing import ArrayLike

from . import _autodiff, _inertial, _sharding, configuration, integrators
from ._artifacts import CUDA_LIBRARY
from ._conventions import public_rows
from ._core import DEFAULT_GRAVITY, RobotBase, check_inputs, compute_dtype, format_shape, parse_gravity
from ._kernels import INTEGRATOR_NUMBER, KERNEL_OF, forward_dynamics_kernel

__all__ = ["JaxRobotHandle"]


def _shape_dtype(x: ArrayLike) -> tuple[ArrayLike, tuple[int, ...], np.dtype[np.generic], bool]:
    """An argument, its shape, the dtype JAX computes it in and whether it is typed (a floating-point
    array; see :func:`grid_rbd._core.compute_dtype`), converting non-arrays to arrays."""
    typed = hasattr(x, "shape") and hasattr(x, "dtype")
    if not typed:
        x = np.asarray(x)
    raw = np.dtype(x.dtype)
    shape = tuple(int(d) for d in x.shape)
    if raw.kind == "f":
        return x, shape, np.dtype(jax.dtypes.canonicalize_dtype(raw)), typed
    return x, shape, raw, False


def _select_frames(x: jax.Array, indices: tuple[int, ...] | None, axis: int) -> jax.Array:
    """x's entries of the given frames along its frame axis (every frame for None)."""
    return x if indices is None else jnp.take(x, jnp.asarray(indices, dtype=jnp.int32), axis=axis)


def _default_float() -> np.dtype[np.generic]:
    """JAX's default floating-point dtype: float64 with jax_enable_x64, else float32."""
    return np.dtype(jax.dtypes.canonicalize_dtype(np.float64))


@dataclasses.dataclass(frozen=True)
class _KernelCall:
    """One kernel of a handle as a value (a static argument of :func:`grid_rbd._sharding.batch_partitioned`):
    equal calls share their compilation."""

    handle: JaxRobotHandle
    algorithm: str
    frame: int | None
    method: int | None = None

    def __call__(self, *operands: jax.Array) -> list[jax.Array]:
        return self.handle._ffi_call(self.algorithm, self.frame, operands, self.method)


class JaxRobotHandle(RobotBase):
    """A generated robot's dynamics as JAX functions.

    Args:
      robot: the robot's name, looked up in ``GRID_RBD_PATH``, the installed package and ``./build``
        (see :func:`grid_rbd.available_robots`), or a path to its build directory.
      gravity: the gravity vector in world coordinates (m/s²) used by every gravity-dependent method.

    Raises:
      grid_rbd.RobotNotBuiltError: no build of the robot was found.
      ValueError: ``gravity`` is not three finite numbers.

    Handles are immutable and hashable (equal when they load the same build directory with the same
    gravity), so they can be closed over or passed as static arguments to :func:`jax.jit`. Loading the
    kernel libraries and registering them with XLA happens once per build directory and process.

    Shapes below use ``NQ = nq``, ``NV = nv``, ``NF = n_frames`` and ``...`` for the leading batch
    dimensions, which must be identical across all array arguments.
    """

    __slots__ = ()

    def __init__(
        self,
        robot: str | os.PathLike[str],
        *,
        gravity: Sequence[float] | npt.ArrayLike = DEFAULT_GRAVITY,
    ) -> None:
        super().__init__(robot, gravity=gravity)

    def with_gravity(self, gravity: Sequence[float] | npt.ArrayLike) -> JaxRobotHandle:
        """Returns a handle of the same robot with another gravity vector.

        Args:
          gravity: three finite numbers, world coordinates, m/s².
        """
        return self._with(parse_gravity(gravity))

    _xp = jnp

    def random_configuration(
        self, key: jax.Array, shape: Sequence[int] = (), dtype: npt.DTypeLike | None = None
    ) -> jax.Array:
        """Random configurations of shape ``(*shape, nq)`` from a ``jax.random`` key (jittable).

        Joint coordinates are uniform within the URDF limits (``[-π, π]`` where there are none); a free-flyer's
        position is uniform in ``[-1, 1]³`` and its quaternion (``xyzw``) uniform over the rotations.

        Args:
          key: a ``jax.random`` key.
          shape: leading batch shape.
          dtype: float dtype (default: JAX's default float).
        """
        batch = tuple(int(n) for n in shape)
        dt = jnp.dtype(dtype) if dtype is not None else jnp.result_type(float)
        k_uniform, k_normal = jax.random.split(key)
        return configuration.random_configuration(
            self._robot.metadata.joints,
            self.nq,
            uniform=lambda lo, hi: jax.random.uniform(
                k_uniform, batch + lo.shape, dt, jnp.asarray(lo, dt), jnp.asarray(hi, dt)
            ),
            normal=lambda n: jax.random.normal(k_normal, batch + (n,), dt),
            xp=jnp,
        )

    # Kernel call ----------------------------------------------------------------------------------

    def kernel_call(self, algorithm: str, args: Sequence[ArrayLike], frame: int | None = None,
                    method: int | None = None) -> list[jax.Array]:
        """One generated kernel by its name in ``metadata.json`` (e.g. ``"aba"``, ``"idsva_so"``), with no
        derivative rule: the primitive the differentiable methods and their rules (:mod:`grid_rbd._autodiff`)
        are built on. Arguments are checked like every method's; outputs are in the kernels' own
        conventions (frame Jacobian rows ``[omega; v]``).

        Args:
          algorithm: the kernel's name.
          args: its inputs in metadata order, with any common leading batch shape.
          frame: the frame index, for kernels that take one.
          method: the integrator (0 semi-implicit Euler, 1 RK4), for kernels that take one.

        Returns:
          The kernel's outputs in metadata order; under ``jit``, sharded along the batch as the arguments are
          (each device runs its own samples).

        Raises:
          NotImplementedError: the build has no such kernel.
          ValueError: an argument's shape or dtype does not fit.
        """
        info = self._robot.metadata.algorithm(algorithm)
        converted = [_shape_dtype(x) for x in args]
        batch, dtype = check_inputs(info, [c[1] for c in converted], [c[2] for c in converted],
                                    [c[3] for c in converted], _default_float())
        if any(d == 0 for d in batch):
            return [jnp.zeros(batch + out.shape, dtype) for out in info.outputs]
        if info.frame:
            assert frame is not None
        if info.method:
            assert method is not None
        operands = [jnp.asarray(c[0], dtype) for c in converted]
        # Registers the handler now, compiling a deferred library if need be: the partitioned call below may
        # trace the kernel again while XLA compiles, too late to register it.
        self._robot.target(algorithm, dtype)
        # Partitioned along the batch under sharding: each device runs the kernel on its own samples.
        return _sharding.batch_partitioned(_KernelCall(self, algorithm, frame, method), operands, len(batch))

    def _ffi_call(self, algorithm: str, frame: int | None, operands: Sequence[jax.Array],
                  method: int | None = None) -> list[jax.Array]:
        """The FFI custom call of a kernel on checked operands of one dtype, whatever their batch shape (the
        whole batch, or one device's shard of it)."""
        info = self._robot.metadata.algorithm(algorithm)
        dtype = operands[0].dtype
        batch = tuple(operands[0].shape[: operands[0].ndim - len(info.inputs[0].shape)])
        result_types = [
            jax.ShapeDtypeStruct(batch + out.shape, dtype,  # type: ignore[no-untyped-call,unused-ignore]
                                 sharding=_sharding.typed_result_sharding(operands, len(batch), len(batch + out.shape)))
            for out in info.outputs
        ]
        if any(d == 0 for d in batch):
            return [jnp.zeros(r.shape, r.dtype) for r in result_types]
        if self._robot.cuda_error is not None and jax.default_backend() == "gpu":
            # Otherwise XLA fails at compile time with "No FFI handler registered", which names no cause.
            raise RuntimeError(
                f"robot {self.name!r}: its CUDA library {self._robot.build_dir / CUDA_LIBRARY} could not be "
                f"registered ({self._robot.cuda_error}), so it has no GPU kernels: rebuild it for this GPU and "
                "jaxlib (go tool mage build <urdf> -cuda), or run on the CPU (JAX_PLATFORMS=cpu)")
        attributes: dict[str, np.float64 | np.int64] = {}
        if info.gravity:
            gx, gy, gz = self._gravity
            attributes.update(gravity_x=np.float64(gx), gravity_y=np.float64(gy), gravity_z=np.float64(gz))
        if info.frame:
            assert frame is not None
            attributes["frame"] = np.int64(frame)
        if info.method:
            assert method is not None
            attributes["method"] = np.int64(method)
        # The handlers' last result is the kernels' scratch at their tuned resource tier (none on the CPU);
        # it grows with the batch (a device's shard sizes its own), and a handler given too little runs at
        # TIER_SHARED instead.
        samples = math.prod(batch)
        workspace = self._robot.workspace_bytes(algorithm, samples, np.dtype(dtype).itemsize)
        result_types.append(jax.ShapeDtypeStruct(  # type: ignore[no-untyped-call,unused-ignore]
            (workspace,), jnp.uint8, sharding=_sharding.typed_result_sharding(operands, 0, 1)))
        call = jax.ffi.ffi_call(self._robot.target(algorithm, dtype), result_types, vmap_method="broadcast_all")
        return list(call(*operands, **attributes))[:-1]

    def _arrays(self, method: str, args: Sequence[ArrayLike], kernel: str | None = None) -> list[jax.Array]:
        """The arguments of a method, checked against its kernel's metadata (``KERNEL_OF[method]`` unless
        ``kernel`` is given) and converted to one dtype.

        The differentiable methods check here, before JAX sees their custom derivative rules, so that bad
        input fails with the same message whether or not it is differentiated.
        """
        info = self._robot.metadata.algorithm(kernel or KERNEL_OF[method])
        converted = [_shape_dtype(x) for x in args]
        _, dtype = check_inputs(info, [c[1] for c in converted], [c[2] for c in converted],
                                [c[3] for c in converted], _default_float())
        return [jnp.asarray(c[0], dtype) for c in converted]

    def _params(self, params: ArrayLike, batch: tuple[int, ...], dtype: npt.DTypeLike) -> jax.Array:
        """Inertial parameters checked against the states' batch shape and converted to their dtype."""
        body = (self.n_bodies, 10)
        batch = tuple(batch)
        shape = tuple(int(d) for d in jnp.shape(params))
        if shape not in (body, batch + body):
            raise ValueError(
                f"{self.name}: params must have shape {format_shape(body)} (one set for every sample) or "
                f"{format_shape(batch + body)} (the states' batch {format_shape(batch)}, then n_bodies × 10 inertial "
                f"parameters; robot.inertial_parameters() gives the URDF's); got {format_shape(shape)}")
        array = jnp.asarray(params)
        if array.dtype.kind not in "biuf":
            raise ValueError(f"{self.name}: params must be real (float32 or float64); got dtype {array.dtype}")
        return array.astype(dtype)

    # Dynamics -------------------------------------------------------------------------------------

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *,
                         params: ArrayLike | None = None) -> jax.Array:
        """Inverse dynamics (RNEA): ``tau = M(q) qdd + C(q, qd) qd + g(q)``.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          qdd: acceleration, shape ``(..., NV)``.
          params: inertial parameters replacing the URDF's, ``(n_bodies, 10)`` or ``(..., n_bodies, 10)``
            (layout: :meth:`inertial_parameters`); ``None`` (default) runs RNEA on the URDF's. Given, the
            result is ``joint_torque_regressor(q, qd, qdd) @ params`` (see :mod:`grid_rbd._inertial` for the
            cost and the derivatives: with respect to ``params`` and ``qdd``, not ``q`` and ``qd``).

        Returns:
          Joint efforts ``tau``, shape ``(..., NV)``.
        """
        q, qd, qdd = self._arrays("inverse_dynamics", (q, qd, qdd))
        if params is not None:
            return _inertial.inverse_dynamics(self, q, qd, qdd, self._params(params, qd.shape[:-1], qd.dtype))
        return _autodiff.inverse_dynamics(self, q, qd, qdd)

    def joint_torque_regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> jax.Array:
        """The joint-torque regressor ``Y(q, qd, qdd)``: inverse dynamics, gravity included, is
        ``Y @ params.reshape(-1)`` for any inertial parameters ``params`` (Pinocchio's
        ``computeJointTorqueRegressor``).

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          qdd: acceleration, shape ``(..., NV)``.

        Returns:
          ``Y``, shape ``(..., NV, 10·n_bodies)``: column ``10·i + k`` is parameter ``k`` of body ``i`` in
          :meth:`inertial_parameters`' layout. Differentiable with respect to ``qdd`` (``Y`` is affine in it);
          derivatives with respect to ``q`` and ``qd`` raise ``NotImplementedError``.

        Raises:
          NotImplementedError: the build has no regressor kernel (it predates it: rebuild the robot).
        """
        return _inertial.joint_torque_regressor(self, *self._arrays("joint_torque_regressor", (q, qd, qdd)))

    def bias_forces(self, q: ArrayLike, qd: ArrayLike) -> jax.Array:
        """Bias forces: ``C(q, qd) qd + g(q)`` (inverse dynamics at zero acceleration).

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.

        Returns:
          Efforts, shape ``(..., NV)``.
        """
        return _autodiff.bias_forces(self, *self._arrays("bias_forces", (q, qd)))

    def gravity_forces(self, q: ArrayLike) -> jax.Array:
        """Generalised gravity ``g(q)`` (inverse dynamics at zero velocity and acceleration).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          Efforts, shape ``(..., NV)``.
        """
        return _autodiff.gravity_forces(self, *self._arrays("gravity_forces", (q,)))

    def mass_matrix(self, q: ArrayLike, *, params: ArrayLike | None = None) -> jax.Array:
        """Joint-space mass matrix ``M(q)`` (CRBA).

        Args:
          q: configuration, shape ``(..., NQ)``.
          params: inertial parameters replacing the URDF's, as in :meth:`inverse_dynamics`; given, column
            ``j`` is ``joint_torque_regressor(q, 0, e_j) @ params`` without gravity (NV regressor samples per
            configuration), differentiable with respect to ``params`` only.

        Returns:
          The symmetric positive-definite mass matrix, shape ``(..., NV, NV)``.
        """
        (q_arr,) = self._arrays("mass_matrix", (q,))
        if params is not None:
            return _inertial.mass_matrix(self, q_arr, self._params(params, q_arr.shape[:-1], q_arr.dtype))
        return _autodiff.mass_matrix(self, q_arr)

    def minv(self, q: ArrayLike) -> jax.Array:
        """Inverse mass matrix ``M(q)⁻¹``, computed analytically (no factorisation of ``M``).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          ``M⁻¹``, shape ``(..., NV, NV)``.
        """
        return _autodiff.minv(self, *self._arrays("minv", (q,)))

    def forward_dynamics(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        tau: ArrayLike,
        *,
        method: Literal["aba", "minv"] = "aba",
        params: ArrayLike | None = None,
    ) -> jax.Array:
        """Forward dynamics: ``qdd = M(q)⁻¹ (tau - C(q, qd) qd - g(q))``.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          tau: joint efforts, shape ``(..., NV)``.
          method: ``"aba"`` (default) runs the articulated-body algorithm; ``"minv"`` multiplies the
            analytical ``M⁻¹`` with the effort minus the bias forces. Both give the same result up to
            rounding.
          params: inertial parameters replacing the URDF's, as in :meth:`inverse_dynamics`; given, ``method``
            is not used: ``qdd`` solves ``M_params qdd = tau - joint_torque_regressor(q, qd, 0) @ params``
            (NV + 1 regressor samples and an LU solve per state), differentiable with respect to ``params``
            (``∂qdd/∂params = -M⁻¹ Y(q, qd, qdd)``) and ``tau``.

        Returns:
          Accelerations ``qdd``, shape ``(..., NV)``.

        Raises:
          ValueError: unknown ``method``.
        """
        kernel = forward_dynamics_kernel(method)
        q, qd, tau = self._arrays("forward_dynamics", (q, qd, tau), kernel)
        if params is not None:
            return _inertial.forward_dynamics(self, q, qd, tau, self._params(params, qd.shape[:-1], qd.dtype))
        return _autodiff.forward_dynamics(self, method, q, qd, tau)

    # Time integration -----------------------------------------------------------------------------

    def step(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        u: ArrayLike,
        dt: ArrayLike,
        *,
        method: integrators.Method = "semi_implicit",
        controller: integrators.Controller | None = None,
        params: ArrayLike | None = None,
    ) -> tuple[jax.Array, jax.Array]:
        """One integration step of the forward dynamics under efforts held over the step
        (:mod:`grid_rbd.integrators` gives the schemes).

        Args:
          q: configuration, shape ``(..., NQ)`` (free-flyer quaternions ``xyzw``).
          qd: velocity, shape ``(..., NV)``.
          u: joint efforts, shape ``(..., NV)``.
          dt: the time step, a scalar.
          method: ``"semi_implicit"`` (symplectic Euler, default) or ``"rk4"``.
          controller: the efforts at a state, ``controller(q, qd, u)`` (default: ``u``), called at every
            state the scheme evaluates the dynamics at.
          params: inertial parameters replacing the URDF's, as in :meth:`forward_dynamics`.

        Returns:
          ``(q1, qd1)``, the state after ``dt``; differentiable in every argument. With ``params``, only
          where no state the dynamics are evaluated at depends on the argument (a semi-implicit step with
          respect to ``params``, ``u`` and ``dt``): elsewhere the derivative needs ``∂qdd/∂(q, qd)`` at the
          given parameters, which raises ``NotImplementedError``.

        Raises:
          ValueError: unknown ``method`` or a shape that does not fit.
        """
        q, qd, u = self._arrays("forward_dynamics", (q, qd, u))
        p = None if params is None else self._params(params, qd.shape[:-1], qd.dtype)
        return integrators.step(self, q, qd, u, jnp.asarray(dt, q.dtype), method, controller, p)

    def step_derivatives(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        u: ArrayLike,
        dt: ArrayLike,
        *,
        method: integrators.Method = "semi_implicit",
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """One integration step and its Jacobians, from the generated kernel (``integrator_gradient``: one
        dual-number run of the step per direction, in one call).

        The Jacobians are in tangent coordinates ``x = (θ, qd)``, ``θ`` the tangent of ``q`` (``q ⊕ θ``, a
        free-flyer's body twist, as :meth:`forward_dynamics_derivatives` takes it) and ``θ₁`` that of ``q1``:
        what a linearisation (iLQR, DDP, an extended Kalman filter) needs.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          u: joint efforts held over the step, shape ``(..., NV)``.
          dt: the time step: a scalar, or one per sample (shape ``(...)`` or ``(..., 1)``).
          method: ``"semi_implicit"`` (default) or ``"rk4"``, as in :meth:`step`.

        Returns:
          ``(q1, qd1, dx1_dx, dx1_du)``: the step (as :meth:`step` computes it), ``∂(θ₁, qd₁)/∂(θ, qd)`` of
          shape ``(..., 2·NV, 2·NV)`` and ``∂(θ₁, qd₁)/∂u`` of shape ``(..., 2·NV, NV)``. Not differentiable
          further.

        Raises:
          ValueError: unknown ``method``, or shapes that do not fit.
          NotImplementedError: the build has no such kernel (a rolled robot).
        """
        integrators.check_method(method)
        q, qd, u = self._arrays("forward_dynamics", (q, qd, u))
        batch = q.shape[:-1]
        shape = tuple(jnp.shape(dt))
        if shape not in ((), batch, batch + (1,)):
            raise ValueError(f"{self.name}: dt must be a scalar or have q's batch shape {batch}; got shape {shape}")
        steps = jnp.broadcast_to(jnp.reshape(jnp.asarray(dt, q.dtype), shape[: len(batch)]), batch)[..., None]
        q1, qd1, dx, du = _autodiff.call(self, KERNEL_OF["step_derivatives"], (q, qd, u, steps),
                                         method=INTEGRATOR_NUMBER[method])
        return q1, qd1, dx, du

    def rollout(
        self,
        q0: ArrayLike,
        qd0: ArrayLike,
        u: ArrayLike,
        dt: ArrayLike,
        *,
        method: integrators.Method = "semi_implicit",
        frames: Sequence[str | int] | None = None,
        controller: integrators.Controller | None = None,
        fused: bool | None = None,
        params: ArrayLike | None = None,
        adjoint: str = "auto",
    ) -> integrators.Rollout:
        """T integration steps from ``(q0, qd0)``, one row of efforts per step.

        Without a controller the T steps run inside one kernel call (the build's fused rollout kernels), and
        so does each derivative: ``jvp`` one tangent call, ``grad``/``vjp`` one adjoint call over the stored
        trajectory. With a controller, the steps are a jitted scan of :meth:`step`.

        Args:
          q0: initial configuration, shape ``(..., NQ)`` (free-flyer quaternions ``xyzw``).
          qd0: initial velocity, shape ``(..., NV)``.
          u: efforts, shape ``(..., T, NV)``: row ``t`` is held over step ``t``.
          dt: the time step, a scalar.
          method: ``"semi_implicit"`` (symplectic Euler, default) or ``"rk4"``.
          frames: frame names or indices whose world positions to return after every step; static.
          controller: the efforts at a state, ``controller(q, qd, u_t)`` (default: ``u_t``): a policy, gravity
            compensation or damping, any JAX function; it is differentiated with the rollout.
          fused: ``True`` for the one-call kernels, ``False`` for the scan of single steps; by default the
            kernels where the build has them (not rolled robots) and no controller is given. Both agree to
            rounding, derivatives included; second derivatives need the scan.
          params: inertial parameters replacing the URDF's, ``(n_bodies, 10)`` or ``(..., n_bodies, 10)`` with
            ``q0``'s batch (see :meth:`forward_dynamics`); the rollout is then the scan of single steps. It
            simulates (every sample with its own parameters, a randomised or identified model) but is not
            differentiable across steps: a step's derivative needs ``∂qdd/∂q`` with the given parameters,
            which the kernels do not provide (``NotImplementedError``).
          adjoint: how a fused rollout runs reverse mode: ``"kernel"`` (the adjoint kernel: each sample's
            steps backwards, one thread a sample), ``"jacobians"`` (every step's dynamics Jacobians in one
            ``forward_dynamics_derivatives`` call over all samples and steps, then the cotangents' linear
            recursion; ``"semi_implicit"`` only; more memory: 3·NV² values a sample and step, at most 256 MiB
            of them at a time) or ``"auto"`` (the Jacobians under semi-implicit Euler, measured faster on a
            GPU; the adjoint kernel under RK4). Static.

        Returns:
          A :class:`~grid_rbd.integrators.Rollout` ``(q, qd, frame_positions)``: the states after each step,
          ``(..., T, NQ)`` and ``(..., T, NV)``, and ``(..., T, F, 3)`` positions (``None`` without frames).
          Differentiable with respect to ``q0``, ``qd0``, ``u`` and ``dt`` (``grad``, ``vjp``, ``jvp``),
          under ``jit`` and ``vmap``; reverse mode keeps only the states and recomputes each step.

        Raises:
          ValueError: unknown ``method``, ``adjoint`` or frame, shapes that do not fit, ``fused=True`` with a
            controller or ``params``, or ``adjoint="jacobians"`` with RK4.
          NotImplementedError: ``fused=True`` on a build without the fused kernels.
        """
        converted = [_shape_dtype(x) for x in (q0, qd0, u)]
        dtype = compute_dtype([c[2] for c in converted], [c[3] for c in converted], _default_float())
        p = None if params is None else self._params(params, converted[0][1][:-1], dtype)
        return integrators.rollout(self, *(c[0] for c in converted), dt, method, frames, controller, dtype, fused, p,
                                   adjoint)

    # Derivative kernels ---------------------------------------------------------------------------

    def inverse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> tuple[jax.Array, jax.Array]:
        """First derivatives of inverse dynamics, from the generated kernel.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          qdd: acceleration, shape ``(..., NV)``.

        Returns:
          ``(dtau_dq, dtau_dqd)``, each ``(..., NV, NV)`` with rows indexing ``tau``. ``dtau_dq``'s columns
          are tangent directions of ``q`` (a free-flyer's body-frame twist ``[v_lin; omega]``, as in ``qd``);
          ``dtau_dq @ configuration_tangent(q, dq)`` is the change of ``tau`` along a raw ``dq``. The
          derivative with respect to ``qdd`` is :meth:`mass_matrix`. Differentiable once more (through
          :meth:`inverse_dynamics_second_derivatives`).
        """
        dq, dqd = _autodiff.id_grad(self, *self._arrays("inverse_dynamics_derivatives", (q, qd, qdd)))
        return dq, dqd

    def forward_dynamics_derivatives(
        self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        """First derivatives of forward dynamics, from the generated kernel.

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          tau: joint efforts, shape ``(..., NV)``.

        Returns:
          ``(dqdd_dq, dqdd_dqd, minv)``, each ``(..., NV, NV)`` with rows indexing ``qdd``: the derivatives
          with respect to ``q`` (tangent directions, as in :meth:`inverse_dynamics_derivatives`), ``qd``
          and ``tau`` (``M(q)⁻¹``). Differentiable once more (through
          :meth:`forward_dynamics_second_derivatives`).
        """
        dq, dqd, minv = _autodiff.fd_grad(self, *self._arrays("forward_dynamics_derivatives", (q, qd, tau)))
        return dq, dqd, minv

    def inverse_dynamics_second_derivatives(
        self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """Second derivatives of inverse dynamics and the derivative of the mass matrix (kernel ``idsva_so``).

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          qdd: acceleration, shape ``(..., NV)``.

        Returns:
          ``(d2tau_dq2, d2tau_dqdqd, d2tau_dqd2, dM_dq)``, each ``(..., NV, NV, NV)``:
          ``d2tau_dq2[..., i, a, b]`` is the derivative of ``dtau_dq[..., i, a]`` (see
          :meth:`inverse_dynamics_derivatives`) along tangent direction ``b``; ``d2tau_dqdqd[..., i, a, b]``
          that of ``dtau_dqd[..., i, a]`` along tangent direction ``b``; ``d2tau_dqd2[..., i, a, b] =
          ∂²tau_i/∂qd_a∂qd_b``; ``dM_dq[..., i, j, b] = ∂M_ij/∂θ_b``. For a free-flyer the tangent
          derivatives are taken in that order (the first index differentiated first) and are not symmetric.
          Not differentiable further.
        """
        args = self._arrays("inverse_dynamics_second_derivatives", (q, qd, qdd))
        d2q, dqdqd, d2qd, dm = _autodiff.call(self, KERNEL_OF["inverse_dynamics_second_derivatives"], args)
        return d2q, dqdqd, d2qd, dm

    def forward_dynamics_second_derivatives(
        self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike
    ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
        """Second derivatives of forward dynamics (kernel ``fdsva_so``).

        Args:
          q: configuration, shape ``(..., NQ)``.
          qd: velocity, shape ``(..., NV)``.
          tau: joint efforts, shape ``(..., NV)``.

        Returns:
          ``(d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2, dMinv_dq)``, each ``(..., NV, NV, NV)``, indexed as in
          :meth:`inverse_dynamics_second_derivatives` with ``qdd`` for ``tau``; ``dMinv_dq[..., i, j, b] =
          ∂M⁻¹_ij/∂θ_b = ∂²qdd_i/∂tau_j∂θ_b``. The other second derivatives in ``tau`` are zero. Not
          differentiable further.
        """
        args = self._arrays("forward_dynamics_second_derivatives", (q, qd, tau))
        d2q, dqdqd, d2qd, dminv = _autodiff.call(self, KERNEL_OF["forward_dynamics_second_derivatives"], args)
        return d2q, dqdqd, d2qd, dminv

    def frame_jacobians(self, q: ArrayLike) -> jax.Array:
        """World-aligned Jacobians of every frame: the derivatives of :meth:`frame_poses`.

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          ``(..., NF, 6, NV)``: per frame the rows ``[v; omega]`` of :meth:`frame_jacobian`, columns tangent
          directions. Along a tangent ``t``, a frame's origin moves by ``v·t`` and its rotation by
          ``[omega·t]× R``. Differentiable once more (one :meth:`frame_jacobian_derivatives` per frame).
        """
        jac = _autodiff.frame_jacobians(self, *self._arrays("frame_jacobians", (q,)))
        return public_rows(jac, axis=-2)

    def frame_jacobian_derivatives(self, q: ArrayLike, frame: str | int) -> jax.Array:
        """Second-order kinematics of one frame: the derivative of :meth:`frame_jacobian` along every tangent
        direction, from the generated kernel.

        Args:
          q: configuration, shape ``(..., NQ)``.
          frame: a frame name from :attr:`frame_names` or an index; static.

        Returns:
          ``(..., 6, NV, NV)`` with ``[..., r, c, k] = ∂J[r, c] / ∂θ_k`` for tangent directions ``θ_k`` of ``q``
          (see :meth:`configuration_tangent`), rows ``r`` in :meth:`frame_jacobian`'s ``[v; omega]`` order.
          Not differentiable further.
        """
        index = self.frame_index(frame)
        args = self._arrays("frame_jacobian_derivatives", (q,))
        kernel = KERNEL_OF["frame_jacobian_derivatives"]
        return public_rows(_autodiff.call(self, kernel, args, frame=index)[0], axis=-3)

    def configuration_tangent(self, q: ArrayLike, dq: ArrayLike) -> jax.Array:
        """Tangent coordinates of a configuration change: the chain rule from raw ``q`` to the kernels'.

        Args:
          q: configuration, shape ``(..., NQ)``.
          dq: a change of ``q``, shape ``(..., NQ)``.

        Returns:
          ``(..., NV)``: ``dq`` itself for one-coordinate joints; for a free-flyer ``[x y z qx qy qz qw]``
          the body-frame twist ``[R(quat)ᵀ dp; 2 Im(conj(quat) ⊗ dquat) / |quat|²]``. Linear in ``dq``: a
          derivative ``D`` in tangent coordinates gives the change ``D @ configuration_tangent(q, dq)``
          along a raw ``dq``.
        """
        q_arr, dq_arr = self._arrays("frame_poses", (q,))[0], jnp.asarray(dq)
        if dq_arr.shape != q_arr.shape:
            raise ValueError(f"dq must have the shape of q, {tuple(q_arr.shape)}; got {tuple(dq_arr.shape)}")
        return _autodiff.configuration_tangent(self, q_arr, dq_arr.astype(q_arr.dtype))

    # Kinematics -----------------------------------------------------------------------------------

    def frame_poses(self, q: ArrayLike) -> tuple[jax.Array, jax.Array, jax.Array]:
        """World poses of every frame (every URDF link, fixed-joint links included).

        Args:
          q: configuration, shape ``(..., NQ)``.

        Returns:
          A tuple ``(pos, rot, quat)``: frame origins ``(..., NF, 3)``, rotation matrices ``(..., NF, 3, 3)``
          whose columns are the frame axes in world coordinates, and unit quaternions ``(..., NF, 4)``
          ordered ``(x, y, z, w)`` with ``w >= 0``. The frame axis follows :attr:`frame_names`.
        """
        pos, rot, quat = _autodiff.frame_poses(self, *self._arrays("frame_poses", (q,)))
        return pos, rot, quat

    def end_effector_pose(self, q: ArrayLike, frame: str | int) -> tuple[jax.Array, jax.Array, jax.Array]:
        """World pose of one frame.

        Args:
          q: configuration, shape ``(..., NQ)``.
          frame: a frame name from :attr:`frame_names` or an index (negative counts from the end); static.

        Returns:
          A tuple ``(pos, rot, quat)`` of shapes ``(..., 3)``, ``(..., 3, 3)`` and ``(..., 4)`` (``x, y, z, w``).

        Raises:
          ValueError: unknown frame name or index out of range.
        """
        index = self.frame_index(frame)
        pos, rot, quat = self.frame_poses(q)
        return pos[..., index, :], rot[..., index, :, :], quat[..., index, :]

    def multi_target_position(self, q: ArrayLike, frames: Sequence[str | int] | None = None) -> jax.Array:
        """World positions of target frames over a horizon of configurations, in one kernel call
        (``multi_target_position``: each state of the horizon is one sample of the batch).

        Args:
          q: configurations, shape ``(..., T, NQ)``: a horizon of ``T`` states, any ``T`` and any leading
            batch (like every method's batch dimensions: a single state ``(NQ,)`` gives ``(F, 3)``).
          frames: frame names or indices (static); by default every frame, in :attr:`frame_names` order (the
            frames of :meth:`frame_poses` and :meth:`end_effector_pose`).

        Returns:
          ``(..., T, F, 3)``: the frames' origins in world coordinates, :meth:`frame_poses`'s positions.
          Differentiable (through :meth:`multi_target_position_derivatives`), twice.

        Raises:
          ValueError: an unknown frame.
          TypeError: ``frames`` is one name or index rather than a sequence.
        """
        (q_arr,) = self._arrays("multi_target_position", (q,))
        indices = self._target_frames(frames)
        return _select_frames(_autodiff.multi_target_position(self, q_arr), indices, axis=-2)

    def multi_target_position_derivatives(self, q: ArrayLike, frames: Sequence[str | int] | None = None) -> jax.Array:
        """Derivatives of :meth:`multi_target_position` in tangent coordinates, from the generated kernel
        (``multi_target_position_gradient``).

        Args:
          q: configurations, shape ``(..., T, NQ)``.
          frames: frame names or indices (static), as in :meth:`multi_target_position`.

        Returns:
          ``(..., T, F, 3, NV)`` with ``[..., t, f, k, c] = ∂pos[t, f, k] / ∂θ_c`` for tangent directions
          ``θ_c`` of ``q[..., t, :]`` (see :meth:`configuration_tangent`): the rows ``v`` of the frames'
          :meth:`frame_jacobians`. Differentiable once more (through :meth:`frame_jacobian_derivatives`).

        Raises:
          ValueError: an unknown frame.
          TypeError: ``frames`` is one name or index rather than a sequence.
        """
        (q_arr,) = self._arrays("multi_target_position_derivatives", (q,))
        indices = self._target_frames(frames)
        return _select_frames(_autodiff.target_position_grad(self, q_arr), indices, axis=-3)

    def frame_jacobian(self, q: ArrayLike, frame: str | int) -> jax.Array:
        """World-aligned Jacobian of one frame.

        Rows ``[v; omega]`` (Pinocchio's ``LOCAL_WORLD_ALIGNED`` frame Jacobian): the velocity of the frame's
        origin and its angular velocity, both in world coordinates, are ``J @ qd``.

        Args:
          q: configuration, shape ``(..., NQ)``.
          frame: a frame name from :attr:`frame_names` or an index (negative counts from the end); static.

        Returns:
          The Jacobian, shape ``(..., 6, NV)``.

        Raises:
          ValueError: unknown frame name or index out of range.
        """
        index = self.frame_index(frame)
        return public_rows(_autodiff.frame_jacobian(self, index, *self._arrays("frame_jacobian", (q,))), axis=-2)
