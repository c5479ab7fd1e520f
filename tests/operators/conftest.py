"""Fixtures of the operator tests: the harness library, built once per session.

With GLASS_HARNESS_GPU=1 the library is built with nvcc and every call runs on the GPU (see harness.py); the
run then ends with a summary of what the device ran, also written as JSON to $GLASS_HARNESS_GPU_REPORT. Tests
marked ``pinocchio`` are deselected in GPU mode when Pinocchio is not installed (GPU machines lack it).
GLASS_HARNESS_LIB names an already built library to load instead of building one.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import harness as harness_module  # noqa: E402


@functools.cache
def _have_pinocchio() -> bool:
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        return False
    return True


def pytest_configure(config):
    config.addinivalue_line("markers", "pinocchio: compares with Pinocchio (deselected in GPU mode without it)")
    if harness_module.gpu_mode() and harness_module.find_nvcc() is None:
        _stop("nvcc was not found ($NVCC, PATH, .venv/lib/python3*/site-packages/nvidia/cu13/bin, /usr/local/cuda/bin)")


def _stop(why: str):
    """Ends a GPU run that cannot run (exit status 4), saying why."""
    harness_module.STATS.fatal = why
    pytest.exit(f"{harness_module.GPU_ENV}=1 asks for the GPU run of the operator tests, but {why}", returncode=4)


def pytest_collection_modifyitems(config, items):
    if _have_pinocchio():
        return
    needs = [item for item in items if item.get_closest_marker("pinocchio")]
    if not needs or not harness_module.gpu_mode():
        return  # the host run needs Pinocchio: those tests fail in setup (pytest_runtest_setup)
    config.hook.pytest_deselected(items=needs)
    items[:] = [item for item in items if not item.get_closest_marker("pinocchio")]
    harness_module.STATS.deselected = len(needs)
    harness_module.STATS.deselected_reason = "Pinocchio is not installed (tests marked 'pinocchio')"


def pytest_runtest_setup(item):
    harness_module.LAST_CALL.clear()
    if item.get_closest_marker("pinocchio") and not _have_pinocchio():
        pytest.fail("Pinocchio is not installed; the host run of the operator tests needs it (pip install pin)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """GPU mode: a failed test reports its last device call with the host result beside it."""
    outcome = yield
    rep = outcome.get_result()
    last = harness_module.LAST_CALL
    if rep.when != "call" or not rep.failed or not harness_module.gpu_mode() or not last:
        return
    rep.sections.append(("last harness call on the device", f"{last['name']} (bitwise equal to the host: "
                         f"{last['bitwise_equal']})\ninputs: {last['inputs']}\ndevice: {last['device']}\n"
                         f"host:   {last['host']}"))
    harness_module.STATS.failed_tests.append({"test": item.nodeid, "last_call": last["name"],
                                              "device_bitwise_equal_to_host": last["bitwise_equal"]})


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    """The built operator harness (a build failure fails every operator test with the compiler's output; in GPU
    mode a missing CUDA device stops the run)."""
    gpu = harness_module.gpu_mode()
    prebuilt = os.environ.get("GLASS_HARNESS_LIB")  # a library built earlier (e.g. by a previous GPU run)
    lib = Path(prebuilt) if prebuilt else harness_module.build(tmp_path_factory.mktemp("harness"), gpu=gpu)
    try:
        return harness_module.Harness(lib, gpu=gpu)
    except harness_module.DeviceUnavailable as e:
        _stop(f"the device is not usable: {e}")


@pytest.fixture
def rng(request):
    """A generator seeded from the test id: the same cases on every run."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _gpu_summary(terminalreporter):
    stats = harness_module.STATS
    report = stats.as_dict()
    w = terminalreporter.write_line
    terminalreporter.write_sep("-", "GPU run of the operator harness")
    if report["fatal"]:
        w(f"STOPPED:                     {report['fatal']}")
    w(f"device:                      {report['device'] or '(not initialised)'}")
    w(f"harness build:               {report['build_seconds']} s ({report['build']})")
    w(f"calls run on the device:     {report['calls_run_on_device']} ({report['distinct_calls']} distinct; "
      + ", ".join(f"{k} {v}" for k, v in report["calls_by_scope"].items()) + ")")
    w(f"kernel launches:             {report['kernel_launches']} ({report['problems']} problems)")
    for scope, counts in report["thread_counts"].items():
        w(f"{'thread counts, ' + scope + ' scope:':<28} {', '.join(map(str, counts))}")
    w(f"calls on two inputs:         {report['calls_with_two_inputs']} (problems alternating current/previous)")
    gm = report["global_memory_calls"]
    w("problems in global memory:   " + (", ".join(f"{k} scope {v} calls ({report['global_memory_launches'][k]} "
                                                   "launches)" for k, v in gm.items()) if gm else "none")
      + (f"; block-scope calls: {len(report['global_memory_block_scope_names'])} (names in the report)"
         if report["global_memory_block_scope_names"] else ""))
    w(f"thread-count mismatches:     {report['mismatches']}")
    w(f"device errors:               {report['device_errors']}")
    w(f"bitwise equal to the host:   {report['calls_bitwise_equal_to_host']} of {report['calls_run_on_device']} calls")
    if report["failed_tests"]:
        w(f"failed tests:                {len(report['failed_tests'])} (last device call of each in the report)")
    if report["deselected_tests"]:
        w(f"deselected tests:            {report['deselected_tests']} ({report['deselected_reason']})")
    path = os.environ.get(harness_module.REPORT_ENV)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(report, indent=2) + "\n")
        w(f"report:                      {path}")


def pytest_terminal_summary(terminalreporter):
    if harness_module.gpu_mode():
        _gpu_summary(terminalreporter)

    from test_contract import COVERAGE, SCOPE_COVERAGE

    if not COVERAGE:
        return
    terminalreporter.write_sep("-", "operator contract (spec functions in kernels/glass, tested, tested in every scope)")
    total = [0, 0, 0, 0, 0]
    for section, (n, d, t) in COVERAGE.items():
        u, ud = SCOPE_COVERAGE.get(section, (0, 0))
        terminalreporter.write_line(f"{section:<34} {d:3d}/{n:<3d} in headers {t:3d}/{n:<3d} tested "
                                    f"{ud:3d}/{u:<3d} function·scopes")
        total = [total[0] + n, total[1] + d, total[2] + t, total[3] + u, total[4] + ud]
    terminalreporter.write_line(f"{'all':<34} {total[1]:3d}/{total[0]:<3d} in headers {total[2]:3d}/{total[0]:<3d} tested "
                                f"{total[4]:3d}/{total[3]:<3d} function·scopes")
