"""Differentiation rules of the JAX handle: every derivative comes from a generated derivative kernel.

Each differentiable method is a :func:`jax.custom_jvp` whose rule calls the robot's derivative kernels on
the primal inputs and contracts their outputs with the tangents. The contractions are linear in the
tangents, so JAX transposes them for reverse mode (``grad``, ``vjp``, ``jacrev``) and batches them under
``vmap``; no dynamics are re-traced in JAX.

Derivatives with respect to ``q`` are taken in tangent coordinates by the kernels. The rules map a raw
configuration tangent ``dq`` (shape ``NQ``) to tangent coordinates (shape ``NV``) first, with
:func:`configuration_tangent`: the identity for one-coordinate joints, and for a free-flyer
``[x y z qx qy qz qw]`` the body-frame twist ``[Rᵀ·dp; 2·Im(conj(quat) ⊗ dquat) / |quat|²]``. The kernels
read the rotation of ``quat / |quat|``, so this chain rule is exact for any non-zero quaternion and a radial
``dquat`` has no effect.

The first-derivative kernels are differentiable in turn through the second-order kernels (``idsva_so``,
``fdsva_so``, ``end_effector_pose_hessian``, the latter also for ``multi_target_position_gradient``), and
every rule calls the differentiable functions, so second
derivatives (``jax.hessian``, a ``grad`` of a ``grad``) compose. A third derivative, or a second derivative
of :func:`frame_jacobian` (third-order kinematics), reaches a kernel without a rule and raises
:class:`NotImplementedError` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from ._kernels import KERNEL_OF, forward_dynamics_kernel

if TYPE_CHECKING:
    from .jax import JaxRobotHandle

__all__ = [
    "bias_forces",
    "call",
    "configuration_tangent",
    "free_flyer_tangent",
    "fd_grad",
    "frame_jacobians",
    "id_grad",
    "forward_dynamics",
    "frame_jacobian",
    "frame_poses",
    "gravity_forces",
    "inverse_dynamics",
    "mass_matrix",
    "minv",
    "multi_target_position",
    "target_position_grad",
]


def _is_zero(t: Any) -> bool:
    return isinstance(t, SymbolicZero)


def _mv(a: jax.Array, x: jax.Array) -> jax.Array:
    """Batched matrix-vector product over leading dimensions: a (..., m, n), x (..., n) -> (..., m)."""
    return jnp.einsum("...ij,...j->...i", a, x)


def _sum(terms: Sequence[jax.Array | None], like: jax.Array) -> jax.Array:
    present = [t for t in terms if t is not None]
    if not present:
        return jnp.zeros(like.shape, like.dtype)
    out = present[0]
    for t in present[1:]:
        out = out + t
    return out


def _quat_mul(a: jax.Array, b: jax.Array) -> jax.Array:
    """Hamilton product of quaternions stored (x, y, z, w) in the last axis."""
    av, aw = a[..., :3], a[..., 3:]
    bv, bw = b[..., :3], b[..., 3:]
    vec = aw * bv + bw * av + jnp.cross(av, bv)
    w = aw * bw - jnp.sum(av * bv, axis=-1, keepdims=True)
    return jnp.concatenate([vec, w], axis=-1)


def _rotation(quat: jax.Array) -> jax.Array:
    """Rotation matrix (body to world) of quat / |quat|, quat (x, y, z, w)."""
    x, y, z, w = (quat[..., k] for k in range(4))
    s = 2.0 / jnp.sum(quat * quat, axis=-1)
    rows = [
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
    ]
    return jnp.stack([jnp.stack(r, axis=-1) for r in rows], axis=-2)


def free_flyer_tangent(q: jax.Array, dq: jax.Array) -> jax.Array:
    """A free-flyer's ``[v_lin; ω]`` (..., 6) from a raw change ``dq`` (..., 7) of its ``[x y z qx qy qz qw]``
    at ``q``: ``v_lin = Rᵀ·dp`` and ``ω = 2·Im(conj(quat) ⊗ dquat) / |quat|²``. Linear in ``dq``."""
    quat = q[..., 3:7]
    v_lin = jnp.einsum("...ji,...j->...i", _rotation(quat), dq[..., :3])
    conj = quat * jnp.array([-1.0, -1.0, -1.0, 1.0], dtype=quat.dtype)
    norm2 = jnp.sum(quat * quat, axis=-1, keepdims=True)
    omega = 2.0 * _quat_mul(conj, dq[..., 3:7])[..., :3] / norm2
    return jnp.concatenate([v_lin, omega], axis=-1)


def configuration_tangent(handle: JaxRobotHandle, q: jax.Array, dq: jax.Array) -> jax.Array:
    """Maps a raw configuration tangent ``dq`` (..., NQ) at ``q`` to tangent coordinates (..., NV).

    Linear in ``dq``. One-coordinate joints pass through; a free-flyer's block becomes its body-frame
    twist (:func:`free_flyer_tangent`).
    """
    pieces: list[jax.Array] = []
    for name in handle.joint_names:
        q_slice, _ = handle.joint_coordinates(name)
        qi = q_slice.start
        if q_slice.stop - qi == 1:
            pieces.append(dq[..., qi : qi + 1])
            continue
        pieces.append(free_flyer_tangent(q[..., qi : qi + 7], dq[..., qi : qi + 7]))
    return jnp.concatenate(pieces, axis=-1)


def _kernel(handle: JaxRobotHandle, algorithm: str, *args: Any, frame: int | None = None,
            method: int | None = None) -> list[jax.Array]:
    """A kernel's outputs; differentiating them (a second derivative) raises NotImplementedError."""
    return list(_first_order_only(handle, algorithm, frame, method, *args))


def _first_order_only_impl(
    handle: JaxRobotHandle, algorithm: str, frame: int | None, method: int | None, *args: Any
) -> tuple[jax.Array, ...]:
    return tuple(handle.kernel_call(algorithm, args, frame=frame, method=method))


_first_order_only = jax.custom_jvp(_first_order_only_impl, nondiff_argnums=(0, 1, 2, 3))


@_first_order_only.defjvp
def _first_order_only_jvp(
    handle: JaxRobotHandle, algorithm: str, frame: int | None, method: int | None, primals: Any, tangents: Any
) -> Any:
    raise NotImplementedError(
        f"grid_rbd: differentiating the {algorithm} kernel of robot {handle.name!r} needs derivatives of "
        "an order the generated kernels do not provide (first and second derivatives of the dynamics and "
        "kinematics are supported, except second derivatives of frame_jacobian); use finite differences "
        "of the highest supported derivative instead."
    )


# ---------------------------------------------------------------------------------------------------------
# Differentiable first-derivative kernels (their derivatives come from the second-order kernels)


def _id_grad_impl(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, qdd: jax.Array) -> tuple[jax.Array, jax.Array]:
    dq, dqd = _kernel(handle, KERNEL_OF["inverse_dynamics_derivatives"], q, qd, qdd)
    return dq, dqd


def _id_grad_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    q, qd, qdd = primals
    dq, dqd, dqdd = tangents
    out = id_grad(handle, q, qd, qdd)
    t_qq, t_vq, t_vv, dm_dq = _kernel(handle, KERNEL_OF["inverse_dynamics_second_derivatives"], q, qd, qdd)
    d_dq: list[jax.Array | None] = []
    d_dqd: list[jax.Array | None] = []
    if not _is_zero(dq):
        theta = configuration_tangent(handle, q, dq)
        d_dq.append(jnp.einsum("...iab,...b->...ia", t_qq, theta))
        d_dqd.append(jnp.einsum("...iab,...b->...ia", t_vq, theta))
    if not _is_zero(dqd):
        d_dq.append(jnp.einsum("...iba,...b->...ia", t_vq, dqd))
        d_dqd.append(jnp.einsum("...iab,...b->...ia", t_vv, dqd))
    if not _is_zero(dqdd):
        d_dq.append(jnp.einsum("...ija,...j->...ia", dm_dq, dqdd))
    return out, (_sum(d_dq, out[0]), _sum(d_dqd, out[1]))


def _fd_grad_impl(
    handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, tau: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    dq, dqd, minv = _kernel(handle, KERNEL_OF["forward_dynamics_derivatives"], q, qd, tau)
    return dq, dqd, minv


def _fd_grad_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    q, qd, tau = primals
    dq, dqd, dtau = tangents
    out = fd_grad(handle, q, qd, tau)
    s_qq, s_vq, s_vv, dminv_dq = _kernel(handle, KERNEL_OF["forward_dynamics_second_derivatives"], q, qd, tau)
    d_dq: list[jax.Array | None] = []
    d_dqd: list[jax.Array | None] = []
    d_minv: list[jax.Array | None] = []
    if not _is_zero(dq):
        theta = configuration_tangent(handle, q, dq)
        d_dq.append(jnp.einsum("...iab,...b->...ia", s_qq, theta))
        d_dqd.append(jnp.einsum("...iab,...b->...ia", s_vq, theta))
        d_minv.append(jnp.einsum("...ijb,...b->...ij", dminv_dq, theta))
    if not _is_zero(dqd):
        d_dq.append(jnp.einsum("...iba,...b->...ia", s_vq, dqd))
        d_dqd.append(jnp.einsum("...iab,...b->...ia", s_vv, dqd))
    if not _is_zero(dtau):
        # ∂(∂qdd/∂θ_a)/∂τ_j = ∂M⁻¹_ij/∂θ_a; ∂qdd/∂qd and M⁻¹ do not depend on τ
        d_dq.append(jnp.einsum("...ija,...j->...ia", dminv_dq, dtau))
    return out, (_sum(d_dq, out[0]), _sum(d_dqd, out[1]), _sum(d_minv, out[2]))


def _frame_jacobians_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["frame_jacobians"], q)[0]


def _frame_jacobian_changes(handle: JaxRobotHandle, q: jax.Array, dq: jax.Array) -> jax.Array:
    """Every frame's Jacobian change along a raw ``dq``, (..., NF, 6, NV) in the kernels' rows [ω; v]: one
    end_effector_pose_hessian call per frame."""
    theta = configuration_tangent(handle, q, dq)
    dj = [
        jnp.einsum("...rck,...k->...rc", _kernel(handle, KERNEL_OF["frame_jacobian_derivatives"], q, frame=f)[0], theta)
        for f in range(handle.n_frames)
    ]
    return jnp.stack(dj, axis=-3)


def _frame_jacobians_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    return frame_jacobians(handle, q), _frame_jacobian_changes(handle, q, dq)


def _target_position_grad_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["multi_target_position_derivatives"], q)[0]


def _target_position_grad_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    """The position rows (v, the kernels' rows 3 to 5) of every frame's Jacobian change."""
    (q,) = primals
    (dq,) = tangents
    return target_position_grad(handle, q), _frame_jacobian_changes(handle, q, dq)[..., 3:, :]


# ---------------------------------------------------------------------------------------------------------
# Differentiable methods


def _inverse_dynamics_impl(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array, qdd: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["inverse_dynamics"], q, qd, qdd)[0]


def _inverse_dynamics_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    q, qd, qdd = primals
    dq, dqd, dqdd = tangents
    tau = inverse_dynamics(handle, q, qd, qdd)
    terms: list[jax.Array | None] = []
    if not (_is_zero(dq) and _is_zero(dqd)):
        dtau_dq, dtau_dqd = id_grad(handle, q, qd, qdd)
        if not _is_zero(dq):
            terms.append(_mv(dtau_dq, configuration_tangent(handle, q, dq)))
        if not _is_zero(dqd):
            terms.append(_mv(dtau_dqd, dqd))
    if not _is_zero(dqdd):
        terms.append(_mv(mass_matrix(handle, q), dqdd))
    return tau, _sum(terms, tau)


def _bias_forces_impl(handle: JaxRobotHandle, q: jax.Array, qd: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["bias_forces"], q, qd)[0]


def _bias_forces_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    q, qd = primals
    dq, dqd = tangents
    tau = bias_forces(handle, q, qd)
    dtau_dq, dtau_dqd = id_grad(handle, q, qd, jnp.zeros_like(qd))
    terms: list[jax.Array | None] = []
    if not _is_zero(dq):
        terms.append(_mv(dtau_dq, configuration_tangent(handle, q, dq)))
    if not _is_zero(dqd):
        terms.append(_mv(dtau_dqd, dqd))
    return tau, _sum(terms, tau)


def _gravity_forces_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["gravity_forces"], q)[0]


def _gravity_forces_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    tau = gravity_forces(handle, q)
    zero = jnp.zeros(q.shape[:-1] + (handle.nv,), q.dtype)
    dtau_dq, _ = id_grad(handle, q, zero, zero)
    return tau, _mv(dtau_dq, configuration_tangent(handle, q, dq))


def _mass_matrix_directional(handle: JaxRobotHandle, q: jax.Array, dq: jax.Array) -> jax.Array:
    """dM = Σ_k ∂M/∂θ_k · δθ_k. Column j of M is RNEA(q, 0, e_j) without gravity, so ∂M[:, j]/∂θ is the
    ∂τ/∂q of inverse_dynamics_gradient at (q, 0, e_j), gravity zero: one batch of NV samples."""
    nv = handle.nv
    lead = q.shape[:-1]
    qs = jnp.broadcast_to(q[..., None, :], lead + (nv, q.shape[-1]))
    zeros = jnp.zeros(lead + (nv, nv), q.dtype)
    units = jnp.broadcast_to(jnp.eye(nv, dtype=q.dtype), lead + (nv, nv))
    weightless = handle.with_gravity((0.0, 0.0, 0.0))
    dcols, _ = id_grad(weightless, qs, zeros, units)  # (..., j, i, k)
    theta = configuration_tangent(handle, q, dq)
    return jnp.einsum("...jik,...k->...ij", dcols, theta)


def _mass_matrix_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["mass_matrix"], q)[0]


def _mass_matrix_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    return mass_matrix(handle, q), _mass_matrix_directional(handle, q, dq)


def _minv_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["minv"], q)[0]


def _minv_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    m_inv = minv(handle, q)
    dm = _mass_matrix_directional(handle, q, dq)
    return m_inv, -m_inv @ dm @ m_inv


def _forward_dynamics_impl(handle: JaxRobotHandle, method: str, q: jax.Array, qd: jax.Array, tau: jax.Array) -> jax.Array:
    return _kernel(handle, forward_dynamics_kernel(method), q, qd, tau)[0]


def _forward_dynamics_jvp(handle: JaxRobotHandle, method: str, primals: Any, tangents: Any) -> Any:
    q, qd, tau = primals
    dq, dqd, dtau = tangents
    qdd = forward_dynamics(handle, method, q, qd, tau)
    dqdd_dq, dqdd_dqd, m_inv = fd_grad(handle, q, qd, tau)
    terms: list[jax.Array | None] = []
    if not _is_zero(dq):
        terms.append(_mv(dqdd_dq, configuration_tangent(handle, q, dq)))
    if not _is_zero(dqd):
        terms.append(_mv(dqdd_dqd, dqd))
    if not _is_zero(dtau):
        terms.append(_mv(m_inv, dtau))
    return qdd, _sum(terms, qdd)


def _frame_poses_impl(handle: JaxRobotHandle, q: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    pos, rot, quat = _kernel(handle, KERNEL_OF["frame_poses"], q)
    return pos, rot, quat


def _frame_poses_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    pos, rot, quat = frame_poses(handle, q)
    jac = frame_jacobians(handle, q)  # (..., NF, 6, NV), the kernel's rows [ω; v]
    theta = configuration_tangent(handle, q, dq)
    twist = jnp.einsum("...frk,...k->...fr", jac, theta)
    omega, vel = twist[..., :3], twist[..., 3:]
    # dR = [ω]× R (world-frame angular velocity); dquat = ½ (ω, 0) ⊗ quat
    drot = jnp.cross(omega[..., :, None, :], jnp.swapaxes(rot, -1, -2), axis=-1)
    drot = jnp.swapaxes(drot, -1, -2)
    omega_quat = jnp.concatenate([omega, jnp.zeros_like(omega[..., :1])], axis=-1)
    dquat = 0.5 * _quat_mul(omega_quat, quat)
    return (pos, rot, quat), (vel, drot, dquat)


def _multi_target_position_impl(handle: JaxRobotHandle, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["multi_target_position"], q)[0]


def _multi_target_position_jvp(handle: JaxRobotHandle, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    dpos = target_position_grad(handle, q)  # (..., NF, 3, NV)
    theta = configuration_tangent(handle, q, dq)
    return multi_target_position(handle, q), jnp.einsum("...fkc,...c->...fk", dpos, theta)


def _frame_jacobian_impl(handle: JaxRobotHandle, frame: int, q: jax.Array) -> jax.Array:
    return _kernel(handle, KERNEL_OF["frame_jacobian"], q, frame=frame)[0]


def _frame_jacobian_jvp(handle: JaxRobotHandle, frame: int, primals: Any, tangents: Any) -> Any:
    (q,) = primals
    (dq,) = tangents
    jac = frame_jacobian(handle, frame, q)
    (hess,) = _kernel(handle, KERNEL_OF["frame_jacobian_derivatives"], q, frame=frame)  # (..., 6, NV, NV)
    return jac, jnp.einsum("...rck,...k->...rc", hess, configuration_tangent(handle, q, dq))


def _defjvp(impl: Callable[..., Any], rule: Callable[..., Any], nondiff: tuple[int, ...]) -> Any:
    f = jax.custom_jvp(impl, nondiff_argnums=nondiff)
    f.defjvp(rule, symbolic_zeros=True)
    return f


inverse_dynamics = _defjvp(_inverse_dynamics_impl, _inverse_dynamics_jvp, (0,))
bias_forces = _defjvp(_bias_forces_impl, _bias_forces_jvp, (0,))
gravity_forces = _defjvp(_gravity_forces_impl, _gravity_forces_jvp, (0,))
mass_matrix = _defjvp(_mass_matrix_impl, _mass_matrix_jvp, (0,))
minv = _defjvp(_minv_impl, _minv_jvp, (0,))
forward_dynamics = _defjvp(_forward_dynamics_impl, _forward_dynamics_jvp, (0, 1))
frame_poses = _defjvp(_frame_poses_impl, _frame_poses_jvp, (0,))
frame_jacobian = _defjvp(_frame_jacobian_impl, _frame_jacobian_jvp, (0, 1))
id_grad = _defjvp(_id_grad_impl, _id_grad_jvp, (0,))
fd_grad = _defjvp(_fd_grad_impl, _fd_grad_jvp, (0,))
frame_jacobians = _defjvp(_frame_jacobians_impl, _frame_jacobians_jvp, (0,))
multi_target_position = _defjvp(_multi_target_position_impl, _multi_target_position_jvp, (0,))
target_position_grad = _defjvp(_target_position_grad_impl, _target_position_grad_jvp, (0,))



def call(handle: JaxRobotHandle, algorithm: str, args: Sequence[Any], frame: int | None = None,
         method: int | None = None) -> list[jax.Array]:
    """A kernel call that is not differentiable: a derivative through it raises NotImplementedError."""
    return _kernel(handle, algorithm, *args, frame=frame, method=method)
