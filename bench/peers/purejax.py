"""Rigid-body dynamics written directly in jax.numpy: the benchmarks' pure-JAX peer.

:class:`PureJaxRobot` reads the kinematic tree that ``go tool mage model <urdf> -json=PATH`` exports (and
``go tool mage build`` writes as ``model.json`` beside ``metadata.json``) and implements the project's
algorithms the way a JAX user would without generated kernels: Featherstone's recursions with 6x6 spatial
matrices, unrolled over the tree by Python loops at trace time. Every method takes and returns ONE sample;
batch with ``jax.vmap`` and compile with ``jax.jit``, e.g. ``jax.jit(jax.vmap(robot.inverse_dynamics))``.
Outputs follow the inputs' dtype (float32 or float64).

The per-joint steps of the recursions are small jitted functions of the joint's constants and state. Under
an outer ``jit`` they are inlined, so XLA sees one flat graph; called op by op (no outer ``jit``, as the
oracle tests do to avoid compiling whole humanoids), each step is one compiled call shared by every joint
of its kind.

Conventions are grid-rbd's (docs/architecture.md): spatial vectors ``[angular; linear]``; a free-flyer's
``q = [x y z qx qy qz qw]`` with the rotation of ``quat / |quat|`` and its velocity ``[v_lin; ω]`` in the
base frame; one angle per continuous joint; gravity in world coordinates; derivatives along ``q`` in tangent
coordinates, a free-flyer's being the body twist: ``q ⊕ δ = q · exp(δ)`` (Pinocchio's ``integrate``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.linalg import cho_factor, cho_solve

__all__ = ["PureJaxRobot"]


# -------------------------------------------------------------------------------------------------------
# Spatial algebra


def _cross(a, b):
    """a × b of 3-vectors, written out (jnp.cross's generality costs compile time here)."""
    return jnp.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _skew(v):
    """[v]× of a 3-vector."""
    z = jnp.zeros_like(v[0])
    return jnp.stack([jnp.stack([z, -v[2], v[1]]), jnp.stack([v[2], z, -v[0]]), jnp.stack([-v[1], v[0], z])])


def _quat_rotation(quat):
    """Rotation matrix of quat / |quat|, quat stored (x, y, z, w)."""
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    s = 2.0 / (x * x + y * y + z * z + w * w)
    return jnp.stack([
        jnp.stack([1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)]),
        jnp.stack([s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)]),
        jnp.stack([s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)]),
    ])


def _quat_mul(a, b):
    """Hamilton product, (x, y, z, w) storage."""
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return jnp.concatenate([aw * bv + bw * av + _cross(av, bv), (aw * bw - av @ bv)[None]])


def _rotation_quat(r):
    """Unit quaternion (x, y, z, w), w >= 0, of a rotation matrix (Shepperd: the largest of w, x, y, z comes
    from the diagonal and the others from off-diagonal sums divided by it, so no rotation loses precision)."""
    tr = r[0, 0] + r[1, 1] + r[2, 2]
    # 4w², 4x², 4y², 4z² of the unit quaternion
    sq = jnp.stack([1 + tr, 1 + 2 * r[0, 0] - tr, 1 + 2 * r[1, 1] - tr, 1 + 2 * r[2, 2] - tr])
    s = 2.0 * jnp.sqrt(jnp.maximum(sq, jnp.finfo(r.dtype).tiny))
    cands = jnp.stack([
        jnp.stack([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1], s[0] ** 2 / 4]) / s[0],
        jnp.stack([s[1] ** 2 / 4, r[0, 1] + r[1, 0], r[0, 2] + r[2, 0], r[2, 1] - r[1, 2]]) / s[1],
        jnp.stack([r[0, 1] + r[1, 0], s[2] ** 2 / 4, r[1, 2] + r[2, 1], r[0, 2] - r[2, 0]]) / s[2],
        jnp.stack([r[0, 2] + r[2, 0], r[1, 2] + r[2, 1], s[3] ** 2 / 4, r[1, 0] - r[0, 1]]) / s[3],
    ])
    quat = cands[jnp.argmax(sq)]
    quat = quat / jnp.linalg.norm(quat)
    return jnp.where(quat[3] < 0, -quat, quat)


def _exp_so3_quat(w):
    """exp of a rotation vector as a unit quaternion; a Taylor branch near zero keeps jacfwd at 0 finite."""
    th2 = w @ w
    small = th2 < 1e-8
    th = jnp.sqrt(jnp.where(small, 1.0, th2))
    sin_half = jnp.where(small, 0.5 - th2 / 48, jnp.sin(th / 2) / th)  # sin(θ/2) / θ
    cos_half = jnp.where(small, 1 - th2 / 8, jnp.cos(th / 2))
    return jnp.concatenate([sin_half * w, cos_half[None]])


def _exp_se3_translation(w, u):
    """V(ω)·u, the translation of exp([ω; u]) for a body twist: V = I + a[ω]× + b[ω]×²."""
    th2 = w @ w
    small = th2 < 1e-8
    safe2 = jnp.where(small, 1.0, th2)
    th = jnp.sqrt(safe2)
    a = jnp.where(small, 0.5 - th2 / 24, (1 - jnp.cos(th)) / safe2)
    b = jnp.where(small, 1.0 / 6 - th2 / 120, (th - jnp.sin(th)) / (th * safe2))
    wu = _cross(w, u)
    return u + a * wu + b * _cross(w, wu)


def _motion_cross(v, m):
    """v ×ₘ m for spatial motions [ω; v]."""
    w, lin = v[:3], v[3:]
    return jnp.concatenate([_cross(w, m[:3]), _cross(w, m[3:]) + _cross(lin, m[:3])])


def _force_cross(v, f):
    """v ×* f for a spatial motion v and a spatial force [n; f]."""
    w, lin = v[:3], v[3:]
    return jnp.concatenate([_cross(w, f[:3]) + _cross(lin, f[3:]), _cross(w, f[3:])])


# -------------------------------------------------------------------------------------------------------
# Per-joint steps (see the module docstring for why they are jitted)


@jax.jit
def _revolute_pose(rot, pos, axis, angle):
    """Body pose in the parent body: placement, then a rotation by angle about axis (Rodrigues)."""
    k = _skew(axis)
    motion = jnp.eye(3, dtype=rot.dtype) + jnp.sin(angle) * k + (1 - jnp.cos(angle)) * (k @ k)
    return rot @ motion, pos


@jax.jit
def _prismatic_pose(rot, pos, axis, d):
    return rot, pos + rot @ (axis * d)


@jax.jit
def _free_flyer_pose(rot, pos, qj):
    return rot @ _quat_rotation(qj[3:7]), pos + rot @ qj[:3]


@jax.jit
def _compose(parent_rot, parent_pos, rot, pos):
    """World pose of a child posed at (rot, pos) in a parent at (parent_rot, parent_pos)."""
    return parent_rot @ rot, parent_pos + parent_rot @ pos


@jax.jit
def _frame_pose(body_rot, body_pos, rot, pos):
    """World rotation, position and quaternion of a frame placed at (rot, pos) on a body."""
    rot, pos = _compose(body_rot, body_pos, rot, pos)
    return rot, pos, _rotation_quat(rot)


@jax.jit
def _free_flyer_integrate(qj, dv):
    """[x y z quat] ⊕ [v_lin; ω] = the pose composed with exp of the body twist on the right."""
    pos, quat = qj[:3], qj[3:]
    u, w = dv[:3], dv[3:]
    return jnp.concatenate([pos + _quat_rotation(quat) @ _exp_se3_translation(w, u),
                            _quat_mul(quat, _exp_so3_quat(w))])


@jax.jit
def _plucker(rot, pos):
    """Motion transform parent -> child of a child posed at (rot, pos): [E 0; -E[pos]× E], E = rotᵀ."""
    e = rot.T
    z = jnp.zeros((3, 3), rot.dtype)
    return jnp.block([[e, z], [-e @ _skew(pos), e]])


@jax.jit
def _rnea_forward(x, s, inertia, v_parent, a_parent, qd_j, qdd_j):
    """Body velocity, acceleration and the force that produces them (Newton-Euler)."""
    v_joint = s @ qd_j
    v = x @ v_parent + v_joint
    a = x @ a_parent + s @ qdd_j + _motion_cross(v, v_joint)
    return v, a, inertia @ a + _force_cross(v, inertia @ v)


@jax.jit
def _rnea_backward(x, s, f, f_parent):
    """The joint's effort, and the body's force added to its parent's."""
    return s.T @ f, f_parent + x.T @ f


@jax.jit
def _to_parent_inertia(x, inertia, parent_inertia):
    """parent + Xᵀ I X: a (composite or articulated) inertia moved to the parent body and added."""
    return parent_inertia + x.T @ inertia @ x


@jax.jit
def _crba_column(x, s_ancestor, force):
    """The momentum of a subtree moved to the parent body, and the mass-matrix block it gives there."""
    force = x.T @ force
    return force, s_ancestor.T @ force


@jax.jit
def _aba_velocity(x, s, inertia, v_parent, qd_j):
    """Body velocity, velocity-product acceleration and bias force of the articulated-body algorithm."""
    v_joint = s @ qd_j
    v = x @ v_parent + v_joint
    return v, _motion_cross(v, v_joint), _force_cross(v, inertia @ v)


@jax.jit
def _aba_joint(s, art, bias, tau_j):
    """U = IᴬS, D⁻¹ = (SᵀU)⁻¹ and u = τ - Sᵀpᴬ of a joint."""
    u_mat = art @ s
    d = s.T @ u_mat
    d_inv = 1.0 / d if s.shape[1] == 1 else jnp.linalg.inv(d)
    return u_mat, d_inv, tau_j - s.T @ bias


@jax.jit
def _aba_to_parent(x, u_mat, d_inv, u_vec, art, bias, c, parent_art, parent_bias):
    """The articulated inertia and bias force a body passes on to its parent."""
    gain = u_mat @ d_inv
    art_a = art - gain @ u_mat.T
    bias_a = bias + art_a @ c + gain @ u_vec
    return parent_art + x.T @ art_a @ x, parent_bias + x.T @ bias_a


@jax.jit
def _aba_acceleration(x, s, u_mat, d_inv, u_vec, c, a_parent):
    """The joint acceleration and the body's spatial acceleration."""
    a = x @ a_parent + c
    qdd_j = d_inv @ (u_vec - u_mat.T @ a)
    return qdd_j, a + s @ qdd_j


# -------------------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class _Joint:
    name: str
    kind: str  # revolute | continuous | prismatic | free-flyer
    parent: int
    q: int  # first configuration coordinate
    v: int  # first velocity coordinate
    nv: int
    axis: np.ndarray  # (3,) in the joint frame
    rot: np.ndarray  # placement in the parent body: rotation (3, 3) ...
    pos: np.ndarray  # ... and translation (3,)
    inertia: np.ndarray  # (6, 6) spatial inertia about the body origin
    subspace: np.ndarray  # (6, nv) motion subspace in body coordinates

    def cast(self, dtype) -> _Joint:
        """The joint with its arrays in dtype (constants must not promote float32 inputs)."""
        return _Joint(self.name, self.kind, self.parent, self.q, self.v, self.nv,
                      *(a.astype(dtype) for a in (self.axis, self.rot, self.pos, self.inertia, self.subspace)))


@dataclass(frozen=True)
class _Frame:
    name: str
    joint: int  # -1: fixed in the world
    rot: np.ndarray
    pos: np.ndarray

    def cast(self, dtype) -> _Frame:
        return _Frame(self.name, self.joint, self.rot.astype(dtype), self.pos.astype(dtype))


def _np_skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _spatial_inertia(mass: float, com: np.ndarray, rot_com: np.ndarray) -> np.ndarray:
    """[Ī [h]×; -[h]× m·1] about the body origin from mass, centre of mass and the inertia about it."""
    cx = _np_skew(com)
    i_origin = rot_com - mass * cx @ cx  # parallel axis theorem
    return np.block([[i_origin, mass * cx], [-mass * cx, mass * np.eye(3)]])


def _subspace(kind: str, axis: np.ndarray) -> np.ndarray:
    if kind in ("revolute", "continuous"):
        return np.concatenate([axis, np.zeros(3)])[:, None]
    if kind == "prismatic":
        return np.concatenate([np.zeros(3), axis])[:, None]
    # a free-flyer's velocity [v_lin; ω] is the spatial motion [ω; v_lin]
    s = np.zeros((6, 6))
    s[3:, :3] = np.eye(3)
    s[:3, 3:] = np.eye(3)
    return s


def _pose(p: dict) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(p["rotation"], dtype=np.float64), np.asarray(p["translation"], dtype=np.float64)


class PureJaxRobot:
    """A robot's dynamics in plain JAX, from its exported model (see the module docstring).

    Attributes:
      name, nq, nv, floating_base: as in the exported model.
      gravity: linear gravitational acceleration in world coordinates (the model's, or as given).
      joint_names, frame_names: the order of every input and output (grid_rbd's order).
    """

    def __init__(self, model: dict, gravity=None) -> None:
        self.model = model
        self.name: str = model["name"]
        self.nq: int = int(model["nq"])
        self.nv: int = int(model["nv"])
        self.floating_base: bool = bool(model["floating_base"])
        self.gravity = tuple(float(g) for g in (model["gravity"] if gravity is None else gravity))
        joints = []
        for j in model["joints"]:
            axis = np.asarray(j["axis"], dtype=np.float64)
            rot, pos = _pose(j["placement"])
            inertia = j["inertia"]
            joints.append(_Joint(
                name=j["name"], kind=j["type"], parent=int(j["parent"]), q=int(j["q_index"]),
                v=int(j["v_index"]), nv=int(j["nv"]), axis=axis, rot=rot, pos=pos,
                inertia=_spatial_inertia(float(inertia["mass"]), np.asarray(inertia["com"], dtype=np.float64),
                                         np.asarray(inertia["rotational_inertia"], dtype=np.float64)),
                subspace=_subspace(j["type"], axis)))
        for i, j in enumerate(joints):
            if j.kind not in ("revolute", "continuous", "prismatic", "free-flyer"):
                raise ValueError(f"{self.name}: joint {j.name} has unsupported type {j.kind!r}")
            # the recursions need parents before children and velocity blocks in joint order
            if j.parent >= i or (i > 0 and j.v != joints[i - 1].v + joints[i - 1].nv):
                raise ValueError(f"{self.name}: joint {j.name} breaks the exported joint order")
        self._joints64 = tuple(joints)
        self._frames64 = tuple(_Frame(f["name"], int(f["joint"]), *_pose(f["placement"])) for f in model["frames"])
        self.joint_names = [j.name for j in joints]
        self.frame_names = [f.name for f in self._frames64]
        self._cast: dict = {}

    @classmethod
    def from_json(cls, path: str | os.PathLike[str], gravity=None) -> PureJaxRobot:
        """Loads an exported model: a JSON file, or a build directory holding model.json."""
        p = Path(path)
        if p.is_dir():
            p = p / "model.json"
        return cls(json.loads(p.read_text()), gravity)

    def with_gravity(self, gravity) -> PureJaxRobot:
        """The same robot under another gravity (world coordinates)."""
        return PureJaxRobot(self.model, gravity)

    def _joints(self, dtype) -> tuple[_Joint, ...]:
        """The joints with their constants in dtype, made once per dtype."""
        key = ("joints", np.dtype(dtype))
        if key not in self._cast:
            self._cast[key] = tuple(j.cast(dtype) for j in self._joints64)
        return self._cast[key]

    def _frames(self, dtype) -> tuple[_Frame, ...]:
        key = ("frames", np.dtype(dtype))
        if key not in self._cast:
            self._cast[key] = tuple(f.cast(dtype) for f in self._frames64)
        return self._cast[key]

    # ---------------------------------------------------------------------------------------------------
    # Kinematics

    def _joint_poses(self, q):
        """Per joint, the body's pose (rotation, translation) in its parent body at q."""
        out = []
        for j in self._joints(q.dtype):
            if j.kind in ("revolute", "continuous"):
                out.append(_revolute_pose(j.rot, j.pos, j.axis, q[j.q]))
            elif j.kind == "prismatic":
                out.append(_prismatic_pose(j.rot, j.pos, j.axis, q[j.q]))
            else:
                out.append(_free_flyer_pose(j.rot, j.pos, q[j.q : j.q + 7]))
        return out

    def body_poses(self, q):
        """World pose (rotation, position) of every body at q."""
        q = jnp.asarray(q)
        world = []
        for j, (rot, pos) in zip(self._joints(q.dtype), self._joint_poses(q)):
            world.append((rot, pos) if j.parent < 0 else _compose(*world[j.parent], rot, pos))
        return world

    def frame_poses(self, q):
        """World poses of every frame at q, as grid_rbd's ``frame_poses``.

        Returns:
          ``(pos, rot, quat)`` of shapes ``(NF, 3)``, ``(NF, 3, 3)`` (columns: the frame axes in world
          coordinates) and ``(NF, 4)`` (x, y, z, w with w >= 0), frames in :attr:`frame_names` order.
        """
        q = jnp.asarray(q)
        bodies = self.body_poses(q)
        world = (np.eye(3, dtype=q.dtype), np.zeros(3, q.dtype))
        poses = [_frame_pose(*(world if f.joint < 0 else bodies[f.joint]), f.rot, f.pos)
                 for f in self._frames(q.dtype)]
        return tuple(jnp.stack([p[k] for p in poses]) for k in (1, 0, 2))

    def integrate(self, q, dv):
        """q ⊕ dv: coordinates add; a free-flyer follows its body twist, q · exp(dv) (Pinocchio's)."""
        q, dv = jnp.asarray(q), jnp.asarray(dv)
        single = [j for j in self._joints64 if j.kind != "free-flyer"]
        out = q.at[np.array([j.q for j in single], dtype=int)].add(dv[np.array([j.v for j in single], dtype=int)])
        for j in self._joints64:
            if j.kind == "free-flyer":
                out = out.at[j.q : j.q + 7].set(_free_flyer_integrate(q[j.q : j.q + 7], dv[j.v : j.v + 6]))
        return out

    # ---------------------------------------------------------------------------------------------------
    # Dynamics

    def _transforms(self, q):
        """Per joint, the 6x6 motion transform from the parent body to the body at q."""
        return [_plucker(rot, pos) for rot, pos in self._joint_poses(q)]

    def _world_acceleration(self, dtype, with_gravity: bool = True):
        """The world's spatial acceleration: [0; -g] stands in for gravity acting on every body."""
        g = np.asarray(self.gravity) if with_gravity else np.zeros(3)
        return np.concatenate([np.zeros(3), -g]).astype(dtype)

    def _rnea(self, q, qd, qdd, with_gravity: bool = True):
        q, qd, qdd = jnp.asarray(q), jnp.asarray(qd), jnp.asarray(qdd)
        joints = self._joints(q.dtype)
        xs = self._transforms(q)
        rest = np.zeros(6, q.dtype)
        world = self._world_acceleration(q.dtype, with_gravity)
        vel, acc, force = [], [], []
        for x, j in zip(xs, joints):
            v_parent, a_parent = (rest, world) if j.parent < 0 else (vel[j.parent], acc[j.parent])
            v, a, f = _rnea_forward(x, j.subspace, j.inertia, v_parent, a_parent,
                                    qd[j.v : j.v + j.nv], qdd[j.v : j.v + j.nv])
            vel.append(v)
            acc.append(a)
            force.append(f)
        tau = [None] * len(joints)
        for i in reversed(range(len(joints))):
            j = joints[i]
            if j.parent < 0:
                tau[i] = j.subspace.T @ force[i]
            else:
                tau[i], force[j.parent] = _rnea_backward(xs[i], j.subspace, force[i], force[j.parent])
        return jnp.concatenate(tau)

    def inverse_dynamics(self, q, qd, qdd):
        """τ = M(q)·qdd + C(q, qd)·qd + g(q), by the recursive Newton-Euler algorithm."""
        return self._rnea(q, qd, qdd)

    def bias_forces(self, q, qd):
        """C(q, qd)·qd + g(q)."""
        return self._rnea(q, qd, jnp.zeros_like(qd))

    def gravity_forces(self, q):
        """g(q)."""
        z = jnp.zeros(self.nv, jnp.asarray(q).dtype)
        return self._rnea(q, z, z)

    def mass_matrix(self, q):
        """M(q), by the composite-rigid-body algorithm."""
        q = jnp.asarray(q)
        joints = self._joints(q.dtype)
        xs = self._transforms(q)
        composite = [j.inertia for j in joints]
        for i in reversed(range(len(joints))):
            p = joints[i].parent
            if p >= 0:
                composite[p] = _to_parent_inertia(xs[i], composite[i], composite[p])
        # Only blocks of a joint and its ancestors are non-zero: scatter them (both triangles) into M.
        rows, cols, values = [], [], []

        def put(a, b, block):
            ra, cb = np.meshgrid(np.arange(a.v, a.v + a.nv), np.arange(b.v, b.v + b.nv), indexing="ij")
            rows.append(ra.ravel())
            cols.append(cb.ravel())
            values.append(block.ravel())

        for i, j in enumerate(joints):
            force = composite[i] @ j.subspace  # the subtree's momentum per unit qd_i
            put(j, j, j.subspace.T @ force)
            k = i
            while joints[k].parent >= 0:
                force, block = _crba_column(xs[k], joints[joints[k].parent].subspace, force)
                k = joints[k].parent
                put(joints[k], j, block)
                put(j, joints[k], block.T)
        m = jnp.zeros((self.nv, self.nv), q.dtype)
        return m.at[np.concatenate(rows), np.concatenate(cols)].set(jnp.concatenate(values))

    def minv(self, q):
        """M(q)⁻¹, from a Cholesky factorisation of the CRBA mass matrix."""
        m = self.mass_matrix(q)
        return cho_solve(cho_factor(m, lower=True), jnp.eye(self.nv, dtype=m.dtype))

    def forward_dynamics(self, q, qd, tau):
        """qdd = M(q)⁻¹ (τ - C(q, qd)·qd - g(q)), M from CRBA solved by Cholesky."""
        m = self.mass_matrix(q)
        return cho_solve(cho_factor(m, lower=True), jnp.asarray(tau) - self.bias_forces(q, qd))

    def aba(self, q, qd, tau):
        """qdd, by the articulated-body algorithm."""
        q, qd, tau = jnp.asarray(q), jnp.asarray(qd), jnp.asarray(tau)
        joints = self._joints(q.dtype)
        xs = self._transforms(q)
        n = len(joints)
        rest = np.zeros(6, q.dtype)
        vel, c, art, bias = [], [], [], []
        for x, j in zip(xs, joints):
            v_parent = rest if j.parent < 0 else vel[j.parent]
            v, c_j, bias_j = _aba_velocity(x, j.subspace, j.inertia, v_parent, qd[j.v : j.v + j.nv])
            vel.append(v)
            c.append(c_j)
            art.append(j.inertia)
            bias.append(bias_j)
        u_mat, d_inv, u_vec = [None] * n, [None] * n, [None] * n
        for i in reversed(range(n)):
            j = joints[i]
            u_mat[i], d_inv[i], u_vec[i] = _aba_joint(j.subspace, art[i], bias[i], tau[j.v : j.v + j.nv])
            if j.parent >= 0:
                art[j.parent], bias[j.parent] = _aba_to_parent(xs[i], u_mat[i], d_inv[i], u_vec[i], art[i],
                                                               bias[i], c[i], art[j.parent], bias[j.parent])
        world = self._world_acceleration(q.dtype)
        acc, qdd = [], []
        for i, j in enumerate(joints):
            qdd_j, a = _aba_acceleration(xs[i], j.subspace, u_mat[i], d_inv[i], u_vec[i], c[i],
                                         world if j.parent < 0 else acc[j.parent])
            qdd.append(qdd_j)
            acc.append(a)
        return jnp.concatenate(qdd)

    # ---------------------------------------------------------------------------------------------------
    # First derivatives: forward-mode autodiff in tangent coordinates

    def _state_jacobian(self, f, q, qd):
        """(d f(q ⊕ δ, qd) / dδ at δ = 0, d f / d qd): one jacfwd over both, 2·NV tangent directions."""
        q, qd = jnp.asarray(q), jnp.asarray(qd)
        jac = jax.jacfwd(lambda x: f(self.integrate(q, x[: self.nv]), qd + x[self.nv :]))(
            jnp.zeros(2 * self.nv, q.dtype))
        return jac[:, : self.nv], jac[:, self.nv :]

    def inverse_dynamics_derivatives(self, q, qd, qdd):
        """(∂τ/∂q, ∂τ/∂qd), each (NV, NV), as grid_rbd's and Pinocchio's computeRNEADerivatives."""
        return self._state_jacobian(lambda x, v: self.inverse_dynamics(x, v, qdd), q, qd)

    def forward_dynamics_derivatives(self, q, qd, tau):
        """(∂qdd/∂q, ∂qdd/∂qd, M⁻¹), each (NV, NV), as grid_rbd's; differentiates :meth:`aba`."""
        dq, dqd = self._state_jacobian(lambda x, v: self.aba(x, v, tau), q, qd)
        return dq, dqd, self.minv(q)
