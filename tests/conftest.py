"""Options shared by every pytest suite of the project (tests/python, tests/pinocchio, tests/operators).

``--progress`` prints one line per test file as it starts (its position, its number of tests and the
counts so far) and every failure as it happens, each prefixed with ``[pytest m:ss]``, so that long runs
(``go tool mage test`` and the Go driver of tests/python) show where they are. The lines are written from
pytest's reporting hooks, outside the tests' captured output.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

PREFIX = "[pytest"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--progress", action="store_true", default=False,
                     help="print a line per test file as it starts and each failure as it happens")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--progress"):
        config.pluginmanager.register(ProgressReporter(config), "grid-rbd-progress")


class ProgressReporter:
    """Writes the --progress lines through pytest's terminal writer."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.start = time.monotonic()
        self.per_file: Counter[str] = Counter()
        self.files: list[str] = []
        self.total = 0
        self.current: str | None = None
        self.outcomes: Counter[str] = Counter()

    def _line(self, text: str) -> None:
        elapsed = int(time.monotonic() - self.start)
        writer = self.config.get_terminal_writer()
        if writer.width_of_current_line:
            writer.line()
        writer.line(f"{PREFIX} {elapsed // 60}:{elapsed % 60:02d}] {text}")
        writer.flush()

    def _counts(self) -> str:
        o = self.outcomes
        return f"{o['passed']} passed, {o['failed']} failed, {o['error']} errors, {o['skipped']} skipped"

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            f = item.nodeid.split("::", 1)[0]
            if f not in self.per_file:
                self.files.append(f)
            self.per_file[f] += 1
        self.total = len(session.items)
        self._line(f"collected {self.total} tests in {len(self.files)} files")

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        f = nodeid.split("::", 1)[0]
        if f != self.current:
            self.current = f
            done = sum(self.outcomes.values())
            index = self.files.index(f) + 1 if f in self.files else 0
            self._line(f"file {index}/{len(self.files)}: {f} ({self.per_file[f]} tests; "
                       f"{done}/{self.total} done: {self._counts()})")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed) or \
                (report.when == "teardown" and report.failed):
            if report.passed:
                self.outcomes["passed"] += 1
            elif report.skipped:
                self.outcomes["skipped"] += 1
            elif report.when == "call":
                self.outcomes["failed"] += 1
                self._line(f"FAILED {report.nodeid}")
            else:
                self.outcomes["error"] += 1
                self._line(f"ERROR ({report.when}) {report.nodeid}")

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._line(f"finished {sum(self.outcomes.values())}/{self.total}: {self._counts()} "
                   f"(exit status {int(exitstatus)})")

