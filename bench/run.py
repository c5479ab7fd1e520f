"""Throughput and latency of grid-rbd and its peers: one JSON of measured cells.

Run from the repository root (``PYTHONPATH=python``), on robots built with ``go tool mage build <urdf>
[-floating] [-cuda] -out=DIR/<robot>`` (``go tool mage bench`` builds the six benchmark robots and runs
this)::

    python -m bench.run --robots-dir build/bench --out bench/results/2026-01-01-h100.json

A cell is (robot, operation, dtype, batch, implementation). Each is timed alone: the function is jitted
(``jax.jit(...).lower(...)`` then ``.compile()``, both timed), called once per input set as warm-up, then
called ``--reps`` times or more (until ``--min-time`` has passed), each call synchronised with
``block_until_ready`` and fed the next of ``--buffers`` input sets pre-placed on the device, so no call
reuses the previous call's inputs. Rows report the median, minimum and 90th percentile of the per-call
times and samples per second from the median. At batch 1 the rows also hold the end-to-end latency of one
jitted call from NumPy inputs on the host to NumPy outputs (``host_latency_s``).

grid-rbd's methods batch natively (any leading batch shape; ``jit(vmap(f))`` lowers to the same custom
call), so they are jitted as they are; the pure-JAX and MJX peers are ``jit(vmap(f))``. Pinocchio runs on
the CPU cores (see bench/peers/pinocchio_cpu.py). MuJoCo Warp (``mjwarp``, bench/peers/mujoco_warp.py) runs
without JAX: each input set's call is captured once as a CUDA graph, and a timed call is one synchronised
replay of it.

A cell that cannot be measured becomes a row with ``missing`` (the reason: peer not installed, out of
memory, an error message, the time budget; ``unsupported: true`` where the implementation has no such
cell). ``--time-budget`` stops starting new cells after that many seconds; ``--resume`` keeps the measured
and unsupported rows of an existing ``--out`` and tries the rest again, so a long benchmark can run in
slices. The JSON is rewritten after every robot (and every 20 s).
``--check`` compares the peers with grid-rbd on a few samples instead of timing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import datetime as _dt
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from bench import roster
from bench.states import random_states

REPO_ROOT = Path(__file__).resolve().parents[1]

OPS = (
    "inverse_dynamics",
    "mass_matrix",
    "minv",
    "forward_dynamics_aba",
    "forward_dynamics_minv",
    "inverse_dynamics_derivatives",
    "forward_dynamics_derivatives",
    "frame_poses",
)
# Which of (q, qd, qdd, tau) each operation takes.
OP_INPUTS = {
    "inverse_dynamics": ("q", "qd", "qdd"),
    "mass_matrix": ("q",),
    "minv": ("q",),
    "forward_dynamics_aba": ("q", "qd", "tau"),
    "forward_dynamics_minv": ("q", "qd", "tau"),
    "inverse_dynamics_derivatives": ("q", "qd", "qdd"),
    "forward_dynamics_derivatives": ("q", "qd", "tau"),
    "frame_poses": ("q",),
}
ROBOTS = tuple(r.name for r in roster.suite("bench"))
BATCHES = (1, 16, 256, 4096, 65536)
DTYPES = ("float32", "float64")
IMPLS = ("grid", "purejax", "mjx", "frax", "pinocchio")
KNOWN_IMPLS = (*IMPLS, "mjwarp")
QUICK = {"batches": (1, 16), "reps": 3, "buffers": 2, "min_time": 0.0}
BUDGET_REASON = "time budget"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -------------------------------------------------------------------------------------------------------
# Inputs


def _select(op: str, q, qd, qdd, tau) -> tuple:
    named = {"q": q, "qd": qd, "qdd": qdd, "tau": tau}
    return tuple(named[k] for k in OP_INPUTS[op])


# -------------------------------------------------------------------------------------------------------
# Implementations: each gives, per operation and dtype, a batched JAX function or why there is none


class GridImpl:
    """grid-rbd's JaxRobotHandle."""

    name = "grid"
    NOTES = {
        "forward_dynamics_aba": "forward_dynamics(method='aba')",
        "forward_dynamics_minv": "forward_dynamics(method='minv'): analytical M⁻¹ times (tau - bias)",
    }

    def __init__(self, build_dir: Path, model: dict) -> None:
        import jax

        from grid_rbd.jax import JaxRobotHandle

        self.handle = JaxRobotHandle(os.fspath(build_dir))
        if jax.default_backend() == "gpu" and not self.handle.has_cuda:
            raise RuntimeError("the build has no loadable CUDA library (build with -cuda), so grid-rbd would "
                               "not run on the GPU")

    def function(self, op: str, dtype):
        h = self.handle
        return {
            "inverse_dynamics": h.inverse_dynamics,
            "mass_matrix": h.mass_matrix,
            "minv": h.minv,
            "forward_dynamics_aba": lambda q, qd, tau: h.forward_dynamics(q, qd, tau, method="aba"),
            "forward_dynamics_minv": lambda q, qd, tau: h.forward_dynamics(q, qd, tau, method="minv"),
            "inverse_dynamics_derivatives": h.inverse_dynamics_derivatives,
            "forward_dynamics_derivatives": h.forward_dynamics_derivatives,
            "frame_poses": h.frame_poses,
        }[op]

    def inputs(self, op: str, q, qd, qdd, tau):
        return _select(op, q, qd, qdd, tau)


class PureJaxImpl:
    """The pure-JAX peer (bench/peers/purejax.py), jit(vmap(...))."""

    name = "purejax"
    NOTES = {
        "minv": "Cholesky inverse of the CRBA mass matrix",
        "forward_dynamics_minv": "CRBA mass matrix and Cholesky solve",
        "inverse_dynamics_derivatives": "jax.jacfwd in tangent coordinates",
        "forward_dynamics_derivatives": "jax.jacfwd of ABA in tangent coordinates, and M⁻¹",
    }
    METHODS = {
        "inverse_dynamics": "inverse_dynamics",
        "mass_matrix": "mass_matrix",
        "minv": "minv",
        "forward_dynamics_aba": "aba",
        "forward_dynamics_minv": "forward_dynamics",
        "inverse_dynamics_derivatives": "inverse_dynamics_derivatives",
        "forward_dynamics_derivatives": "forward_dynamics_derivatives",
        "frame_poses": "frame_poses",
    }

    def __init__(self, build_dir: Path, model: dict) -> None:
        from bench.peers.purejax import PureJaxRobot

        self.robot = PureJaxRobot(model)

    def function(self, op: str, dtype):
        import jax

        return jax.vmap(getattr(self.robot, self.METHODS[op]))

    def inputs(self, op: str, q, qd, qdd, tau):
        return _select(op, q, qd, qdd, tau)


class MjxImpl:
    """MuJoCo MJX (bench/peers/mjx.py), jit(vmap(...)) on MuJoCo-convention inputs."""

    name = "mjx"
    impl = "jax"

    def __init__(self, build_dir: Path, model: dict) -> None:
        from bench.peers import mjx

        self.NOTES = mjx.NOTES
        self.peer = mjx.MjxPeer(build_dir, impl=self.impl)
        if self.peer.repaired:
            self.robot_note = ("MJX: MuJoCo rejects the URDF inertias of the bodies of "
                               f"{', '.join(self.peer.repaired)}; "
                               "they are replaced by the nearest valid ones (same cost, other values)")

    def function(self, op: str, dtype):
        return self.peer.function(op, dtype)

    def inputs(self, op: str, q, qd, qdd, tau):
        return self.peer.inputs(op, q, qd, qdd, tau)


class MjWarpImpl:
    """MuJoCo Warp run directly (bench/peers/mujoco_warp.py): CUDA-graph replays, float32, no JAX.

    Not a JAX implementation: :func:`_measure_cell` times :meth:`prepare`'s replays with :func:`time_graph`.
    """

    name = "mjwarp"

    def __init__(self, build_dir: Path, model: dict, device: str | None = None) -> None:
        from bench.peers import mujoco_warp

        self.NOTES = mujoco_warp.NOTES
        self.peer = mujoco_warp.MjWarpPeer(build_dir, device=device)  # device "cpu": tests only
        if self.peer.repaired:
            self.robot_note = ("MuJoCo Warp: MuJoCo rejects the URDF inertias of the bodies of "
                               f"{', '.join(self.peer.repaired)}; "
                               "they are replaced by the nearest valid ones (same cost, other values)")

    def prepare(self, op: str, dtype, host_sets: list[tuple]):
        """The op's replays over host_sets (grid-rbd inputs (q, qd, qdd, tau)), or why there is no such cell."""
        why = self.peer.reason_missing(op, dtype)
        if why:
            return why
        sets = [self.peer.inputs(op, *s) for s in host_sets]
        return self.peer.prepare(op, sets), sets

    def close(self) -> None:
        self.peer.close()


class FraxImpl:
    """frax (bench/peers/frax.py), jit(vmap(...)) of its Robot methods; fixed-base robots."""

    def __init__(self, build_dir: Path, model: dict) -> None:
        from bench.peers import frax

        self.NOTES = frax.NOTES
        self.peer = frax.FraxPeer(build_dir, model)

    def function(self, op: str, dtype):
        return self.peer.function(op, dtype)

    def inputs(self, op: str, q, qd, qdd, tau):
        return _select(op, q, qd, qdd, tau)


JAX_IMPLS = {"grid": GridImpl, "purejax": PureJaxImpl, "mjx": MjxImpl, "frax": FraxImpl}


def impl_available(name: str) -> str | None:
    """None if the implementation can run here, else why not."""
    if name in ("grid", "purejax"):
        return None
    if name == "mjx":
        from bench.peers import mjx

        return mjx.available()
    if name == "mjwarp":
        from bench.peers import mujoco_warp

        return mujoco_warp.available()
    if name == "frax":
        from bench.peers import frax

        return frax.available()
    if name == "pinocchio":
        from bench.peers import pinocchio_cpu

        return pinocchio_cpu.available()
    return f"unknown implementation {name!r}"


# -------------------------------------------------------------------------------------------------------
# Timing


def _stats(times: list[float], batch: int) -> dict:
    t = np.asarray(times)
    median = float(np.median(t))
    return {
        "median_s": median,
        "min_s": float(t.min()),
        "p90_s": float(np.percentile(t, 90)),
        "samples_per_s": batch / median if median > 0 else None,
        "reps": len(times),
    }


def _repeat(call, n_sets: int, reps: int, min_time: float, max_reps: int) -> list[float]:
    """Per-call times: at least reps calls and min_time seconds (at most max_reps calls), rotating sets."""
    times: list[float] = []
    total = 0.0
    while len(times) < reps or (total < min_time and len(times) < max_reps):
        k = len(times) % n_sets
        t0 = time.perf_counter()
        call(k)
        dt = time.perf_counter() - t0
        times.append(dt)
        total += dt
    return times


def time_jax(fn, host_sets: list[tuple], dtype, batch: int, opts) -> dict:
    """Compile and time a batched JAX function over input sets (host NumPy arrays, cast to dtype)."""
    import jax

    dev_sets = [tuple(jax.device_put(np.asarray(a, dtype=dtype)) for a in s) for s in host_sets]
    jax.block_until_ready(dev_sets)
    jitted = jax.jit(fn)
    t0 = time.perf_counter()
    lowered = jitted.lower(*dev_sets[0])
    t1 = time.perf_counter()
    lowered.compile()  # the jitted function reuses this executable (no second compile)
    t2 = time.perf_counter()

    def call(k: int) -> None:
        jax.block_until_ready(jitted(*dev_sets[k]))

    for k in range(max(opts.warmup, len(dev_sets))):
        call(k % len(dev_sets))
    row = _stats(_repeat(call, len(dev_sets), opts.reps, opts.min_time, opts.max_reps), batch)
    row.update(lower_s=t1 - t0, compile_s=t2 - t1)
    if batch == 1:
        # End to end: NumPy in, one jitted call (dispatch, transfers), NumPy out.
        np_sets = [tuple(np.asarray(a, dtype=dtype) for a in s) for s in host_sets]

        def host_call(k: int) -> None:
            jax.tree_util.tree_map(np.asarray, jitted(*np_sets[k]))

        host_call(0)
        host = _repeat(host_call, len(np_sets), opts.reps, opts.min_time, opts.max_reps)
        row.update(host_latency_s=float(np.median(host)), host_latency_p90_s=float(np.percentile(host, 90)))
    del dev_sets
    return row


def dispatch_floor(opts) -> dict:
    """What any jitted call costs on this machine: ``x + 1`` on 7 floats, timed like a benchmark cell.

    One tiny fused kernel: its time per synchronised call is the launch, dispatch and synchronisation
    overhead every batch-1 row pays on top of its own kernel.
    """
    rng = np.random.default_rng(opts.seed)
    sets = [(rng.standard_normal((1, 7)),) for _ in range(opts.buffers)]
    row = time_jax(lambda x: x + 1, sets, np.float32, 1, opts)
    return {k: row[k] for k in ("median_s", "min_s", "p90_s", "reps", "host_latency_s", "host_latency_p90_s")}


def time_host(call, close, n_sets: int, batch: int, opts) -> dict:
    """Times a synchronous host call (Pinocchio): call(k) computes on input set k."""
    try:
        for k in range(max(opts.warmup, n_sets)):
            call(k % n_sets)
        row = _stats(_repeat(call, n_sets, opts.reps, opts.min_time, opts.max_reps), batch)
    finally:
        close()
    if batch == 1:
        row.update(host_latency_s=row["median_s"], host_latency_p90_s=row["p90_s"])
    return row


def time_graph(replay, host_sets: list[tuple], batch: int, opts) -> dict:
    """Times MuJoCo Warp's graph replays: replay.call(k) replays input set k's graph and synchronises.

    Rows also hold the uncaptured first call (``first_call_s``: kernel compile or kernel-cache load) and the
    capture of one graph (``capture_s``); at batch 1, the latency from NumPy inputs to NumPy outputs.
    """
    n_sets = len(host_sets)
    try:
        for k in range(max(opts.warmup, n_sets)):
            replay.call(k % n_sets)
        row = _stats(_repeat(replay.call, n_sets, opts.reps, opts.min_time, opts.max_reps), batch)
        row.update(first_call_s=replay.first_call_s, capture_s=replay.capture_s)
        if batch == 1:
            def host_call(k: int) -> None:
                replay.host_call(k, host_sets[k])

            host_call(0)
            host = _repeat(host_call, n_sets, opts.reps, opts.min_time, opts.max_reps)
            row.update(host_latency_s=float(np.median(host)), host_latency_p90_s=float(np.percentile(host, 90)))
    finally:
        replay.close()
    return row


# -------------------------------------------------------------------------------------------------------
# Environment


def _run(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=REPO_ROOT)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def environment(commit: str | None) -> dict:
    import jax
    import jaxlib

    devices = jax.devices()
    env = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit or _run(["git", "rev-parse", "HEAD"]),
        "dirty": None,
        "device": {"platform": devices[0].platform, "kind": devices[0].device_kind, "count": len(devices)},
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": {"model": _cpu_model(), "count": os.cpu_count(),
                "usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None},
        "host": platform.node(),
    }
    if commit is None and env["commit"]:
        status = _run(["git", "status", "--porcelain", "--untracked-files=no"])
        env["dirty"] = None if status is None else bool(status)
    smi = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                "--format=csv,noheader"])
    if smi:
        env["nvidia_smi"] = [line.strip() for line in smi.splitlines()]
        cuda = _run(["nvidia-smi"])
        if cuda and (m := re.search(r"CUDA Version:\s*([\d.]+)", cuda)):
            env["cuda_driver_version"] = m.group(1)
    return env


def device_slug(env: dict) -> str:
    kind = env["device"]["kind"] if env["device"]["platform"] != "cpu" else "cpu"
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "device"


# -------------------------------------------------------------------------------------------------------
# The run


def _key(row: dict) -> tuple:
    return (row["robot"], row["op"], row["dtype"], int(row["batch"]), row["impl"])


def _error_reason(e: BaseException) -> str:
    text = " ".join(f"{type(e).__name__}: {e}".split())
    if re.search(r"RESOURCE_EXHAUSTED|out of memory|OutOfMemory|MemoryError|Failed to allocate", text, re.I):
        return "out of memory: " + text[:300]
    return "error: " + text[:500]


class Results:
    """The rows and metadata, written atomically to path."""

    def __init__(self, path: Path, meta: dict, rows: list[dict]) -> None:
        self.path, self.meta, self.rows = path, meta, rows
        self.index = {_key(r): i for i, r in enumerate(rows)}
        self.last_write = time.monotonic()

    def put(self, row: dict) -> None:
        k = _key(row)
        if k in self.index:
            self.rows[self.index[k]] = row
        else:
            self.index[k] = len(self.rows)
            self.rows.append(row)

    def done(self, key: tuple) -> bool:
        """Measured, or missing because the implementation has no such cell (not worth another try)."""
        i = self.index.get(key)
        return i is not None and ("missing" not in self.rows[i] or self.rows[i].get("unsupported", False))

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps({"meta": self.meta, "rows": self.rows}, indent=1) + "\n")
        tmp.replace(self.path)
        self.last_write = time.monotonic()


def robot_dirs(robots_dir: Path, names: list[str] | None) -> list[tuple[str, Path]]:
    """(name, build dir) of the requested robots, or of every build under robots_dir (benchmark set first)."""
    if names:
        return [(n, robots_dir / n) for n in names]
    found = sorted(p.name for p in robots_dir.iterdir() if (p / "metadata.json").is_file()) \
        if robots_dir.is_dir() else []
    return [(n, robots_dir / n) for n in [*[r for r in ROBOTS if r in found], *[r for r in found if r not in ROBOTS]]]


def measure(opts) -> Results:
    import jax

    jax.config.update("jax_enable_x64", True)
    try:  # compile times must not come from a persistent cache
        jax.config.update("jax_enable_compilation_cache", False)
    except (AttributeError, ValueError):
        pass
    start = time.monotonic()
    deadline = start + opts.time_budget if opts.time_budget is not None else math.inf
    out = Path(opts.out) if opts.out else None
    env = environment(opts.commit)
    if out is None:
        suffix = "-quick" if opts.quick else ""
        out = Path(opts.out_dir) / f"{env['date'][:10]}-{device_slug(env)}{suffix}.json"
    robots = robot_dirs(Path(opts.robots_dir), opts.robots)
    impls = list(dict.fromkeys(opts.peers))
    peer_status = {}
    for name in KNOWN_IMPLS:
        if name not in impls:
            peer_status[name] = {"status": "not requested"}
            continue
        why = impl_available(name)
        peer_status[name] = {"status": "unavailable", "reason": why} if why else {"status": "measured"}
    for name, dist, module in (("mjx", "mujoco", "mujoco"), ("pinocchio", "pin", "pinocchio"), ("frax", "frax", "frax"),
                               ("mjwarp", "mujoco_warp", "mujoco_warp")):
        if peer_status.get(name, {}).get("status") == "measured":
            try:
                peer_status[name]["version"] = importlib.metadata.version(dist)
            except importlib.metadata.PackageNotFoundError:  # a copy on PYTHONPATH without its metadata
                peer_status[name]["version"] = getattr(__import__(module), "__version__", "?")
    if peer_status["mjwarp"]["status"] == "measured":
        import mujoco
        import warp

        peer_status["mjwarp"].update(warp=warp.__version__, mujoco=mujoco.__version__)
    if peer_status["pinocchio"]["status"] == "measured":
        peer_status["pinocchio"]["threads"] = opts.threads or os.cpu_count()
    meta = {
        "env": env,
        "settings": {"robots": [r for r, _ in robots], "ops": list(opts.ops), "dtypes": list(opts.dtypes),
                     "batches": list(opts.batches), "peer_batches": opts.peer_batches, "impls": impls,
                     "reps": opts.reps, "warmup": opts.warmup, "buffers": opts.buffers, "min_time": opts.min_time,
                     "max_reps": opts.max_reps, "time_budget": opts.time_budget, "quick": opts.quick,
                     "argv": sys.argv[1:]},
        "peers": peer_status,
        "notes": {},
        "robots": {},
    }
    rows: list[dict] = []
    if opts.resume and out.is_file():
        old = json.loads(out.read_text())
        rows = old.get("rows", [])
        old_meta = old.get("meta", {})
        meta["robots"] = old_meta.get("robots", {})
        if "dispatch_floor" in old_meta.get("env", {}):
            meta["env"]["dispatch_floor"] = old_meta["env"]["dispatch_floor"]
        meta["notes"] = old_meta.get("notes", {})
        for name, status in old_meta.get("peers", {}).items():
            if peer_status.get(name, {}).get("status") in (None, "not requested"):
                peer_status[name] = status  # measured (or found missing) by an earlier slice
        meta["earlier_runs"] = [*old_meta.get("earlier_runs", []),
                                {"env": old_meta.get("env"), "settings": old_meta.get("settings")}]
        log(f"resuming {out}: {sum('missing' not in r for r in rows)} measured rows kept")
    if not (opts.resume and "dispatch_floor" in meta.get("env", {})):
        meta["env"]["dispatch_floor"] = dispatch_floor(opts)
        log(f"dispatch floor (jitted x + 1 on 7 floats): {meta['env']['dispatch_floor']['median_s'] * 1e6:.1f} us "
            f"per synchronised call")
    results = Results(out, meta, rows)
    models: dict[str, dict | str] = {}
    for name, d in robots:
        try:
            model = json.loads((d / "model.json").read_text())
            models[name] = model
            meta["robots"].setdefault(name, {}).update(
                model=model["name"], nq=model["nq"], nv=model["nv"], floating_base=model["floating_base"],
                n_frames=len(model["frames"]), build_dir=os.fspath(d))
        except (OSError, ValueError, KeyError) as e:
            models[name] = f"not built: {d} ({type(e).__name__}: {e})"
    total = len(impls) * len(robots) * len(opts.dtypes) * len(opts.ops) * len(opts.batches)
    count = 0
    for impl_name in impls:
        notes = None
        for robot, build_dir in robots:
            model = models[robot]
            cells = [(dt, op, b) for dt in opts.dtypes for op in opts.ops for b in opts.batches]
            todo = [c for c in cells if not results.done((robot, c[1], c[0], c[2], impl_name))]
            count += len(cells) - len(todo)
            if not todo:
                continue
            status = peer_status[impl_name]
            setup_error = status.get("reason") if status["status"] != "measured" else None
            if isinstance(model, str):
                setup_error = model
            impl = None
            if setup_error is None and time.monotonic() < deadline:
                try:
                    if impl_name == "pinocchio":
                        from bench.peers.pinocchio_cpu import NOTES as pin_notes
                        from bench.peers.pinocchio_cpu import PinocchioPeer

                        impl = PinocchioPeer(build_dir, threads=opts.threads)
                        notes = pin_notes
                    elif impl_name == "mjwarp":
                        impl = MjWarpImpl(build_dir, model)
                        notes = impl.NOTES
                    else:
                        impl = JAX_IMPLS[impl_name](build_dir, model)
                        notes = getattr(impl, "NOTES", {})
                    if impl_name == "grid":
                        meta["robots"][robot]["has_cuda"] = impl.handle.has_cuda
                    if getattr(impl, "robot_note", None):
                        notes_list = meta["robots"][robot].setdefault("notes", [])
                        if impl.robot_note not in notes_list:
                            notes_list.append(impl.robot_note)
                except Exception as e:  # noqa: BLE001 - recorded as the reason of every cell
                    setup_error = "setup failed: " + _error_reason(e).split(": ", 1)[1]
                    if opts.verbose:
                        traceback.print_exc()
            if setup_error:
                log(f"{impl_name} {robot}: every cell missing ({setup_error[:200]})")
            if notes:
                meta["notes"][impl_name] = notes
            states: dict[int, list[tuple]] = {}
            oom_at: dict[tuple, int] = {}
            for dtype, op, batch in todo:
                count += 1
                base = {"robot": robot, "op": op, "dtype": dtype, "batch": batch, "impl": impl_name}
                label = f"[{count}/{total}] {impl_name} {robot} {op} {dtype} batch {batch}"
                reason = None
                if time.monotonic() >= deadline:
                    reason = BUDGET_REASON
                elif setup_error:
                    reason = setup_error
                elif impl_name != "grid" and opts.peer_batches and batch not in opts.peer_batches:
                    reason = f"peers measured at batches {', '.join(map(str, opts.peer_batches))} only (--peer-batches)"
                elif (impl_name, op, dtype) in oom_at and batch > oom_at[(impl_name, op, dtype)]:
                    reason = f"out of memory at batch {oom_at[(impl_name, op, dtype)]}"
                if reason is None:
                    try:
                        row = _measure_cell(impl_name, impl, model, op, dtype, batch, states, opts)
                    except Exception as e:  # noqa: BLE001 - one cell's failure must not stop the run
                        reason = _error_reason(e)
                        if opts.verbose:
                            traceback.print_exc()
                        if reason.startswith("out of memory"):
                            oom_at[(impl_name, op, dtype)] = batch
                if reason is not None:
                    results.put({**base, "missing": reason})
                    # one line per robot for a peer that cannot run at all
                    if reason not in (BUDGET_REASON, setup_error) or opts.verbose:
                        log(f"{label}: missing ({reason[:160]})")
                    continue
                if isinstance(row, str):
                    results.put({**base, "missing": row, "unsupported": True})
                    continue
                results.put({**base, **row})
                extra = f", compile {row['lower_s'] + row['compile_s']:.2f} s" if "compile_s" in row else ""
                if "capture_s" in row:
                    extra = f", first call {row['first_call_s']:.2f} s, graph capture {row['capture_s'] * 1e3:.1f} ms"
                log(f"{label}: median {row['median_s'] * 1e6:.1f} us, {row['samples_per_s']:.3g} samples/s"
                    f" ({row['reps']} reps{extra})")
                if time.monotonic() - results.last_write > 20:
                    results.write()
            if impl_name in ("pinocchio", "mjwarp") and impl is not None:
                impl.close()
            del impl, states
            if impl_name != "pinocchio":
                jax.clear_caches()
            results.write()
    meta["elapsed_s"] = time.monotonic() - start
    results.write()
    log(f"wrote {out} ({sum('missing' not in r for r in results.rows)} measured, "
        f"{sum('missing' in r for r in results.rows)} missing)")
    return results


def _measure_cell(impl_name: str, impl, model: dict, op: str, dtype: str, batch: int, states: dict, opts):
    """One cell's row fields, or a string saying why the implementation has no such cell."""
    if batch not in states:
        rng = np.random.default_rng(opts.seed + batch)
        states[batch] = [random_states(model, batch, rng) for _ in range(opts.buffers)]
    if impl_name == "pinocchio":
        if dtype != "float64":
            return "Pinocchio's Python bindings compute in float64 only"
        sets = [_select(op, *s) for s in states[batch]]
        prep = impl.prepare(op, sets)
        if isinstance(prep, str):
            return prep
        call, close = prep
        row = time_host(call, close, len(sets), batch, opts)
        row["threads"] = impl.threads_for(op, batch)
        return row
    if impl_name == "mjwarp":
        prep = impl.prepare(op, dtype, states[batch])
        if isinstance(prep, str):
            return prep
        replay, sets = prep
        return time_graph(replay, sets, batch, opts)
    import jax

    # float32 runs in JAX's default 32-bit mode, as a float32 user's program would: with x64 on, MJX's
    # default-dtype arrays and float64 model constants would promote a "float32" cell to float64.
    with jax.enable_x64(np.dtype(dtype) == np.float64):
        fn = impl.function(op, np.dtype(dtype))
        if isinstance(fn, str):
            return fn
        sets = [impl.inputs(op, *s) for s in states[batch]]
        return time_jax(fn, sets, np.dtype(dtype), batch, opts)


# -------------------------------------------------------------------------------------------------------
# Checks


def run_checks(opts) -> int:
    """Compares MJX, frax and Pinocchio with grid-rbd on each robot (float64, a few samples); 1 if any fails.

    MuJoCo Warp (float32) is compared with grid-rbd and MuJoCo's C library, on the GPU or else on Warp's CPU device.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    failed = False
    for robot, d in robot_dirs(Path(opts.robots_dir), opts.robots):
        for name, modname in (("mjx", "bench.peers.mjx"), ("frax", "bench.peers.frax"),
                              ("pinocchio", "bench.peers.pinocchio_cpu"), ("mjwarp", "bench.peers.mujoco_warp")):
            if name not in opts.peers:
                continue
            if name == "mjwarp":  # checked on Warp's CPU device where there is no GPU
                from bench.peers.mujoco_warp import importable as mjwarp_importable

                why = mjwarp_importable()
            else:
                why = impl_available(name)
            if why:
                print(f"skip {name} {robot}: {why}")
                continue
            mod = __import__(modname, fromlist=["check"])
            try:
                lines = mod.check(os.fspath(d))
            except Exception as e:  # noqa: BLE001 - report and go on with the next robot
                lines = [f"FAIL {robot} {name}: {_error_reason(e)}"]
            for line in lines:
                print(f"{name:9s} {line}")
                failed |= line.startswith("FAIL")
    return 1 if failed else 0


def parse_args(argv: list[str] | None = None):
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots-dir", default="build/bench", help="folder of robot build directories")
    p.add_argument("--robots", nargs="+", help="robot (build directory) names; default: every build there")
    p.add_argument("--out", help="result JSON (default: <out-dir>/<date>-<device>[-quick].json)")
    p.add_argument("--out-dir", default=os.fspath(REPO_ROOT / "bench" / "results"),
                   help="folder of the default result JSON (default bench/results)")
    p.add_argument("--ops", nargs="+", default=list(OPS), choices=OPS)
    p.add_argument("--batches", nargs="+", type=int)
    p.add_argument("--peer-batches", nargs="+", type=int,
                   help="batches at which the peers are timed (default: all); each compiles anew, which dominates "
                        "the pure-JAX and MJX peers' time")
    p.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=DTYPES)
    p.add_argument("--peers", nargs="+", default=list(IMPLS), choices=KNOWN_IMPLS,
                   help="implementations to time (grid is grid-rbd itself); mjwarp: MuJoCo Warp (CUDA graphs, "
                        "float32)")
    p.add_argument("--reps", type=int, help="timed calls per cell, at least (default 20)")
    p.add_argument("--min-time", type=float, help="keep calling until this many seconds are timed (default 0.2)")
    p.add_argument("--max-reps", type=int, default=2000, help="cap on timed calls when --min-time extends them")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls before timing (at least one per buffer)")
    p.add_argument("--buffers", type=int, help="input sets rotated across calls (default 4)")
    p.add_argument("--threads", type=int, help="CPU cores for Pinocchio (default: all)")
    p.add_argument("--time-budget", type=float, help="start no cell after this many seconds")
    p.add_argument("--resume", action="store_true", help="keep the measured rows of an existing --out")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: batches 1 and 16, 3 reps, 2 buffers, no minimum time")
    p.add_argument("--commit", help="commit to record when git is not available")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--check", action="store_true", help="compare the peers with grid-rbd, no timing")
    p.add_argument("--verbose", action="store_true", help="print tracebacks of failing cells")
    opts = p.parse_args(argv)
    defaults = QUICK if opts.quick else {"batches": BATCHES, "reps": 20, "buffers": 4, "min_time": 0.2}
    for k, v in defaults.items():
        if getattr(opts, k) is None:
            setattr(opts, k, v)
    if opts.reps < 1 or opts.buffers < 1 or any(b < 1 for b in opts.batches):
        p.error("--reps, --buffers and batches must be positive")
    opts.max_reps = max(opts.max_reps, opts.reps)
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    for path in (REPO_ROOT, REPO_ROOT / "python"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    if opts.check:
        return run_checks(opts)
    results = measure(opts)
    print(results.path)  # the only line on stdout: `go tool mage bench` reads it
    return 0


if __name__ == "__main__":
    sys.exit(main())
