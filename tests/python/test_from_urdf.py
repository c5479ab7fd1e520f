"""Robots built at run time from a URDF (``from_urdf``, ``python -m grid_rbd build``): the kernels agree with
Pinocchio, a second call and a second process reuse the cached build, and a bad URDF raises ValueError naming
the element and line. The generator is the checkout's, built with Go (``GRID_RBD_GENERATOR`` or a wheel's
bundled one take its place elsewhere)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import refdata

ROBOT = "hyq"  # a shared robot, built here apart from the suite's own build
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("grid_rbd_cache")
    old = os.environ.get("GRID_RBD_CACHE")
    os.environ["GRID_RBD_CACHE"] = str(path)
    yield path
    if old is None:
        del os.environ["GRID_RBD_CACHE"]
    else:
        os.environ["GRID_RBD_CACHE"] = old


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
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "grid_rbd", "build", str(_urdf())], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
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
