"""Locating a robot's build directory.

A build directory is what ``go tool mage build <urdf> [-floating] [-out=DIR]`` writes: ``metadata.json``,
``grid.cuh``, the CPU kernel library ``libgrid_rbd_cpu.so`` and, for CUDA builds, ``libgrid_rbd_cuda.so``.

A robot is named either by a path to such a directory or by its name, which is looked up, in order, in

1. every directory listed in the environment variable ``GRID_RBD_PATH`` (separated by ``os.pathsep``),
   each holding ``<name>/`` subdirectories;
2. ``grid_rbd/_robots/<name>/`` inside the installed package (what a wheel bundles);
3. ``./build/<name>/`` relative to the current working directory (the repository's default output).

The first directory that holds both ``metadata.json`` and ``libgrid_rbd_cpu.so`` wins.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "CPU_LIBRARY",
    "CUDA_LIBRARY",
    "CUDA_RTC_LIBRARY",
    "ENV_VAR",
    "METADATA",
    "RobotNotBuiltError",
    "available_robots",
    "find_robot",
    "search_roots",
]

ENV_VAR = "GRID_RBD_PATH"
METADATA = "metadata.json"
CPU_LIBRARY = "libgrid_rbd_cpu.so"
CUDA_LIBRARY = "libgrid_rbd_cuda.so"
# The CUDA handlers of kernels NVRTC compiles at run time (xla_ffi/ffi_cuda_rtc.cc), built without nvcc.
CUDA_RTC_LIBRARY = "libgrid_rbd_cuda_rtc.so"

_BUILD_HINT = (
    "Build it from the grid-rbd repository with `go tool mage build <path/to/robot.urdf> [-floating]` "
    "(it writes build/<urdf stem>/) and point {env} at the folder that holds that build directory, "
    "e.g. `export {env}=/path/to/grid-rbd/build`, or install a grid-rbd wheel that bundles the robot."
)


class RobotNotBuiltError(FileNotFoundError):
    """No usable build of a robot was found.

    Attributes:
      robot: the name or path that was asked for.
      searched: the directories that were examined, in search order.
    """

    robot: str
    searched: tuple[Path, ...]

    def __init__(self, robot: str, message: str, searched: tuple[Path, ...] = ()) -> None:
        super().__init__(message)
        self.robot = robot
        self.searched = searched

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[RobotNotBuiltError], tuple[str, str, tuple[Path, ...]]]:
        return (type(self), (self.robot, str(self.args[0]), self.searched))


def _package_robots_dir() -> Path:
    return Path(__file__).resolve().parent / "_robots"


def search_roots() -> list[Path]:
    """The directories searched for ``<name>/`` build directories, in order.

    Returns:
      The entries of ``GRID_RBD_PATH`` (empty entries skipped), the package's ``_robots`` directory and
      ``./build`` (made absolute against the current working directory).
    """
    roots: list[Path] = []
    for entry in os.environ.get(ENV_VAR, "").split(os.pathsep):
        if entry.strip():
            roots.append(Path(entry).expanduser().absolute())
    roots.append(_package_robots_dir())
    roots.append(Path.cwd() / "build")
    return roots


def _is_path(robot: str | os.PathLike[str]) -> bool:
    if isinstance(robot, os.PathLike):
        return True
    seps = [os.sep] + ([os.altsep] if os.altsep else [])
    return any(s in robot for s in seps) or robot in (".", "..") or robot.startswith("~")


def _state(directory: Path) -> str | None:
    """``None`` if the directory is a usable build; otherwise what is missing."""
    if not directory.is_dir():
        return "does not exist"
    has_meta = (directory / METADATA).is_file()
    has_lib = (directory / CPU_LIBRARY).is_file()
    if has_meta and has_lib:
        return None
    if has_meta:
        return (
            f"has {METADATA} but no {CPU_LIBRARY} "
            "(`go tool mage gen` writes only the header; `go tool mage build` also compiles the libraries)"
        )
    if has_lib:
        return f"has {CPU_LIBRARY} but no {METADATA}"
    return f"has neither {METADATA} nor {CPU_LIBRARY}"


def find_robot(robot: str | os.PathLike[str]) -> Path:
    """Finds a robot's build directory.

    Args:
      robot: a path to a build directory (any ``os.PathLike``, or a string containing a path separator,
        starting with ``~`` or equal to ``.``/``..``), or a robot name looked up as described in the
        module documentation.

    Returns:
      The absolute, symlink-resolved build directory.

    Raises:
      RobotNotBuiltError: no directory with both ``metadata.json`` and ``libgrid_rbd_cpu.so`` was found.
      TypeError: ``robot`` is neither a string nor a path.
      ValueError: ``robot`` is an empty string.
    """
    if not isinstance(robot, (str, os.PathLike)):
        raise TypeError(f"robot must be a name or a path; got {type(robot).__name__}")
    hint = _BUILD_HINT.format(env=ENV_VAR)
    if _is_path(robot):
        directory = Path(robot).expanduser().absolute()
        problem = _state(directory)
        if problem is None:
            return directory.resolve()
        raise RobotNotBuiltError(
            os.fspath(robot),
            f"robot directory {directory} is not a grid-rbd build: it {problem}. "
            "Build into it with `go tool mage build <path/to/robot.urdf> [-floating] "
            f"-out={directory}`, or pass a robot name to search {ENV_VAR}, the installed package and ./build.",
            (directory,),
        )
    name = os.fspath(robot)
    if not name:
        raise ValueError("robot name must not be empty")
    roots = search_roots()
    searched = tuple(root / name for root in roots)
    lines: list[str] = []
    for candidate in searched:
        problem = _state(candidate)
        if problem is None:
            return candidate.resolve()
        lines.append(f"  {candidate}: {problem}")
    env_note = (
        f"{ENV_VAR} is not set"
        if not os.environ.get(ENV_VAR, "").strip()
        else f"{ENV_VAR}={os.environ[ENV_VAR]}"
    )
    message = (
        f"robot {name!r} is not built: no directory holding {METADATA} and {CPU_LIBRARY} was found "
        f"({env_note}). Looked in, in order:\n" + "\n".join(lines) + f"\n{hint}"
    )
    raise RobotNotBuiltError(name, message, searched)


def available_robots() -> list[str]:
    """Names of the robots that can be loaded by name.

    Returns:
      The sorted names of all ``<name>/`` directories under :func:`search_roots` that hold both
      ``metadata.json`` and ``libgrid_rbd_cpu.so``. Each name appears once; loading it picks the first
      match in search order.
    """
    names: set[str] = set()
    for root in search_roots():
        if not root.is_dir():
            continue
        try:
            children = list(root.iterdir())
        except OSError:
            continue
        for child in children:
            if _state(child) is None:
                names.add(child.name)
    return sorted(names)
