"""The inputs every benchmark implementation is timed on: valid random states of a robot's exported model.

Its own module so that bench/run.py and the peers' self-checks (bench/peers/) share it without importing
each other.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["random_states"]


def random_states(model: dict, batch: int, rng: np.random.Generator):
    """Valid random states of an exported model (model.json), float64: ``(q, qd, qdd, tau)``.

    Joint angles and offsets are uniform within the URDF limits (±π, or ±1 m for prismatic joints, where
    there are none); a free-flyer's position is uniform in [-1, 1]³ and its quaternion uniform on the unit
    sphere; velocities uniform in [-1, 1], accelerations and efforts standard normal.
    """
    nq, nv = int(model["nq"]), int(model["nv"])
    q = np.empty((batch, nq))
    for j in model["joints"]:
        i = int(j["q_index"])
        if j["type"] == "free-flyer":
            q[:, i : i + 3] = rng.uniform(-1, 1, (batch, 3))
            quat = rng.normal(size=(batch, 4))
            q[:, i + 3 : i + 7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
            continue
        lim = j.get("limits") or {}
        lo, hi = lim.get("lower"), lim.get("upper")
        if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
            lo, hi = (-1.0, 1.0) if j["type"] == "prismatic" else (-math.pi, math.pi)
        q[:, i] = rng.uniform(lo, hi, batch)
    qd = rng.uniform(-1, 1, (batch, nv))
    qdd = rng.normal(size=(batch, nv))
    tau = rng.normal(size=(batch, nv))
    return q, qd, qdd, tau
