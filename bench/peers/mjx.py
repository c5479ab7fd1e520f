"""MuJoCo MJX as a benchmark peer: a grid-rbd build's model.json converted to MJCF and run through MJX.

:func:`model_to_mjcf` writes the kinematic tree that ``go tool mage build`` exports (``model.json``) as an
MJCF document: one nested ``<body>`` per joint, placed by the joint's placement, carrying the joint (hinge,
slide or free) and the body's merged inertia as ``<inertial pos mass fullinertia>``. There are no geoms,
actuators or sensors, and constraints, contacts, springs and dampers are disabled, so MuJoCo computes the
same rigid-body dynamics as grid-rbd.

Conventions differ for a free-flyer only:

* ``qpos`` is ``[x y z qw qx qy qz]`` (grid-rbd: ``[x y z qx qy qz qw]``);
* ``qvel`` is ``[ṗ (world); ω (body)]`` (grid-rbd: ``[Rᵀṗ; ω]``, both in the body frame), so with
  ``T = diag(R, I)`` on the base block, ``qvel = T v``, ``qacc = T (v̇ + [ω × v_lin; 0])``, generalised
  forces ``f_mj = T f`` (T is orthogonal) and ``M = Tᵀ M_mj T``.

:func:`to_mujoco` and :func:`from_mujoco_*` convert; ``python -m bench.peers.mjx --check BUILD_DIR`` compares MJX
with the build's grid-rbd kernels (CPU) on random states: mass matrix, inverse and forward dynamics.

Only importing this module's functions that need MuJoCo imports it (``mujoco`` and ``mujoco-mjx``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from bench.states import random_states

__all__ = ["MjxPeer", "model_to_mjcf", "to_mujoco", "available"]

# Operations MJX offers, with what each measures (the benchmark's notes).
NOTES = {
    "inverse_dynamics": "mjx.inverse: kinematics, CRB, RNE and M·qacc (constraints disabled)",
    "mass_matrix": "mjx kinematics, com_pos, crb and full_m (dense M)",
    "forward_dynamics_minv": "mjx.forward: kinematics, CRB, factorisation of M, RNE and solve (constraints "
                             "disabled); MuJoCo has no ABA, so it stands beside grid-rbd's Minv method",
    "frame_poses": "mjx.kinematics: body poses (xpos, xquat, xmat); URDF links on fixed joints are not "
                   "separate MuJoCo bodies",
}
MISSING = {
    "minv": "MJX has no routine for M⁻¹ (it factorises M and solves)",
    "forward_dynamics_aba": "MuJoCo has no articulated-body algorithm (its forward dynamics is under "
                            "forward_dynamics_minv)",
    # jax.jacfwd through mjx.forward compiles for minutes per robot and measures JAX's autodiff, not MJX
    "inverse_dynamics_derivatives": "MJX has no derivatives of the dynamics (autodiff through it not measured)",
    "forward_dynamics_derivatives": "MJX has no derivatives of the dynamics (autodiff through it not measured)",
}


def available() -> str | None:
    """None if mujoco and mujoco.mjx import, else why not."""
    try:
        import mujoco  # noqa: F401
        from mujoco import mjx  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return f"mujoco / mujoco-mjx not importable ({type(e).__name__}: {e})"
    return None


# -------------------------------------------------------------------------------------------------------
# MJCF


def _rotation_to_wxyz(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's choice of the largest term)."""
    tr = np.trace(r)
    sq = np.array([1 + tr, 1 + 2 * r[0, 0] - tr, 1 + 2 * r[1, 1] - tr, 1 + 2 * r[2, 2] - tr])
    k = int(np.argmax(sq))
    s = 2.0 * np.sqrt(max(sq[k], 0.0))
    if k == 0:
        q = [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif k == 1:
        q = [(r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif k == 2:
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s]
    else:
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4]
    q = np.asarray(q) / np.linalg.norm(q)
    return -q if q[0] < 0 else q


def _num(x: float) -> str:
    return repr(float(x))


def _vec(v) -> str:
    return " ".join(_num(x) for x in v)


def physical_inertia(c: np.ndarray) -> np.ndarray | None:
    """None if MuJoCo accepts the rotational inertia c, else the nearest one it accepts.

    MuJoCo requires positive principal moments satisfying the triangle inequality (A + B >= C); some URDFs
    (atlas) violate both. The repair keeps the principal axes, lifts non-positive moments to a small
    positive value and raises a moment above the sum of the other two to that sum (MuJoCo's balanceinertia).
    """
    e, v = np.linalg.eigh(c)
    floor = 1e-6 * max(float(np.max(np.abs(e))), 1e-12)
    fixed = np.maximum(e, floor)
    if np.all(e > 0) and all(e[i] <= e[(i + 1) % 3] + e[(i + 2) % 3] for i in range(3)):
        return None
    for i in range(3):
        # a hair inside the bound: MuJoCo re-diagonalises, and rounding must not push it back out
        others = (fixed[(i + 1) % 3] + fixed[(i + 2) % 3]) * (1 - 1e-9)
        fixed[i] = min(fixed[i], others)
    return (v * fixed) @ v.T


def model_to_mjcf(model: dict, repaired: list[str] | None = None) -> str:
    """MJCF of an exported grid-rbd model (the parsed model.json).

    Args:
      model: the parsed model.json.
      repaired: if given, inertias MuJoCo would reject are replaced by :func:`physical_inertia` and the joint
        names of their bodies appended here (the model then differs from grid-rbd's); if None, they raise.

    Raises:
      ValueError: a joint type MuJoCo cannot express here, a free-flyer with a non-identity placement (MuJoCo's
        free joint places the body in the world directly), or a rejected inertia with ``repaired`` None.
    """
    joints = model["joints"]
    children: dict[int, list[int]] = {}
    for i, j in enumerate(joints):
        children.setdefault(int(j["parent"]), []).append(i)
    lines = [
        f"<mujoco model={quoteattr(model['name'])}>",
        # No geoms give no inertia: the inertials below are the only mass. boundmass/boundinertia keep a
        # massless intermediate body (a URDF link without <inertial>) loadable; it adds at most 1e-9 kg.
        '  <compiler angle="radian" autolimits="true" boundmass="1e-9" boundinertia="1e-12"/>',
        f'  <option gravity="{_vec(model["gravity"])}">',
        '    <flag constraint="disable" contact="disable" limit="disable" equality="disable" '
        'frictionloss="disable" spring="disable" damper="disable" actuation="disable" sensor="disable"/>',
        "  </option>",
        "  <worldbody>",
    ]

    def body(i: int, depth: int) -> None:
        j = joints[i]
        pad = "  " * depth
        rot = np.asarray(j["placement"]["rotation"], dtype=np.float64)
        pos = np.asarray(j["placement"]["translation"], dtype=np.float64)
        kind = j["type"]
        if kind == "free-flyer" and (np.abs(rot - np.eye(3)).max() > 1e-12 or np.abs(pos).max() > 1e-12):
            raise ValueError(f"{model['name']}: free-flyer {j['name']} has a non-identity placement")
        lines.append(f"{pad}<body name={quoteattr('body_' + j['name'])} pos=\"{_vec(pos)}\" "
                     f"quat=\"{_vec(_rotation_to_wxyz(rot))}\">")
        name = quoteattr(j["name"])
        if kind == "free-flyer":
            lines.append(f"{pad}  <freejoint name={name}/>")
        elif kind in ("revolute", "continuous", "prismatic"):
            axis = np.asarray(j["axis"], dtype=np.float64)
            axis = axis / np.linalg.norm(axis)
            mj_type = "slide" if kind == "prismatic" else "hinge"
            lim = j.get("limits") or {}
            rng = ""
            if kind != "continuous" and lim.get("lower") is not None and lim.get("upper") is not None:
                rng = f' range="{_num(lim["lower"])} {_num(lim["upper"])}"'
            lines.append(f'{pad}  <joint name={name} type="{mj_type}" axis="{_vec(axis)}"{rng}/>')
        else:
            raise ValueError(f"{model['name']}: joint {j['name']} has type {kind!r}, not converted to MJCF")
        inertia = j["inertia"]
        c = np.asarray(inertia["rotational_inertia"], dtype=np.float64)
        if float(inertia["mass"]) > 0 and (fixed := physical_inertia(c)) is not None:
            if repaired is None:
                raise ValueError(f"{model['name']}: body of joint {j['name']} has an inertia MuJoCo rejects "
                                 f"(principal moments {np.linalg.eigvalsh(c)})")
            repaired.append(j["name"])
            c = fixed
        full = [c[0, 0], c[1, 1], c[2, 2], c[0, 1], c[0, 2], c[1, 2]]
        lines.append(f'{pad}  <inertial pos="{_vec(inertia["com"])}" mass="{_num(inertia["mass"])}" '
                     f'fullinertia="{_vec(full)}"/>')
        for k in children.get(i, []):
            body(k, depth + 1)
        lines.append(f"{pad}</body>")

    for i in children.get(-1, []):
        body(i, 2)
    lines += ["  </worldbody>", "</mujoco>", ""]
    return "\n".join(lines)


# -------------------------------------------------------------------------------------------------------
# Conventions


def _quat_matrix_xyzw(quat: np.ndarray) -> np.ndarray:
    """Rotation matrices of quat / |quat| for (..., 4) quaternions stored (x, y, z, w)."""
    q = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def _free_blocks(model: dict) -> list[tuple[int, int]]:
    """(q_index, v_index) of every free-flyer."""
    return [(int(j["q_index"]), int(j["v_index"])) for j in model["joints"] if j["type"] == "free-flyer"]


def to_mujoco(model: dict, q, qd=None, acc=None, force=None):
    """grid-rbd states (batched, ``(..., NQ)`` and ``(..., NV)``) in MuJoCo's conventions.

    Returns:
      ``(qpos, qvel, qacc, qfrc)``; an argument left ``None`` gives ``None``. ``acc`` is an acceleration
      (``qdd``, needs ``qd``), ``force`` a generalised force (``tau``).
    """
    q = np.array(q, dtype=np.float64)
    qpos = q.copy()
    qvel = None if qd is None else np.array(qd, dtype=np.float64)
    qacc = None if acc is None else np.array(acc, dtype=np.float64)
    qfrc = None if force is None else np.array(force, dtype=np.float64)
    for iq, iv in _free_blocks(model):
        quat = q[..., iq + 3 : iq + 7]
        rot = _quat_matrix_xyzw(quat)
        qpos[..., iq + 3] = quat[..., 3]
        qpos[..., iq + 4 : iq + 7] = quat[..., :3]
        if qvel is not None:
            v, w = qd[..., iv : iv + 3], qd[..., iv + 3 : iv + 6]
            qvel[..., iv : iv + 3] = np.einsum("...ij,...j->...i", rot, v)
            if qacc is not None:
                a = acc[..., iv : iv + 3] + np.cross(w, v)
                qacc[..., iv : iv + 3] = np.einsum("...ij,...j->...i", rot, a)
        if qfrc is not None:
            qfrc[..., iv : iv + 3] = np.einsum("...ij,...j->...i", rot, force[..., iv : iv + 3])
    return qpos, qvel, qacc, qfrc


def from_mujoco_acceleration(model: dict, q, qd, qacc):
    """MuJoCo's ``qacc`` as grid-rbd's ``qdd`` at the grid-rbd state (q, qd)."""
    out = np.array(qacc, dtype=np.float64)
    for iq, iv in _free_blocks(model):
        rot = _quat_matrix_xyzw(np.asarray(q)[..., iq + 3 : iq + 7])
        v, w = qd[..., iv : iv + 3], qd[..., iv + 3 : iv + 6]
        out[..., iv : iv + 3] = np.einsum("...ji,...j->...i", rot, qacc[..., iv : iv + 3]) - np.cross(w, v)
    return out


def from_mujoco_force(model: dict, q, qfrc):
    """MuJoCo's generalised force as grid-rbd's (a free-flyer's linear part into the body frame)."""
    out = np.array(qfrc, dtype=np.float64)
    for iq, iv in _free_blocks(model):
        rot = _quat_matrix_xyzw(np.asarray(q)[..., iq + 3 : iq + 7])
        out[..., iv : iv + 3] = np.einsum("...ji,...j->...i", rot, qfrc[..., iv : iv + 3])
    return out


def from_mujoco_mass_matrix(model: dict, q, m_mj):
    """MuJoCo's M (for qvel) as grid-rbd's: ``Tᵀ M_mj T`` with ``qvel = T v``."""
    q = np.asarray(q)
    nv = m_mj.shape[-1]
    t = np.broadcast_to(np.eye(nv), m_mj.shape).copy()
    for iq, iv in _free_blocks(model):
        t[..., iv : iv + 3, iv : iv + 3] = _quat_matrix_xyzw(q[..., iq + 3 : iq + 7])
    return np.swapaxes(t, -1, -2) @ m_mj @ t


# -------------------------------------------------------------------------------------------------------
# The peer


class MjxPeer:
    """MJX functions of one robot, batched with ``jax.vmap``; inputs in MuJoCo's conventions.

    Args:
      build_dir: a grid-rbd build directory holding model.json.
      impl: MJX's implementation, ``"jax"`` (default) or ``"warp"`` (MuJoCo Warp under MJX; CUDA only).
    """

    def __init__(self, build_dir: str | os.PathLike[str], impl: str = "jax") -> None:
        import mujoco
        from mujoco import mjx

        self._mujoco, self._mjx = mujoco, mjx
        self.model = json.loads((Path(build_dir) / "model.json").read_text())
        # Bodies whose inertia MuJoCo rejects get the nearest one it accepts: same cost, other values.
        self.repaired: list[str] = []
        self.mjcf = model_to_mjcf(self.model, self.repaired)
        self.mj_model = mujoco.MjModel.from_xml_string(self.mjcf)
        if (self.mj_model.nq, self.mj_model.nv) != (self.model["nq"], self.model["nv"]):
            raise ValueError(f"MJCF has nq, nv {self.mj_model.nq}, {self.mj_model.nv}; model.json "
                             f"{self.model['nq']}, {self.model['nv']}")
        self.impl = impl
        self._models: dict = {}

    def _device_model(self, dtype):
        """mjx.Model with floating-point leaves in dtype (MJX keeps the dtype of its model's arrays)."""
        import jax
        import jax.numpy as jnp

        key = np.dtype(dtype)
        if key not in self._models:
            m = self._mjx.put_model(self.mj_model, impl=self.impl)
            if self.impl == "jax":
                m = jax.tree_util.tree_map(
                    lambda x: x.astype(key) if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jnp.floating)
                    else x, m)
            self._models[key] = m
        return self._models[key]

    def _data(self, m, dtype):
        import jax
        import jax.numpy as jnp

        d = self._mjx.make_data(m, impl=self.impl)
        if self.impl == "jax":
            d = jax.tree_util.tree_map(
                lambda x: x.astype(dtype) if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jnp.floating)
                else x, d)
        return d

    def function(self, op: str, dtype):
        """The batched function of ``op`` on MuJoCo-convention arrays, or a string saying why there is none.

        Arguments are those of grid-rbd's method converted by :meth:`inputs`.
        """
        if op in MISSING:
            return MISSING[op]
        if op not in NOTES:
            return f"no MJX counterpart of {op}"
        if self.impl != "jax" and op != "forward_dynamics_minv":
            return f"only forward dynamics is measured with MJX impl={self.impl}"
        import jax

        mjx = self._mjx
        m = self._device_model(dtype)
        d0 = self._data(m, np.dtype(dtype))

        def inverse(qpos, qvel, qacc):
            return mjx.inverse(m, d0.replace(qpos=qpos, qvel=qvel, qacc=qacc)).qfrc_inverse

        def forward(qpos, qvel, qfrc):
            return mjx.forward(m, d0.replace(qpos=qpos, qvel=qvel, qfrc_applied=qfrc)).qacc

        def mass(qpos):
            d = d0.replace(qpos=qpos)
            d = mjx.kinematics(m, d)
            d = mjx.com_pos(m, d)
            d = mjx.crb(m, d)
            return mjx.full_m(m, d)

        def poses(qpos):
            d = mjx.kinematics(m, d0.replace(qpos=qpos))
            return d.xpos, d.xquat, d.xmat

        single = {
            "inverse_dynamics": inverse,
            "forward_dynamics_minv": forward,
            "mass_matrix": mass,
            "frame_poses": poses,
        }[op]
        return jax.vmap(single)

    def inputs(self, op: str, q, qd, qdd, tau):
        """grid-rbd inputs (NumPy, batched) as the arguments of :meth:`function`'s ``op``."""
        if op in ("mass_matrix", "frame_poses"):
            return (to_mujoco(self.model, q)[0],)
        if op == "inverse_dynamics":
            qpos, qvel, qacc, _ = to_mujoco(self.model, q, qd, acc=qdd)
            return qpos, qvel, qacc
        qpos, qvel, _, qfrc = to_mujoco(self.model, q, qd, force=tau)
        return qpos, qvel, qfrc


# -------------------------------------------------------------------------------------------------------
# Check against grid-rbd


def check(build_dir: str, samples: int = 8, seed: int = 0) -> list[str]:
    """MJX against the build's grid-rbd kernels (CPU, float64): mass matrix, inverse and forward dynamics.

    Returns:
      One line per comparison, ``ok`` or ``FAIL`` with the worst relative error.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    from grid_rbd.jax import JaxRobotHandle


    handle = JaxRobotHandle(os.fspath(Path(build_dir).absolute()))
    peer = MjxPeer(build_dir)
    rng = np.random.default_rng(seed)
    q, qd, qdd, tau = random_states(peer.model, samples, rng)
    lines = []

    def compare(name, got, want, tol=1e-9):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        axes = tuple(range(1, got.ndim))
        err = np.max(np.abs(got - want), axis=axes) / np.maximum(np.max(np.abs(want), axis=axes), 1e-300)
        worst = float(np.max(err))
        lines.append(f"{'ok  ' if worst <= tol else 'FAIL'} {handle.name} {name}: max relative error "
                     f"{worst:.2e} over {samples} samples (tolerance {tol:.0e})")

    f64 = np.float64
    # kinematics needs no inertia: every body's pose against the grid-rbd frame of its link
    xpos, _, xmat = peer.function("frame_poses", f64)(*peer.inputs("frame_poses", q, qd, qdd, tau))
    pos, rot, _ = handle.frame_poses(q)
    body_ids = [peer.mj_model.body(f"body_{j['name']}").id for j in peer.model["joints"]]
    frames = [handle.frame_index(j["link"]) for j in peer.model["joints"]]
    compare("body poses (positions)", np.asarray(xpos)[:, body_ids], np.asarray(pos)[:, frames])
    compare("body poses (rotations)", np.asarray(xmat).reshape(samples, -1, 3, 3)[:, body_ids],
            np.asarray(rot)[:, frames])
    if peer.repaired:
        # the MuJoCo model's inertias differ from grid-rbd's here, so dynamics cannot agree; timing is fair
        lines.append(f"n/a  {handle.name} dynamics: not compared: MuJoCo rejects the URDF's inertias of the bodies "
                     f"of {', '.join(peer.repaired)}; the benchmark times a model with repaired ones")
        return lines
    m_mj = np.asarray(peer.function("mass_matrix", f64)(*peer.inputs("mass_matrix", q, qd, qdd, tau)))
    compare("mass matrix", from_mujoco_mass_matrix(peer.model, q, m_mj), handle.mass_matrix(q))
    tau_mj = np.asarray(peer.function("inverse_dynamics", f64)(*peer.inputs("inverse_dynamics", q, qd, qdd, tau)))
    compare("inverse dynamics", from_mujoco_force(peer.model, q, tau_mj), handle.inverse_dynamics(q, qd, qdd))
    acc_mj = np.asarray(peer.function("forward_dynamics_minv", f64)(
        *peer.inputs("forward_dynamics_minv", q, qd, qdd, tau)))
    compare("forward dynamics", from_mujoco_acceleration(peer.model, q, qd, acc_mj),
            handle.forward_dynamics(q, qd, tau), tol=1e-8)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", nargs="+", metavar="BUILD_DIR", required=True,
                        help="compare MJX with grid-rbd on these build directories")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--mjcf", metavar="DIR", help="also write each robot's MJCF into DIR")
    args = parser.parse_args(argv)
    failed = False
    for build in args.check:
        if args.mjcf:
            model = json.loads((Path(build) / "model.json").read_text())
            Path(args.mjcf).mkdir(parents=True, exist_ok=True)
            (Path(args.mjcf) / f"{Path(build).name}.xml").write_text(model_to_mjcf(model))
        for line in check(build, args.samples):
            print(line)
            failed |= line.startswith("FAIL")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
