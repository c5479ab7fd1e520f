"""MuJoCo Warp as a benchmark peer: its Warp kernels run directly, one CUDA graph per input set, replayed.

The robot is the MJCF that :mod:`bench.peers.mjx` writes from a grid-rbd build's ``model.json`` (nested
bodies placed as the joints, merged inertias, no geoms; constraints, contacts, limits, springs, dampers,
actuation and sensors disabled), so MuJoCo Warp computes the unconstrained rigid-body dynamics grid-rbd does:
``qacc = M⁻¹ (qfrc_applied − qfrc_bias)``. Its ``Data`` is allocated with no room for contacts or constraint
rows (``nconmax = njmax = 0``), where MuJoCo Warp's constraint solver reduces to copying the smooth
acceleration: the cheapest forward dynamics it offers for such a model.

Two operations are timed, each on ``nworld = batch`` worlds:

* ``forward_dynamics_minv``: :func:`mujoco_warp.forward` (kinematics, CRB, RNE, factorisation of M and
  solve) from ``qpos``, ``qvel`` and ``qfrc_applied`` to ``qacc``;
* ``mass_matrix``: :func:`mujoco_warp.kinematics`, :func:`mujoco_warp.com_pos` and :func:`mujoco_warp.crb`
  from ``qpos`` to ``M``, which MuJoCo Warp keeps as the CSR lower triangle of its sparsity pattern.

Inputs are in MuJoCo's conventions (:func:`bench.peers.mjx.to_mujoco`: a free-flyer's quaternion ``wxyz`` and
linear velocity and force in world coordinates), converted outside the timed call; ``qfrc_applied`` takes
grid-rbd's joint efforts ``tau`` as they are (both enter the dynamics with a plus sign). Every input set gets
its own input arrays and its own CUDA graph, captured once after an uncaptured first call (which compiles or
loads the kernels); the worlds' intermediate and output arrays are shared. A timed call is one
:func:`warp.capture_launch` and a device synchronisation: no Python dispatch of the kernels, no JAX.

MuJoCo Warp computes in float32 only. It is timed on a CUDA GPU only; :class:`MjWarpPeer` also runs on Warp's
``cpu`` device (``device="cpu"``, kernels compiled for the host, graphs replayed by Warp's CPU capture), which
serves the correctness check: ``python -m bench.peers.mujoco_warp --check BUILD_DIR [--device cpu]``
compares it with MuJoCo's C library on the same model, and with the build's grid-rbd kernels where
``grid_rbd.jax`` imports.

This module imports neither JAX nor MJX; MuJoCo, MuJoCo Warp and Warp only when a function needs them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.peers.mjx import MISSING as _MJX_MISSING
from bench.peers.mjx import from_mujoco_acceleration, from_mujoco_mass_matrix, model_to_mjcf, to_mujoco
from bench.states import random_states

__all__ = ["MjWarpPeer", "Replay", "available", "importable", "check", "csr_to_dense", "mujoco_reference",
           "FLOAT32_ONLY"]

NOTES = {
    "mass_matrix": "mujoco_warp kinematics, com_pos and crb: M as MuJoCo Warp stores it (CSR lower triangle, "
                   "not densified); one CUDA graph replay per call, no JAX",
    "forward_dynamics_minv": "mujoco_warp.forward: kinematics, CRB, RNE, factorisation of M and solve "
                             "(constraints and contacts disabled, nconmax = njmax = 0, so the constraint solver "
                             "copies qacc_smooth); one CUDA graph replay per call, no JAX; MuJoCo has no ABA, so it "
                             "stands beside grid-rbd's Minv method",
}
MISSING = {
    "inverse_dynamics": "not measured for MuJoCo Warp (the benchmark times its forward dynamics and mass matrix)",
    "frame_poses": "not measured for MuJoCo Warp (the benchmark times its forward dynamics and mass matrix)",
    "minv": "MuJoCo Warp has no routine for M⁻¹ (it factorises M and solves)",
    "forward_dynamics_aba": _MJX_MISSING["forward_dynamics_aba"],
    "inverse_dynamics_derivatives": "MuJoCo Warp has no derivatives of the dynamics in q and v",
    "forward_dynamics_derivatives": "MuJoCo Warp has no derivatives of the dynamics in q and v",
}
FLOAT32_ONLY = "MuJoCo Warp computes in float32 only"
# The Data fields each operation reads, in the order of its arguments.
_FIELDS = {
    "forward_dynamics_minv": ("qpos", "qvel", "qfrc_applied"),
    "mass_matrix": ("qpos",),
}


def _warp():
    """warp, initialised without its banner and per-module load lines (they would go to stdout)."""
    import warp as wp

    wp.config.log_level = max(wp.config.log_level, wp.LOG_WARNING)
    wp.init()
    return wp


def importable() -> str | None:
    """None if mujoco, mujoco_warp and warp import, else why not."""
    try:
        import mujoco  # noqa: F401
        import mujoco_warp  # noqa: F401

        _warp()
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return f"mujoco / mujoco-warp / warp-lang not importable ({type(e).__name__}: {e})"
    return None


def available() -> str | None:
    """None if MuJoCo Warp can be timed here (importable, and Warp sees a CUDA GPU), else why not."""
    why = importable()
    if why:
        return why
    if _warp().get_cuda_device_count() == 0:
        return "MuJoCo Warp is timed on a CUDA GPU only, and Warp finds none"
    return None


def csr_to_dense(mj_model, m_csr: np.ndarray) -> np.ndarray:
    """Dense symmetric ``(..., nv, nv)`` mass matrices from MuJoCo's CSR lower triangle ``(..., nC)``."""
    nv = int(mj_model.nv)
    rows = np.repeat(np.arange(nv), mj_model.M_rownnz)
    cols = np.asarray(mj_model.M_colind)
    dense = np.zeros((*m_csr.shape[:-1], nv, nv), dtype=np.float64)
    dense[..., rows, cols] = m_csr
    dense[..., cols, rows] = m_csr
    return dense


class Replay:
    """One operation on one batch, captured as a graph per input set: :meth:`call` replays set k's graph.

    Made by :meth:`MjWarpPeer.prepare`.

    Attributes:
      first_call_s: the uncaptured first call: Warp compiles the kernels or loads them from its kernel cache.
      capture_s: seconds to capture (and instantiate) one graph, the mean over the input sets.
      batch: the number of worlds.
    """

    def __init__(self, peer: MjWarpPeer, op: str, arg_sets: Sequence[tuple[np.ndarray, ...]]) -> None:
        import mujoco
        import mujoco_warp as mjw

        wp = peer._wp
        self._wp, self.device = wp, peer.device
        fields = _FIELDS[op]
        run: Callable = peer._operation(op)
        self.batch = int(np.shape(arg_sets[0][0])[0])
        with wp.ScopedDevice(self.device):
            base = mjw.put_data(peer.mj_model, mujoco.MjData(peer.mj_model), nworld=self.batch, nconmax=0, njmax=0)
            # Each set's inputs in arrays of its own; everything the operation writes is shared.
            self._worlds = []
            for args in arg_sets:
                if len(args) != len(fields):
                    raise ValueError(f"{op} takes {len(fields)} arrays ({', '.join(fields)}); got {len(args)}")
                arrays = {}
                for name, a in zip(fields, args):
                    a = np.ascontiguousarray(a, dtype=np.float32)
                    if a.shape != tuple(getattr(base, name).shape):
                        raise ValueError(f"{op}: {name} has shape {a.shape}; MuJoCo Warp's is "
                                         f"{tuple(getattr(base, name).shape)}")
                    arrays[name] = wp.array(a, dtype=wp.float32, device=self.device)
                self._worlds.append(dataclasses.replace(base, **arrays))
            self._fields = fields
            self._out = base.qacc if op == "forward_dynamics_minv" else base.M
            t0 = time.perf_counter()
            run(peer.m, self._worlds[0])
            wp.synchronize_device(self.device)
            self.first_call_s = time.perf_counter() - t0
            self._graphs = []
            t0 = time.perf_counter()
            for world in self._worlds:
                with wp.ScopedCapture(device=self.device) as capture:
                    run(peer.m, world)
                self._graphs.append(capture.graph)
            self.capture_s = (time.perf_counter() - t0) / len(self._worlds)

    def call(self, k: int) -> None:
        """Replays input set k's graph and waits for it."""
        self._wp.capture_launch(self._graphs[k])
        self._wp.synchronize_device(self.device)

    def host_call(self, k: int, args: Sequence[np.ndarray]) -> np.ndarray:
        """End to end from NumPy: copies args (set k's arrays, float32) to the device, replays, copies out."""
        world = self._worlds[k]
        for name, a in zip(self._fields, args):
            getattr(world, name).assign(np.asarray(a, dtype=np.float32))
        self._wp.capture_launch(self._graphs[k])
        return self._out.numpy()

    def result(self) -> np.ndarray:
        """The output of the latest replay (``qacc`` ``(batch, nv)`` or ``M`` ``(batch, nC)``), float32."""
        return self._out.numpy()

    def close(self) -> None:
        """Releases the graphs and device arrays."""
        self._graphs.clear()
        self._worlds.clear()
        self._out = None


class MjWarpPeer:
    """MuJoCo Warp on one robot: operations captured per batch and input sets (:meth:`prepare`).

    Args:
      build_dir: a grid-rbd build directory holding model.json.
      device: a Warp device; by default the first CUDA GPU (RuntimeError if there is none). ``"cpu"`` runs
        the kernels on the host, for correctness checks only.

    Attributes:
      model: the parsed model.json.
      mjcf: the MJCF the MuJoCo model is built from.
      repaired: joints whose bodies' inertias MuJoCo rejects and which got the nearest valid ones.
      mj_model: the ``mujoco.MjModel``.
      device: the Warp device.
    """

    def __init__(self, build_dir: str | os.PathLike[str], device: str | None = None) -> None:
        import mujoco
        import mujoco_warp as mjw

        self._wp = wp = _warp()
        if device is None:
            if wp.get_cuda_device_count() == 0:
                raise RuntimeError("MuJoCo Warp is timed on a CUDA GPU only, and Warp finds none "
                                   "(device='cpu' runs it on the host for checks)")
            device = "cuda:0"
        self.device = wp.get_device(device)
        self.model = json.loads((Path(build_dir) / "model.json").read_text())
        self.repaired: list[str] = []
        self.mjcf = model_to_mjcf(self.model, self.repaired)
        self.mj_model = mujoco.MjModel.from_xml_string(self.mjcf)
        if (self.mj_model.nq, self.mj_model.nv) != (self.model["nq"], self.model["nv"]):
            raise ValueError(f"MJCF has nq, nv {self.mj_model.nq}, {self.mj_model.nv}; model.json "
                             f"{self.model['nq']}, {self.model['nv']}")
        with wp.ScopedDevice(self.device):
            self.m = mjw.put_model(self.mj_model)

    def _operation(self, op: str) -> Callable:
        import mujoco_warp as mjw

        def mass_matrix(m, d) -> None:
            mjw.kinematics(m, d)
            mjw.com_pos(m, d)
            mjw.crb(m, d)

        return {"forward_dynamics_minv": mjw.forward, "mass_matrix": mass_matrix}[op]

    def reason_missing(self, op: str, dtype) -> str | None:
        """Why the benchmark has no (op, dtype) cell for MuJoCo Warp, or None."""
        if op in MISSING:
            return MISSING[op]
        if op not in _FIELDS:
            return f"no MuJoCo Warp counterpart of {op}"
        if np.dtype(dtype) != np.float32:
            return FLOAT32_ONLY
        return None

    def inputs(self, op: str, q, qd, qdd, tau) -> tuple[np.ndarray, ...]:
        """grid-rbd inputs (NumPy, batched) as MuJoCo-convention float32 arrays for :meth:`prepare`'s ``op``."""
        if op == "mass_matrix":
            qpos = to_mujoco(self.model, q)[0]
            return (qpos.astype(np.float32),)
        qpos, qvel, _, qfrc = to_mujoco(self.model, q, qd, force=tau)
        return qpos.astype(np.float32), qvel.astype(np.float32), qfrc.astype(np.float32)

    def prepare(self, op: str, arg_sets: Sequence[tuple[np.ndarray, ...]]) -> Replay | str:
        """``op`` captured for each input set (arrays from :meth:`inputs`, one batch), or why there is none."""
        why = self.reason_missing(op, np.float32)
        return why if why else Replay(self, op, arg_sets)

    def compute(self, op: str, q, qd=None, tau=None) -> np.ndarray:
        """``op`` on grid-rbd inputs, in grid-rbd's conventions (float64 copies of float32 results).

        ``forward_dynamics_minv`` gives ``qdd`` ``(batch, nv)``, ``mass_matrix`` the dense ``M``
        ``(batch, nv, nv)``. Runs through :meth:`prepare`, so the captured graph is what is checked.
        """
        q = np.asarray(q, dtype=np.float64)
        replay = self.prepare(op, [self.inputs(op, q, qd, None, tau)])
        if isinstance(replay, str):
            raise ValueError(replay)
        try:
            replay.call(0)
            out = replay.result().astype(np.float64)
        finally:
            replay.close()
        if op == "mass_matrix":
            return from_mujoco_mass_matrix(self.model, q, csr_to_dense(self.mj_model, out))
        return from_mujoco_acceleration(self.model, q, np.asarray(qd, dtype=np.float64), out)

    def close(self) -> None:
        """Releases the device model."""
        self.m = None


# -------------------------------------------------------------------------------------------------------
# Check against MuJoCo's C library and grid-rbd


def mujoco_reference(peer: MjWarpPeer, op: str, q, qd=None, tau=None) -> np.ndarray:
    """``op`` by MuJoCo's C library (float64) on the peer's MuJoCo model, in grid-rbd's conventions."""
    import mujoco

    q = np.asarray(q, dtype=np.float64)
    qpos, qvel, _, qfrc = to_mujoco(peer.model, q, qd, force=tau)
    data = mujoco.MjData(peer.mj_model)
    nv = peer.mj_model.nv
    out = []
    for i in range(q.shape[0]):
        data.qpos[:] = qpos[i]
        if op == "mass_matrix":
            mujoco.mj_forward(peer.mj_model, data)
            dense = np.zeros((nv, nv))
            mujoco.mj_fullM(peer.mj_model, data, dense)
            out.append(dense)
        else:
            data.qvel[:], data.qfrc_applied[:] = qvel[i], qfrc[i]
            mujoco.mj_forward(peer.mj_model, data)
            out.append(data.qacc.copy())
    out = np.asarray(out)
    if op == "mass_matrix":
        return from_mujoco_mass_matrix(peer.model, q, out)
    return from_mujoco_acceleration(peer.model, q, np.asarray(qd, dtype=np.float64), out)


def relative_error(got, want) -> np.ndarray:
    """Per sample: max |got − want| / max |want|."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    axes = tuple(range(1, got.ndim))
    return np.max(np.abs(got - want), axis=axes) / np.maximum(np.max(np.abs(want), axis=axes), 1e-300)


def tolerances(mass_matrices: np.ndarray) -> dict[str, np.ndarray]:
    """Per-sample float32 tolerances: 1e-5 for M, and 1e-7 cond(M) (at least 1e-5) for forward dynamics."""
    cond = np.linalg.cond(mass_matrices)
    return {"mass_matrix": np.full(len(cond), 1e-5), "forward_dynamics_minv": np.maximum(1e-7 * cond, 1e-5)}


def check(build_dir: str, samples: int = 8, seed: int = 0, device: str | None = None) -> list[str]:
    """MuJoCo Warp against MuJoCo's C library and, where ``grid_rbd.jax`` imports, the build's grid-rbd kernels.

    Args:
      device: Warp device; by default the first CUDA GPU, or ``cpu`` where there is none.

    Returns:
      One line per comparison: ``ok``, ``FAIL`` or ``n/a``, with the worst relative error and its tolerance
      (float32 against float64 references; see :func:`tolerances`).
    """

    wp = _warp()
    if device is None and wp.get_cuda_device_count() == 0:
        device = "cpu"
    peer = MjWarpPeer(build_dir, device=device)
    rng = np.random.default_rng(seed)
    # The references get the float32 values MuJoCo Warp computes on: some URDF limits are ±1e5 rad (atlas),
    # where rounding an angle to float32 alone moves a link by millimetres.
    q, qd, _, tau = (a.astype(np.float32).astype(np.float64) for a in random_states(peer.model, samples, rng))
    name = Path(build_dir).resolve().name
    lines = []
    got = {op: peer.compute(op, q, qd, tau) for op in _FIELDS}
    references = {"MuJoCo": {op: mujoco_reference(peer, op, q, qd, tau) for op in _FIELDS}}
    if peer.repaired:
        lines.append(f"n/a  {name} against grid-rbd: MuJoCo rejects the URDF's inertias of the bodies of "
                     f"{', '.join(peer.repaired)}; MuJoCo Warp runs a model with repaired ones")
    else:
        try:
            import jax
            from grid_rbd.jax import JaxRobotHandle

            # on JAX's CPU device: the build need not hold a CUDA library
            with jax.enable_x64(True), jax.default_device(jax.devices("cpu")[0]):
                handle = JaxRobotHandle(os.fspath(Path(build_dir).absolute()))
                references["grid-rbd"] = {"mass_matrix": np.asarray(handle.mass_matrix(q)),
                                          "forward_dynamics_minv": np.asarray(handle.forward_dynamics(q, qd, tau))}
        except Exception as e:  # noqa: BLE001 - no JAX or no built library: MuJoCo remains the reference
            lines.append(f"n/a  {name} against grid-rbd: {type(e).__name__}: {str(e)[:200]}")
    tol = tolerances(references["MuJoCo"]["mass_matrix"])
    for source, ref in references.items():
        for op in _FIELDS:
            err = relative_error(got[op], ref[op])
            worst = int(np.argmax(err / tol[op]))
            ok = bool(np.all(err <= tol[op]))
            lines.append(f"{'ok  ' if ok else 'FAIL'} {name} {op} against {source}: max relative error "
                         f"{err[worst]:.2e} (tolerance {tol[op][worst]:.1e}) over {samples} samples on {peer.device}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", nargs="+", metavar="BUILD_DIR", required=True,
                        help="compare MuJoCo Warp with MuJoCo (and grid-rbd) on these build directories")
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--device", help="Warp device (default: the first CUDA GPU, else cpu)")
    args = parser.parse_args(argv)
    failed = False
    for build in args.check:
        for line in check(build, args.samples, device=args.device):
            print(line)
            failed |= line.startswith("FAIL")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
