"""Pinocchio on the CPU cores as a benchmark peer.

The Pinocchio model is built from the build's ``model.json`` (the same tree, placements and merged inertias
grid-rbd compiles), not re-parsed from the URDF, so inputs need no conversion: Pinocchio's free-flyer is
grid-rbd's ``[x y z qx qy qz qw]`` with body-frame velocities, and a continuous joint becomes a revolute
joint with one angle (grid-rbd's convention; Pinocchio's URDF parser would give it ``(cos, sin)``).
Revolute and prismatic joints along +x, +y or +z use Pinocchio's specialised joint models, as its URDF
parser does.

Batches run on ``threads`` CPU cores (default: all):

* inverse dynamics and ABA through Pinocchio's own OpenMP batch API (``rneaInParallel``,
  ``abaInParallel``);
* everything else (CRBA, M⁻¹, the derivatives, frame placements) has no batch API and calls Pinocchio
  sample by sample from Python, which holds the GIL, so the batch is split over worker processes that
  share the inputs and outputs through shared memory;
* batches below ``min_parallel`` samples run in the calling process, one sample at a time.

Everything is float64 (Pinocchio's Python bindings compute in double precision only). The per-sample calls
include the bindings' Python overhead, a few microseconds that dominate for small robots; that is what a
Pinocchio user in Python pays.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
from multiprocessing import shared_memory
from pathlib import Path

import numpy as np

from bench.states import random_states

__all__ = ["PinocchioPeer", "available", "build_model"]

NOTES = {
    "inverse_dynamics": "pinocchio.rneaInParallel (OpenMP) for batches of min_parallel or more, rnea otherwise",
    "mass_matrix": "pinocchio.crba per sample (upper triangle, as Pinocchio fills it)",
    "minv": "pinocchio.computeMinverse per sample (upper triangle)",
    "forward_dynamics_aba": "pinocchio.abaInParallel (OpenMP) for batches of min_parallel or more, aba otherwise",
    "inverse_dynamics_derivatives": "pinocchio.computeRNEADerivatives per sample",
    "forward_dynamics_derivatives": "pinocchio.computeABADerivatives per sample (dq, dv, M⁻¹)",
    "frame_poses": "pinocchio.framesForwardKinematics per sample; poses left in pinocchio.Data (not copied out)",
}
MISSING = {
    "forward_dynamics_minv": "Pinocchio's forward dynamics is ABA (measured under forward_dynamics_aba)",
}
# operation -> (inputs, output shapes as functions of nv)
_OUTPUTS = {
    "inverse_dynamics": (3, ((),)),
    "mass_matrix": (1, (("nv",),)),
    "minv": (1, (("nv",),)),
    "forward_dynamics_aba": (3, ((),)),
    "inverse_dynamics_derivatives": (3, (("nv",), ("nv",))),
    "forward_dynamics_derivatives": (3, (("nv",), ("nv",), ("nv",))),
    "frame_poses": (1, ()),
}


def available() -> str | None:
    """None if pinocchio imports, else why not."""
    try:
        import pinocchio  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return f"pinocchio not importable ({type(e).__name__}: {e})"
    return None


def _joint_model(pin, j: dict):
    axis = np.asarray(j["axis"], dtype=np.float64)
    kind = j["type"]
    if kind == "free-flyer":
        return pin.JointModelFreeFlyer()
    axis = axis / np.linalg.norm(axis)
    aligned = [i for i in range(3) if np.allclose(axis, np.eye(3)[i], rtol=0, atol=1e-12)]
    if kind in ("revolute", "continuous"):
        if aligned:
            return (pin.JointModelRX, pin.JointModelRY, pin.JointModelRZ)[aligned[0]]()
        return pin.JointModelRevoluteUnaligned(axis)
    if kind == "prismatic":
        if aligned:
            return (pin.JointModelPX, pin.JointModelPY, pin.JointModelPZ)[aligned[0]]()
        return pin.JointModelPrismaticUnaligned(axis)
    raise ValueError(f"joint {j['name']}: type {kind!r} is not converted to Pinocchio")


def build_model(model: dict):
    """A pinocchio.Model of an exported grid-rbd model (the parsed model.json), frames included."""
    import pinocchio as pin

    m = pin.Model()
    m.name = model["name"]
    m.gravity = pin.Motion(np.asarray(model["gravity"], dtype=np.float64), np.zeros(3))
    ids = []
    for j in model["joints"]:
        parent = 0 if int(j["parent"]) < 0 else ids[int(j["parent"])]
        placement = pin.SE3(np.asarray(j["placement"]["rotation"], dtype=np.float64),
                            np.asarray(j["placement"]["translation"], dtype=np.float64))
        jid = m.addJoint(parent, _joint_model(pin, j), placement, j["name"])
        inertia = j["inertia"]
        m.appendBodyToJoint(jid, pin.Inertia(float(inertia["mass"]), np.asarray(inertia["com"], dtype=np.float64),
                                             np.asarray(inertia["rotational_inertia"], dtype=np.float64)),
                            pin.SE3.Identity())
        ids.append(jid)
    for f in model["frames"]:
        parent = 0 if int(f["joint"]) < 0 else ids[int(f["joint"])]
        placement = pin.SE3(np.asarray(f["placement"]["rotation"], dtype=np.float64),
                            np.asarray(f["placement"]["translation"], dtype=np.float64))
        m.addFrame(pin.Frame(f["name"], parent, placement, pin.FrameType.OP_FRAME))
    if (m.nq, m.nv) != (int(model["nq"]), int(model["nv"])):
        raise ValueError(f"{model['name']}: Pinocchio model has nq, nv {m.nq}, {m.nv}; model.json "
                         f"{model['nq']}, {model['nv']}")
    return m


def _compute(pin, model, data, op: str, ins: list[np.ndarray], outs: list[np.ndarray], lo: int, hi: int) -> None:
    """op on samples lo..hi-1 of ins into outs, one Pinocchio call per sample."""
    if op == "inverse_dynamics":
        q, v, a = ins
        for i in range(lo, hi):
            outs[0][i] = pin.rnea(model, data, q[i], v[i], a[i])
    elif op == "forward_dynamics_aba":
        q, v, tau = ins
        for i in range(lo, hi):
            outs[0][i] = pin.aba(model, data, q[i], v[i], tau[i])
    elif op == "mass_matrix":
        (q,) = ins
        for i in range(lo, hi):
            outs[0][i] = pin.crba(model, data, q[i])
    elif op == "minv":
        (q,) = ins
        for i in range(lo, hi):
            outs[0][i] = pin.computeMinverse(model, data, q[i])
    elif op == "inverse_dynamics_derivatives":
        q, v, a = ins
        for i in range(lo, hi):
            pin.computeRNEADerivatives(model, data, q[i], v[i], a[i])
            outs[0][i] = data.dtau_dq
            outs[1][i] = data.dtau_dv
    elif op == "forward_dynamics_derivatives":
        q, v, tau = ins
        for i in range(lo, hi):
            pin.computeABADerivatives(model, data, q[i], v[i], tau[i])
            outs[0][i] = data.ddq_dq
            outs[1][i] = data.ddq_dv
            outs[2][i] = data.Minv
    elif op == "frame_poses":
        (q,) = ins
        for i in range(lo, hi):
            pin.framesForwardKinematics(model, data, q[i])
    else:
        raise ValueError(f"unknown operation {op!r}")


# -------------------------------------------------------------------------------------------------------
# Worker processes


def _views(buf, layout) -> dict[str, np.ndarray]:
    return {name: np.ndarray(shape, dtype=np.float64, buffer=buf, offset=offset) for name, offset, shape in layout}


def _worker(conn) -> None:
    """A worker's loop: commands from the parent over a pipe; arrays in shared memory."""
    import pinocchio as pin

    model = data = None
    blocks: dict[str, tuple[shared_memory.SharedMemory, dict[str, np.ndarray]]] = {}
    while True:
        msg = conn.recv()
        try:
            kind = msg[0]
            if kind == "stop":
                break
            if kind == "model":
                model = build_model(json.loads(msg[1]))
                data = model.createData()
            elif kind == "attach":
                _, key, name, layout = msg
                shm = shared_memory.SharedMemory(name=name)
                blocks[key] = (shm, _views(shm.buf, layout))
            elif kind == "detach":
                shm, views = blocks.pop(msg[1])
                views.clear()
                shm.close()
            elif kind == "run":
                _, key, op, n_in, n_out, k, lo, hi = msg
                views = blocks[key][1]
                ins = [views[f"in{k}_{i}"] for i in range(n_in)]
                outs = [views[f"out_{i}"] for i in range(n_out)]
                _compute(pin, model, data, op, ins, outs, lo, hi)
            conn.send(("ok",))
        except Exception as e:  # noqa: BLE001 - reported to the parent, which raises it
            conn.send(("error", f"{type(e).__name__}: {e}"))
    for shm, views in blocks.values():
        views.clear()
        shm.close()


class _Pool:
    """Spawned worker processes (spawn, not fork: the parent runs JAX's threads)."""

    def __init__(self, n: int) -> None:
        ctx = mp.get_context("spawn")
        self.conns, self.procs = [], []
        for _ in range(n):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(child,), daemon=True)
            p.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(p)

    def broadcast(self, msg) -> None:
        for c in self.conns:
            c.send(msg)
        self._collect(len(self.conns))

    def _collect(self, n: int) -> None:
        errors = [r[1] for r in (c.recv() for c in self.conns[:n]) if r[0] != "ok"]
        if errors:
            raise RuntimeError(f"Pinocchio worker: {errors[0]}")

    def run(self, key: str, op: str, n_in: int, n_out: int, k: int, batch: int) -> None:
        n = min(len(self.conns), batch)
        bounds = np.linspace(0, batch, n + 1).astype(int)
        for w in range(n):
            self.conns[w].send(("run", key, op, n_in, n_out, k, int(bounds[w]), int(bounds[w + 1])))
        self._collect(n)

    def close(self) -> None:
        for c in self.conns:
            try:
                c.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()


class PinocchioPeer:
    """Pinocchio's dynamics of one robot over batches, on ``threads`` CPU cores.

    Args:
      build_dir: a grid-rbd build directory holding model.json.
      threads: CPU cores to use (default ``os.cpu_count()``).
      min_parallel: the smallest batch that is spread over the cores.
    """

    def __init__(self, build_dir: str | os.PathLike[str], threads: int | None = None, min_parallel: int = 64) -> None:
        import pinocchio as pin

        self._pin = pin
        self.model_json = (Path(build_dir) / "model.json").read_text()
        self.model = build_model(json.loads(self.model_json))
        self.data = self.model.createData()
        self.threads = max(1, int(threads or os.cpu_count() or 1))
        self.min_parallel = min_parallel
        self._pool: _Pool | None = None
        self._model_pool = None
        self._blocks = 0

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> PinocchioPeer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _workers(self) -> _Pool:
        if self._pool is None:
            self._pool = _Pool(self.threads)
            self._pool.broadcast(("model", self.model_json))
        return self._pool

    def threads_for(self, op: str, batch: int) -> int:
        """The cores one call of op at this batch uses."""
        return 1 if batch < self.min_parallel or self.threads == 1 else min(self.threads, batch)

    def prepare(self, op: str, arg_sets: list[tuple[np.ndarray, ...]]):
        """A call of op on input set k (``call(k)``, results in shared outputs) and its cleanup function.

        Args:
          op: a benchmark operation (see NOTES).
          arg_sets: input sets, each ``(q, qd, x)`` or ``(q,)`` as the operation takes, float64, batched.

        Returns:
          ``(call, close)``, or a string saying why op is not measured.
        """
        if op in MISSING:
            return MISSING[op]
        if op not in _OUTPUTS:
            return f"no Pinocchio counterpart of {op}"
        pin = self._pin
        n_in, out_shapes = _OUTPUTS[op]
        arg_sets = [tuple(np.ascontiguousarray(a, dtype=np.float64) for a in s[:n_in]) for s in arg_sets]
        batch = arg_sets[0][0].shape[0]
        nv = self.model.nv
        shapes = [(batch, nv) + tuple(nv for _ in extra) for extra in out_shapes]
        threads = self.threads_for(op, batch)

        if threads > 1 and op in ("inverse_dynamics", "forward_dynamics_aba"):
            # Pinocchio's OpenMP batch API: one sample per column, column-major.
            if self._model_pool is None:
                self._model_pool = pin.ModelPool(self.model, self.threads)
            cols = [tuple(np.asfortranarray(a.T) for a in s) for s in arg_sets]
            out = np.zeros((nv, batch), order="F")
            fn = pin.rneaInParallel if op == "inverse_dynamics" else pin.abaInParallel
            mp_ = self._model_pool

            def call_native(k: int):
                fn(threads, mp_, *cols[k], out)
                return out

            return call_native, lambda: None

        if threads == 1:
            outs = [np.zeros(s) for s in shapes]
            model, data = self.model, self.data

            def call_serial(k: int):
                _compute(pin, model, data, op, list(arg_sets[k]), outs, 0, batch)
                return outs

            return call_serial, lambda: None

        # Worker processes over shared memory: every input set and the outputs in one block.
        layout, offset = [], 0
        for k, s in enumerate(arg_sets):
            for i, a in enumerate(s):
                layout.append((f"in{k}_{i}", offset, a.shape))
                offset += a.nbytes
        for i, s in enumerate(shapes):
            layout.append((f"out_{i}", offset, s))
            offset += int(np.prod(s)) * 8
        shm = shared_memory.SharedMemory(create=True, size=max(offset, 8))
        views = _views(shm.buf, layout)
        for k, s in enumerate(arg_sets):
            for i, a in enumerate(s):
                views[f"in{k}_{i}"][...] = a
        outs = [views[f"out_{i}"] for i in range(len(shapes))]
        pool = self._workers()
        self._blocks += 1
        key = f"b{self._blocks}"
        pool.broadcast(("attach", key, shm.name, layout))

        def call_pool(k: int):
            pool.run(key, op, n_in, len(shapes), k, batch)
            return outs

        def close() -> None:
            pool.broadcast(("detach", key))
            outs.clear()
            views.clear()
            shm.close()
            shm.unlink()

        return call_pool, close


# -------------------------------------------------------------------------------------------------------
# Check against grid-rbd


def check(build_dir: str, samples: int = 8, seed: int = 0) -> list[str]:
    """The peer's outputs against the build's grid-rbd kernels (CPU, float64) on random states.

    Returns:
      One line per operation, ``ok`` or ``FAIL`` with the worst relative error.
    """
    import jax
    import pinocchio as pin

    jax.config.update("jax_enable_x64", True)
    from grid_rbd.jax import JaxRobotHandle


    handle = JaxRobotHandle(os.fspath(Path(build_dir).absolute()))
    peer = PinocchioPeer(build_dir, threads=1)
    q, qd, qdd, tau = random_states(json.loads(peer.model_json), samples, np.random.default_rng(seed))
    sym = lambda a: np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)  # noqa: E731 - Pinocchio fills the upper triangle
    cases = {
        "inverse_dynamics": ((q, qd, qdd), lambda o: o, (handle.inverse_dynamics(q, qd, qdd),)),
        "mass_matrix": ((q,), sym, (handle.mass_matrix(q),)),
        "minv": ((q,), sym, (handle.minv(q),)),
        "forward_dynamics_aba": ((q, qd, tau), lambda o: o, (handle.forward_dynamics(q, qd, tau),)),
        "inverse_dynamics_derivatives": ((q, qd, qdd), lambda o: o, handle.inverse_dynamics_derivatives(q, qd, qdd)),
        "forward_dynamics_derivatives": ((q, qd, tau), lambda o: o, handle.forward_dynamics_derivatives(q, qd, tau)),
    }
    lines = []

    def report(name, got, want, tol):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        axes = tuple(range(1, got.ndim))
        err = np.max(np.abs(got - want), axis=axes) / np.maximum(np.max(np.abs(want), axis=axes), 1e-300)
        worst = float(np.max(err))
        lines.append(f"{'ok  ' if worst <= tol else 'FAIL'} {handle.name} {name}: max relative error {worst:.2e} "
                     f"over {samples} samples (tolerance {tol:.0e})")

    # serial, and spread over two cores (OpenMP batch API or worker processes)
    parallel = PinocchioPeer(build_dir, threads=2, min_parallel=1)
    for label, p in (("", peer), (" on 2 cores", parallel)):
        for op, (args, fix, want) in cases.items():
            call, close = p.prepare(op, [args])
            outs = call(0)
            outs = [np.array(outs.T)] if isinstance(outs, np.ndarray) else [np.array(o) for o in outs]
            close()
            for i, (got, w) in enumerate(zip(outs, want)):
                sym_out = op in ("mass_matrix", "minv") or (op == "forward_dynamics_derivatives" and i == 2)
                report(f"{op}[{i}]{label}" if len(want) > 1 else op + label, fix(got) if sym_out else got, w, 1e-8)
    parallel.close()
    # frame poses: placements from pinocchio.Data, matched by frame name
    pos, rot, _ = handle.frame_poses(q)
    ids = [peer.model.getFrameId(n) for n in handle.frame_names]
    got_pos, got_rot = np.empty(np.shape(pos)), np.empty(np.shape(rot))
    for s in range(samples):
        pin.framesForwardKinematics(peer.model, peer.data, q[s])
        for f, fid in enumerate(ids):
            got_pos[s, f] = peer.data.oMf[fid].translation
            got_rot[s, f] = peer.data.oMf[fid].rotation
    report("frame_poses (positions)", got_pos, pos, 1e-9)
    report("frame_poses (rotations)", got_rot, rot, 1e-9)
    peer.close()
    return lines
