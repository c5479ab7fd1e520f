"""Robots built at run time from a URDF (``from_urdf``, ``python -m grid_rbd build``): the kernels agree with
Pinocchio, a second call and a second process reuse the cached build, and a bad URDF raises ValueError naming
the element and line. A build defers its derivative and rollout libraries: forward dynamics runs before they
exist, the first derivative call compiles or waits for them, two processes racing build each library once,
and a killed deferred build leaves nothing behind that a later call would load. The generator is the
checkout's, built with Go (``GRID_RBD_GENERATOR`` or a wheel's bundled one take its place elsewhere).
The module runs with ``GRID_RBD_DEFER=first-use``, so that no compile outlives a test that did not wait for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import refdata

ROBOT = "hyq"  # a shared robot, built here apart from the suite's own build
REPO_ROOT = Path(__file__).resolve().parents[2]
DERIVATIVES, SECOND_ORDER = "libgrid_rbd_cpu_derivatives.so", "libgrid_rbd_cpu_second_order.so"
ROLLOUTS = "libgrid_rbd_cpu_rollouts.so"

# Two revolute links: the cheapest unrolled robot, for the tests that build one from nothing more than once.
TWO_LINKS = """<robot name="two_links">
  <link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
  <link name="l1"><inertial><origin xyz="0.1 0 0"/><mass value="1.0"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.2 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
  <link name="l2"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
</robot>
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("grid_rbd_cache")
    env = {"GRID_RBD_CACHE": str(path), "GRID_RBD_DEFER": "first-use"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    yield path
    for k, v in old.items():
        if v is None:
            del os.environ[k]
        else:
            os.environ[k] = v


def _python_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "python"), os.environ.get("PYTHONPATH", "")]))


def _urdf(name: str = ROBOT) -> Path:
    return {r.name: r for r in refdata.robot_set()}[name].path()


def test_from_urdf_matches_pinocchio(cache, reference):
    from grid_rbd.jax import JaxRobotHandle

    h = JaxRobotHandle.from_urdf(_urdf())
    assert Path(h.build_dir).is_relative_to(cache)
    ref = reference(ROBOT)
    q, qd, tau = (ref.inputs[k] for k in ("q", "qd", "tau"))
    np.testing.assert_allclose(np.asarray(h.forward_dynamics(q, qd, tau)), ref.outputs["forward_dynamics"],
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.asarray(h.mass_matrix(q)), ref.outputs["mass_matrix"], rtol=1e-9, atol=1e-9)


def test_a_rolled_free_flyer_matches_pinocchio(cache, reference):
    """roll="always" (the quick build for large robots) and floating=True reach the generator."""
    from grid_rbd.jax import JaxRobotHandle

    h = JaxRobotHandle.from_urdf(_urdf("go2"), floating=True, roll="always")
    assert h.floating_base and "idsva_so" in h._robot.metadata.unavailable, "not the rolled description"
    ref = reference("go2")
    q, qd, tau = (ref.inputs[k] for k in ("q", "qd", "tau"))
    np.testing.assert_allclose(np.asarray(h.forward_dynamics(q, qd, tau)), ref.outputs["forward_dynamics"],
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="roll must be one of"):
        JaxRobotHandle.from_urdf(_urdf("go2"), roll="sometimes")


def test_the_cache_is_reused(cache):
    import grid_rbd

    start = time.perf_counter()
    h = grid_rbd.RobotHandle.from_urdf(_urdf())
    again = time.perf_counter() - start
    assert again < 1.0, f"a cached build took {again:.2f} s to find"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "grid_rbd", "build", str(_urdf())], capture_output=True, text=True,
                          env=_python_env(), timeout=120, check=False)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()) == Path(h.build_dir), "another process built its own copy"
    assert elapsed < 10.0, f"a second process took {elapsed:.1f} s (interpreter start included)"


def test_a_bad_urdf_names_the_line(cache, tmp_path):
    from grid_rbd.jax import JaxRobotHandle

    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n  <link name="a"/>\n  <joint name="j" type="revolute">\n'
                   '    <parent link="a"/><child link="b"/>\n  </joint>\n</robot>\n')
    with pytest.raises(ValueError, match=r'line \d+: joint "j" names link "b", which is not defined'):
        JaxRobotHandle.from_urdf(bad)
    with pytest.raises(FileNotFoundError):
        JaxRobotHandle.from_urdf(tmp_path / "missing.urdf")


def test_derivatives_compile_on_first_use(cache, reference, capsys):
    """Forward dynamics runs from the core library alone; the first derivative call compiles the derivative
    library (saying so on stderr), whose kernels agree with Pinocchio; the second-order derivatives and the
    rollouts stay uncompiled."""
    from grid_rbd.jax import JaxRobotHandle

    h = JaxRobotHandle.from_urdf(_urdf("iiwa"))
    folder = Path(h.build_dir)
    ref = reference("iiwa")
    q, qd, tau = (ref.inputs[k] for k in ("q", "qd", "tau"))
    if not (folder / DERIVATIVES).exists():  # built by an earlier test of this session otherwise
        np.testing.assert_allclose(np.asarray(h.forward_dynamics(q, qd, tau)), ref.outputs["forward_dynamics"],
                                   rtol=1e-9, atol=1e-9)
        assert not (folder / DERIVATIVES).exists(), "forward dynamics waited for the derivative library"
        capsys.readouterr()
        dqdd_dq, dqdd_dqd, minv = h.forward_dynamics_derivatives(q, qd, tau)
        assert "grid_rbd: compiling iiwa's derivative kernels (first use)..." in capsys.readouterr().err
    else:
        dqdd_dq, dqdd_dqd, minv = h.forward_dynamics_derivatives(q, qd, tau)
    for got, want in ((dqdd_dq, "aba_dq"), (dqdd_dqd, "aba_dqd"), (minv, "minv")):
        np.testing.assert_allclose(np.asarray(got), ref.outputs[want], rtol=1e-8, atol=1e-8 * np.abs(ref.outputs[want]).max())
    assert (folder / DERIVATIVES).is_file()
    assert not (folder / SECOND_ORDER).exists() and not (folder / ROLLOUTS).exists()


def test_a_second_process_reuses_every_library(cache):
    """A process that finds the robot and its derivative library built loads both in well under a second."""
    from grid_rbd.jax import JaxRobotHandle

    h = JaxRobotHandle.from_urdf(_urdf("iiwa"))
    h._robot.target("forward_dynamics_gradient")  # built here if no earlier test did
    script = (
        "import sys, time\n"
        "from grid_rbd.jax import JaxRobotHandle\n"
        "start = time.perf_counter()\n"
        "h = JaxRobotHandle.from_urdf(sys.argv[1])\n"
        "h._robot.target('forward_dynamics_gradient')\n"
        "print(time.perf_counter() - start, h.build_dir)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(_urdf("iiwa"))], capture_output=True, text=True,
                          env=_python_env(), timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    elapsed, folder = proc.stdout.split()
    assert Path(folder) == Path(h.build_dir)
    assert "compiling" not in proc.stderr, proc.stderr
    assert float(elapsed) < 1.0, f"a second process took {float(elapsed):.2f} s to load the built libraries"


def _leftovers(folder: Path) -> list[str]:
    """What a finished or killed build must not leave where a later call would load it, or at all."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name == "cpu_objects")


def test_racing_killed_and_background_builds(tmp_path, monkeypatch, capsys):
    """Two processes that build one robot at once build it once and print one folder; a deferred build
    killed halfway leaves no library behind, and the next call that needs it compiles it; a background build
    serves the derivative call that waits for it and finishes every deferred library."""
    from grid_rbd import _runtime_build
    from grid_rbd.jax import JaxRobotHandle

    monkeypatch.setenv("GRID_RBD_CACHE", str(tmp_path / "cache"))
    urdf = tmp_path / "two_links.urdf"
    urdf.write_text(TWO_LINKS)
    cmd = [sys.executable, "-m", "grid_rbd", "build", str(urdf), "--defer=first-use"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_python_env())
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    folders = {out.strip() for out, _ in outs}
    assert len(folders) == 1, folders
    folder = Path(folders.pop())
    assert sum("built" in err for _, err in outs) == 1, "both processes compiled the core library"
    assert not (folder / DERIVATIVES).exists() and not _leftovers(folder)

    # kill a deferred build once it holds the lock and its compilers run
    killed = subprocess.Popen(_runtime_build._finish_command(folder, []), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while _runtime_build.deferred_build_started(folder) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()
    assert not any((folder / lib).exists() for lib in (DERIVATIVES, SECOND_ORDER, ROLLOUTS))
    assert _runtime_build.deferred_build_started(folder) is None, "the killed build still holds the lock"

    monkeypatch.setenv("GRID_RBD_DEFER", "background")
    h = JaxRobotHandle.from_urdf(urdf)  # starts the background build
    q = np.array([[0.3, -0.7], [1.1, 0.4]])
    qd, tau = np.array([[0.5, -1.0], [0.2, 0.3]]), np.array([[1.0, 2.0], [-0.5, 0.1]])
    capsys.readouterr()
    _, _, minv = h.forward_dynamics_derivatives(q, qd, tau)
    err = capsys.readouterr().err
    assert "derivative kernels" in err or (folder / DERIVATIVES).is_file(), err
    np.testing.assert_allclose(np.asarray(minv), np.asarray(h.minv(q)), rtol=1e-12, atol=1e-12)
    deadline = time.monotonic() + 300
    while not (folder / ROLLOUTS).is_file() or _runtime_build.deferred_build_started(folder) is not None:
        assert time.monotonic() < deadline, "the background build did not finish"
        time.sleep(0.2)
    assert (folder / "deferred.log").is_file() and not _leftovers(folder)


def test_a_build_for_the_gpu_adds_the_runtime_kernel_library(tmp_path, monkeypatch):
    """With GRID_RBD_CUDA_RTC=yes (auto does so on a GPU machine) a build also compiles the CUDA handler library
    of kernels compiled at run time, against the nvidia-cuda-runtime wheel's headers, in a folder of its own;
    "no" and a machine without a GPU leave it out. The library loads without a GPU; launching waits for one."""
    import ctypes

    from grid_rbd import _runtime_build
    from grid_rbd._artifacts import CUDA_RTC_LIBRARY

    monkeypatch.setenv("GRID_RBD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GRID_RBD_DEFER", "first-use")
    urdf = tmp_path / "two_links.urdf"
    urdf.write_text(TWO_LINKS)
    monkeypatch.setenv("GRID_RBD_CUDA_RTC", "yes")
    with_cuda = _runtime_build.build_from_urdf(urdf)
    assert (with_cuda / CUDA_RTC_LIBRARY).is_file()
    lib = ctypes.CDLL(str(with_cuda / CUDA_RTC_LIBRARY))
    assert lib.grid_rtc_load and lib.grid_aba_cuda and lib.grid_forward_dynamics_cuda
    monkeypatch.setenv("GRID_RBD_CUDA_RTC", "no")
    without = _runtime_build.build_from_urdf(urdf)
    assert without != with_cuda and not (without / CUDA_RTC_LIBRARY).exists()
    monkeypatch.setenv("GRID_RBD_CUDA_RTC", "sometimes")
    with pytest.raises(ValueError, match="GRID_RBD_CUDA_RTC"):
        _runtime_build.build_from_urdf(urdf)


def test_a_build_for_the_gpu_compiles_the_first_calls_kernels_beside_its_libraries(tmp_path, monkeypatch):
    """Building for the GPU, the kernels of forward dynamics (ABA) compile with NVRTC while the host compiler
    builds the libraries (no GPU is needed to compile them: the GPU's compute capability is given here), and
    the build folder then holds them, so that the first call only loads them."""
    from grid_rbd import _rtc, _runtime_build
    from grid_rbd._metadata import load_metadata
    from support import FakeRTCLibrary

    monkeypatch.setenv("GRID_RBD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GRID_RBD_DEFER", "first-use")
    monkeypatch.setenv("GRID_RBD_CUDA_RTC", "yes")
    started = []

    def prefetch(work):
        assert (work / "grid.cuh").is_file() and not (work / "libgrid_rbd_cpu.so").exists()
        started.append(work)
        return _rtc.prefetch(work, "9.0")

    monkeypatch.setattr(_runtime_build, "_prefetch_kernels", prefetch)
    urdf = tmp_path / "two_links.urdf"
    urdf.write_text(TWO_LINKS)
    folder = _runtime_build.build_from_urdf(urdf)
    assert len(started) == 1
    metadata = load_metadata(folder / "metadata.json")
    names = metadata.algorithms["aba"].kernels
    assert len(list((folder / _rtc.CACHE_DIR).glob("*.cubin"))) == len(names)

    def no_nvrtc(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(_rtc._KernelCache, "compile", no_nvrtc)
    lib = FakeRTCLibrary()
    _rtc.RuntimeKernels(folder, lib, metadata, "sm_90").load("aba")
    assert set(lib.loaded) == set(names)


def test_a_gpu_is_told_without_starting_cuda(tmp_path, monkeypatch):
    """A build decides whether to compile for the GPU from the driver's GPU list and JAX's plugins, so that CUDA
    starts beside the generator rather than before it."""
    import importlib.metadata
    import sys

    from grid_rbd import _runtime_build

    gpus = tmp_path / "gpus"
    monkeypatch.setattr(_runtime_build, "_NVIDIA_GPUS", gpus)
    assert not _runtime_build._gpu_likely()  # no driver
    gpus.mkdir()
    assert not _runtime_build._gpu_likely()  # a driver without GPUs
    (gpus / "0000:18:00.0").mkdir()

    class EntryPoint:
        def __init__(self, name):
            self.name = name

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [EntryPoint("xla_cuda13")])
    assert _runtime_build._gpu_likely()
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    monkeypatch.setitem(sys.modules, "jax_plugins", None)  # no plugin package: importing it fails
    assert not _runtime_build._gpu_likely()


def test_the_gpus_architecture_comes_from_the_driver_api(monkeypatch):
    """The first call's kernels start compiling on the architecture libcuda reports (no CUDA context, so no wait
    for JAX's start); a driver that cannot say gives None, and JAX is asked instead."""
    import ctypes

    from grid_rbd import _runtime_build

    class FakeDriver:
        def __init__(self, init_status):
            self.init_status = init_status

        def cuInit(self, flags):
            return self.init_status

        def cuDeviceGet(self, device, ordinal):
            device._obj.value = ordinal
            return 0

        def cuDeviceGetAttribute(self, value, attribute, device):
            value._obj.value = {75: 9, 76: 0}[attribute]
            return 0

    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeDriver(0))
    assert _runtime_build._compute_capability() == "9.0"
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeDriver(100))  # CUDA_ERROR_NO_DEVICE
    assert _runtime_build._compute_capability() is None

    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert _runtime_build._compute_capability() is None
