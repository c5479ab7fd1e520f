"""Fixtures of the operator tests: the harness library, built once per session."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import harness as harness_module  # noqa: E402


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    """The built operator harness (a build failure fails every operator test with the compiler's output)."""
    return harness_module.Harness(harness_module.build(tmp_path_factory.mktemp("harness")))


@pytest.fixture
def rng(request):
    """A generator seeded from the test id: the same cases on every run."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def pytest_terminal_summary(terminalreporter):
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
