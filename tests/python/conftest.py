"""Shared fixtures of the grid_rbd pytest suite.

The robots (the roster's pytest suite, testdata/robots/roster.json) must be built beforehand; tests/suite_test.go does that
(``go test ./tests/ -run TestPython``) into build/pytest/<name> and runs this suite with GRID_RBD_PATH
pointing there. Run by hand, GRID_RBD_PATH defaults to <repo>/build/pytest and <repo>/python is put on
sys.path. A robot that is not built makes its tests ERROR.

JAX runs in 64-bit mode (float64 and float32 are both tested) on whatever jax.devices()[0] is; its
platform is part of every dtype-parametrised test id (``float64-cpu``) and a junit testsuite property.
With GRID_RBD_REFERENCE_DIR set, Pinocchio references come from .npz files instead of Pinocchio
(see refdata.py and make_reference.py).
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
os.environ.setdefault("GRID_RBD_PATH", str(REPO_ROOT / "build" / "pytest"))
try:
    import grid_rbd  # noqa: F401
except ImportError:
    sys.path.insert(0, str(REPO_ROOT / "python"))

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import refdata  # noqa: E402
import support  # noqa: E402


class _NoPinocchio:
    """In reference mode Pinocchio must not be imported: any attempt fails loudly."""

    def find_spec(self, name, path=None, target=None):
        if name == "pinocchio" or name.startswith("pinocchio."):
            raise ImportError(f"{refdata.REFERENCE_ENV} is set: the suite must not import Pinocchio "
                              f"(tried to import {name!r})")
        return None


if refdata.reference_dir() is not None:
    sys.meta_path.insert(0, _NoPinocchio())


def pytest_report_header(config):
    folder = refdata.reference_dir()
    source = f"stored in {folder}" if folder else "computed with Pinocchio"
    dev = jax.devices()[0]
    return [
        f"grid_rbd suite: JAX {jax.__version__} on {dev.platform} ({dev.device_kind}), x64 enabled",
        f"GRID_RBD_PATH={os.environ.get('GRID_RBD_PATH')}; Pinocchio references {source}",
    ]


@pytest.fixture(scope="session", autouse=True)
def _platform_properties(record_testsuite_property):
    dev = jax.devices()[0]
    record_testsuite_property("jax_platform", dev.platform)
    record_testsuite_property("jax_device", f"{dev.device_kind} ({dev})")
    record_testsuite_property("jax_version", jax.__version__)
    folder = refdata.reference_dir()
    record_testsuite_property("pinocchio_reference", str(folder) if folder else "live")


# ---------------------------------------------------------------------------
# Handles and references, made once per session


_handles: dict[tuple[str, str], object] = {}
_references: dict[str, refdata.Reference] = {}


def _load_handle(name: str, kind: str):
    key = (name, kind)
    if key not in _handles:
        import grid_rbd

        if kind == "jax":
            from grid_rbd.jax import JaxRobotHandle

            _handles[key] = JaxRobotHandle(name)
        else:
            _handles[key] = grid_rbd.RobotHandle(name)
    return _handles[key]


@pytest.fixture(scope="session")
def jax_handle():
    """jax_handle(name) -> the session's JaxRobotHandle of a robot (RobotNotBuiltError: test ERROR)."""
    return lambda name: _load_handle(name, "jax")


@pytest.fixture(scope="session")
def numpy_handle():
    """numpy_handle(name) -> the session's grid_rbd.RobotHandle of a robot."""
    return lambda name: _load_handle(name, "numpy")


@pytest.fixture(scope="session")
def reference():
    """reference(name) -> the robot's Pinocchio reference (computed, or loaded in reference mode)."""
    robots = {r.name: r for r in refdata.robot_set()}

    def get(name: str) -> refdata.Reference:
        if name not in _references:
            _references[name] = refdata.get(robots[name])
        return _references[name]

    return get


# ---------------------------------------------------------------------------
# Measured errors: a table at the end of the run (and GRID_RBD_ERROR_TABLE=<file> writes it as TSV)


@pytest.fixture(scope="session")
def error_log():
    return support.ERRORS


def pytest_terminal_summary(terminalreporter):
    if not support.ERRORS:
        return
    lines = support.error_table()
    terminalreporter.write_sep("-", "max relative error against Pinocchio (worst sample, worst output)")
    for line in lines:
        terminalreporter.write_line(line)
    path = os.environ.get("GRID_RBD_ERROR_TABLE")
    if path:
        Path(path).write_text(support.error_tsv())


@pytest.fixture
def rng(request):
    """A generator seeded from the test id, so every test draws the same inputs on every run."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
