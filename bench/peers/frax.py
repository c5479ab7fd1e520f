"""frax (PyPI ``frax``, StanfordASL): rigid-body dynamics written in JAX, as a benchmark peer.

frax builds its model from the URDF itself, so the peer reads the robot's URDF from the roster (bench/roster.py:
$GRID_ROBOTS_DIR, ../shared/robots or shared/robots) with grid-rbd's joint order. Fixed-base robots only: frax's free-flyer
state (``floating_base="quaternion"``) follows other conventions than grid-rbd's, and no conversion is written.

Operations: inverse dynamics (``rnea``, gravity entered as the base's upward spatial acceleration
``[0, 0, 9.81, 0, 0, 0]``, frax's own convention), the mass matrix (``mass_matrix``, CRBA), M⁻¹
(``mass_matrix_inverse`` of it), forward dynamics (``forward_dynamics``: CRBA, RNEA and a Cholesky solve,
beside grid-rbd's M⁻¹ method) and link poses (``link_to_world_transforms``). frax has no ABA and no
analytical derivatives. ``check`` compares every one with grid-rbd.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from bench import roster

NOTES = {
    "inverse_dynamics": "frax Robot.rnea (gravity as base acceleration [0, 0, 9.81, 0, 0, 0])",
    "mass_matrix": "frax Robot.mass_matrix (CRBA)",
    "minv": "frax Robot.mass_matrix_inverse of Robot.mass_matrix",
    "forward_dynamics_minv": "frax Robot.forward_dynamics: CRBA, RNEA and a Cholesky solve",
    "frame_poses": "frax Robot.link_to_world_transforms (4x4 per link)",
}
UNSUPPORTED = {
    "forward_dynamics_aba": "frax has no articulated-body algorithm (its forward dynamics is under forward_dynamics_minv)",
    "inverse_dynamics_derivatives": "frax has no analytical derivatives (autodiff through it not measured)",
    "forward_dynamics_derivatives": "frax has no analytical derivatives (autodiff through it not measured)",
}
GRAVITY_ACCEL = (0.0, 0.0, 9.81, 0.0, 0.0, 0.0)


def available() -> str | None:
    try:
        import frax.core.robot  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return f"frax not importable ({type(e).__name__}: {e}); pip install frax"
    return None


def urdf_path(robot: str) -> Path:
    return roster.urdf_path(robot)


class FraxPeer:
    """One robot in frax, with grid-rbd's joint order."""

    def __init__(self, build_dir: Path, model: dict) -> None:
        if model["floating_base"]:
            raise NotImplementedError("free-flyer conventions of frax are not converted (fixed-base robots only)")
        from frax.core.robot import Robot

        joints = [j["name"] for j in model["joints"]]
        try:
            self.robot = Robot(os.fspath(urdf_path(Path(build_dir).name)), joint_ordering=joints)
        except AttributeError as e:  # frax's parser on a link without <inertial>
            raise ValueError(f"frax cannot load {Path(build_dir).name}.urdf ({e})") from e

    def function(self, op: str, dtype):
        import jax
        import jax.numpy as jnp

        if op in UNSUPPORTED:
            return UNSUPPORTED[op]
        r = self.robot
        if op == "inverse_dynamics":
            def f(q, qd, qdd):
                return r.rnea(q, qd, qdd, jnp.asarray(GRAVITY_ACCEL, q.dtype), None)
        elif op == "mass_matrix":
            f = r.mass_matrix
        elif op == "minv":
            def f(q):
                return r.mass_matrix_inverse(r.mass_matrix(q))
        elif op == "forward_dynamics_minv":
            def f(q, qd, tau):
                return r.forward_dynamics(q, qd, tau, None)
        elif op == "frame_poses":
            f = r.link_to_world_transforms
        else:
            return f"frax has no counterpart of {op}"
        return jax.vmap(f)


def check(build_dir: str, samples: int = 8, seed: int = 0) -> list[str]:
    """frax against grid-rbd in float64 (jax_enable_x64 on): one line per operation, FAIL on a mismatch."""
    import json

    import jax

    from grid_rbd.jax import JaxRobotHandle

    d = Path(build_dir)
    model = json.loads((d / "model.json").read_text())
    name = d.name
    try:
        peer = FraxPeer(d, model)
    except (NotImplementedError, ValueError) as e:
        return [f"skip {name}: {e}"]
    handle = JaxRobotHandle(d)
    rng = np.random.default_rng(seed)
    lo, hi = np.asarray(handle.position_limits[0]), np.asarray(handle.position_limits[1])
    lo, hi = np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)
    n = handle.nv
    q = rng.uniform(lo, hi, (samples, n))
    qd, qdd, tau = (rng.standard_normal((samples, n)) for _ in range(3))
    expected = {
        "inverse_dynamics": ((q, qd, qdd), handle.inverse_dynamics(q, qd, qdd)),
        "mass_matrix": ((q,), handle.mass_matrix(q)),
        "minv": ((q,), handle.minv(q)),
        "forward_dynamics_minv": ((q, qd, tau), handle.forward_dynamics(q, qd, tau)),
    }
    lines = []
    for op, (args, want) in expected.items():
        got = jax.jit(peer.function(op, np.float64))(*args)
        err = float(np.max(np.abs(np.asarray(got) - np.asarray(want))) / max(1.0, float(np.max(np.abs(want)))))
        lines.append(f"{'ok  ' if err < 1e-8 else 'FAIL'} {name} {op}: relative error {err:.2e}")
    return lines
