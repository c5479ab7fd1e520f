"""Which CPU library of a build directory runs which handler.

A build of ``go tool mage build`` has one CPU library, ``libgrid_rbd_cpu.so``, that runs them all. A run-time
build (:mod:`grid_rbd._runtime_build`) spreads them over several, listed in ``cpu_libraries.json``
(``codegen/build.LibraryInfo``): ``libgrid_rbd_cpu.so`` runs what a first call needs, and *deferred*
libraries, compiled after the build directory was written (the derivatives, the fused rollouts), run the
rest. Every library exports every algorithm's handler; those of the algorithms it was built without return
an error, so each handler is registered from the library listed for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ._artifacts import CPU_LIBRARY
from ._metadata import RobotMetadata

__all__ = ["LIBRARIES", "CPULibrary", "LibrariesError", "cpu_libraries", "listed_libraries"]

LIBRARIES = "cpu_libraries.json"


class LibrariesError(ValueError):
    """``cpu_libraries.json`` is malformed or does not match the metadata."""


@dataclass(frozen=True, slots=True)
class CPULibrary:
    """One CPU library of a build directory.

    Attributes:
      file: its name in the build directory.
      kernels: what it holds, for progress messages (``"derivative"``).
      algorithms: the algorithms whose handlers it runs.
      trajectories: the fused rollout handlers it exports.
      deferred: compiled after the build directory was written, possibly not yet.
    """

    file: str
    kernels: str
    algorithms: tuple[str, ...]
    trajectories: tuple[str, ...]
    deferred: bool

    @property
    def targets(self) -> tuple[str, ...]:
        """Its algorithms and fused rollouts: the handlers registered from it."""
        return self.algorithms + self.trajectories


def listed_libraries(build_dir: Path) -> tuple[CPULibrary, ...] | None:
    """The CPU libraries ``cpu_libraries.json`` lists, or ``None`` without one (``libgrid_rbd_cpu.so`` runs
    every handler).

    Raises:
      LibrariesError: the file is malformed.
      OSError: it cannot be read.
    """
    path = build_dir / LIBRARIES
    if not path.is_file():
        return None
    try:
        return tuple(
            CPULibrary(str(e["file"]), str(e["kernels"]), tuple(map(str, e["algorithms"])),
                       tuple(map(str, e["trajectories"])), bool(e["deferred"]))
            for e in json.loads(path.read_text())
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise LibrariesError(f"{path} is malformed: {exc!r}") from exc


def cpu_libraries(build_dir: Path, metadata: RobotMetadata) -> tuple[CPULibrary, ...]:
    """The CPU libraries of a build directory, each handler of the metadata in exactly one.

    Raises:
      LibrariesError: ``cpu_libraries.json`` is malformed, or does not list every handler exactly once.
      OSError: it cannot be read.
    """
    algorithms = tuple(metadata.algorithms)
    trajectories = tuple(metadata.trajectories)
    libraries = listed_libraries(build_dir)
    if libraries is None:
        return (CPULibrary(CPU_LIBRARY, "dynamics", algorithms, trajectories, deferred=False),)
    path = build_dir / LIBRARIES
    listed = [t for lib in libraries for t in lib.targets]
    if sorted(listed) != sorted(algorithms + trajectories):
        raise LibrariesError(f"{path} lists the handlers {sorted(listed)}; metadata.json has "
                             f"{sorted(algorithms + trajectories)}")
    if not any(lib.file == CPU_LIBRARY and not lib.deferred for lib in libraries):
        raise LibrariesError(f"{path} does not list {CPU_LIBRARY}")
    return libraries
