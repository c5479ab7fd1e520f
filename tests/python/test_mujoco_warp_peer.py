"""The MuJoCo Warp benchmark peer (bench/peers/mujoco_warp.py) computes what grid-rbd computes.

On a fixed-base (iiwa) and a floating-base robot (go2, whose free-flyer conventions differ from MuJoCo's), the
peer's forward dynamics and mass matrix, converted back by bench/peers/mjx.py's converters, are compared with
grid-rbd's (float64) and with MuJoCo's C library on the same MJCF, on benchmark states rounded to float32
(MuJoCo Warp computes in float32; tolerances from the peer's ``tolerances``: 1e-5 for M, 1e-7 cond(M) for
forward dynamics). The results come from replayed graphs, as the benchmark times them; the benchmark's cell
code (``bench.run._measure_cell``) runs too.

The peer runs on the first CUDA GPU or, where there is none, on Warp's CPU device (kernels compiled for the
host on first use, tens of seconds, then cached by Warp). Where mujoco, mujoco_warp or warp do not import
(the CI installs none of them), every test here is skipped with that reason.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import refdata

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.peers import mujoco_warp as peer_module  # noqa: E402  (imports no MuJoCo by itself)

_WHY = peer_module.importable()
if _WHY:
    pytest.skip(f"MuJoCo Warp peer not tested: {_WHY}", allow_module_level=True)

import bench.run as bench_run  # noqa: E402
from bench.peers.mjx import from_mujoco_acceleration  # noqa: E402
from bench.states import random_states  # noqa: E402
from grid_rbd._artifacts import find_robot  # noqa: E402

ROBOTS = [r for r in ("iiwa", "go2") if r in refdata.robot_names()]
OPS = ("forward_dynamics_minv", "mass_matrix")
SAMPLES = 8
_peers: dict[str, peer_module.MjWarpPeer] = {}


def _device() -> str:
    import warp as wp

    return "cuda:0" if wp.get_cuda_device_count() else "cpu"


def peer(robot: str) -> peer_module.MjWarpPeer:
    if robot not in _peers:
        _peers[robot] = peer_module.MjWarpPeer(find_robot(robot), device=_device())
    return _peers[robot]


def states(robot: str, batch: int, seed: int):
    """Benchmark states (bench.run.random_states) at float32 values: what MuJoCo Warp computes on."""
    drawn = random_states(peer(robot).model, batch, np.random.default_rng(seed))
    return tuple(a.astype(np.float32).astype(np.float64) for a in drawn)


@pytest.mark.parametrize("reference_source", ["grid-rbd", "MuJoCo"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("robot", ROBOTS)
def test_agrees_with_references(robot, op, reference_source, jax_handle):
    p = peer(robot)
    q, qd, _, tau = states(robot, SAMPLES, seed=1)
    handle = jax_handle(robot)
    mass = np.asarray(handle.mass_matrix(q))
    if reference_source == "grid-rbd":
        want = mass if op == "mass_matrix" else np.asarray(handle.forward_dynamics(q, qd, tau))
    else:
        want = peer_module.mujoco_reference(p, op, q, qd, tau)
    got = p.compute(op, q, qd, tau)
    assert got.shape == want.shape
    err = peer_module.relative_error(got, want)
    tol = peer_module.tolerances(mass)[op]
    worst = int(np.argmax(err / tol))
    assert np.all(err <= tol), (f"{robot} {op} against {reference_source}: relative error {err[worst]:.2e} "
                                f"> {tol[worst]:.1e} at sample {worst}")


@pytest.mark.parametrize("robot", ROBOTS)
def test_each_graph_computes_its_input_set(robot, jax_handle):
    """Set k's graph reads set k's inputs, whatever replayed before it; host_call gives the same."""
    p = peer(robot)
    host = [states(robot, 2, seed=10 + k) for k in range(3)]
    sets = [p.inputs("forward_dynamics_minv", *s) for s in host]
    replay = p.prepare("forward_dynamics_minv", sets)
    assert not isinstance(replay, str), replay
    try:
        assert replay.first_call_s > 0 and replay.capture_s > 0
        handle = jax_handle(robot)
        for k in (2, 0, 1, 2):
            q, qd, _, tau = host[k]
            want = np.asarray(handle.forward_dynamics(q, qd, tau))
            tol = peer_module.tolerances(np.asarray(handle.mass_matrix(q)))["forward_dynamics_minv"]
            replay.call(k)
            got = from_mujoco_acceleration(p.model, q, qd, replay.result().astype(np.float64))
            assert np.all(peer_module.relative_error(got, want) <= tol), f"graph {k} after another set's"
            through_host = from_mujoco_acceleration(p.model, q, qd, replay.host_call(k, sets[k]).astype(np.float64))
            np.testing.assert_array_equal(through_host, got)
    finally:
        replay.close()


def test_benchmark_cells():
    """bench.run's cell code: a float32 row with the timing fields, reasons for the cells there are none of."""
    robot = ROBOTS[0]
    build = find_robot(robot)
    model = peer(robot).model
    impl = bench_run.MjWarpImpl(build, model, device=_device())
    opts = bench_run.parse_args(["--quick", "--reps", "3"])
    try:
        cache: dict = {}
        for op in OPS:
            for batch in (1, 4):
                row = bench_run._measure_cell("mjwarp", impl, model, op, "float32", batch, cache, opts)
                assert isinstance(row, dict), row
                assert row["reps"] >= 3 and 0 < row["min_s"] <= row["median_s"] <= row["p90_s"]
                assert row["samples_per_s"] == pytest.approx(batch / row["median_s"])
                assert row["first_call_s"] > 0 and row["capture_s"] > 0
                assert ("host_latency_s" in row) == (batch == 1)
            assert (bench_run._measure_cell("mjwarp", impl, model, op, "float64", 1, cache, opts)
                    == peer_module.FLOAT32_ONLY)
        for op in set(bench_run.OPS) - set(OPS):
            reason = bench_run._measure_cell("mjwarp", impl, model, op, "float32", 1, cache, opts)
            assert isinstance(reason, str) and reason == peer_module.MISSING[op]
    finally:
        impl.close()


def test_unavailable_without_a_gpu(tmp_path):
    """Without a CUDA GPU the peer is not timed, and says why; with one it is."""
    import warp as wp

    why = bench_run.impl_available("mjwarp")
    if wp.get_cuda_device_count():
        assert why is None
        return
    assert why is not None and "CUDA" in why
    with pytest.raises(RuntimeError, match="CUDA"):
        peer_module.MjWarpPeer(find_robot(ROBOTS[0]))
