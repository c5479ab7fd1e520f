"""The robot roster (testdata/robots/roster.json) for the Python tools: the robots of a suite and their URDF
paths, resolved as internal/roster resolves them in Go.

A robot's ``urdf`` is ``shared:<file>`` (``$GRID_ROBOTS_DIR``, the shared material beside the checkout, or
``shared/robots`` in it), ``erd:<path>`` (example-robot-data, installed with the test environment) or
``repo:<path>`` (this repository).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "testdata" / "robots" / "roster.json"


@dataclass(frozen=True)
class Robot:
    name: str
    urdf: str
    floating: bool = False
    seed: int = 0
    long: bool = False
    large: bool = False
    suites: tuple[str, ...] = ()
    collision: bool = False


def load() -> list[Robot]:
    """Every robot of the roster, in its order."""
    doc = json.loads(FILE.read_text())
    return [Robot(r["name"], r["urdf"], bool(r.get("floating", False)), int(r.get("seed", 0)),
                  bool(r.get("long", False)), bool(r.get("large", False)), tuple(r.get("suites", ())),
                  bool(r.get("collision", False)))
            for r in doc["robots"]]


def suite(name: str) -> list[Robot]:
    """The robots of one suite: host, pytest, gpu or bench."""
    return [r for r in load() if name in r.suites]


def find(name: str) -> Robot:
    for r in load():
        if r.name == name:
            return r
    raise KeyError(f"no robot {name!r} in {FILE}")


def shared_dirs() -> list[Path]:
    dirs = [ROOT.parent / "shared" / "robots", ROOT / "shared" / "robots"]
    env = os.environ.get("GRID_ROBOTS_DIR")
    return ([Path(env)] if env else []) + dirs


def example_robot_data_dir() -> Path:
    """The robots folder of example-robot-data (installed in .venv by `go tool mage venv`)."""
    prefixes = [Path(sys.prefix), ROOT / ".venv"]
    for prefix in prefixes:
        for site in sorted(prefix.glob("lib/python3*/site-packages")):
            d = site / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
            if d.is_dir():
                return d
    raise FileNotFoundError("example-robot-data is not installed (looked under "
                            + ", ".join(str(p) for p in prefixes)
                            + "); run `go tool mage venv` to create the test environment")


def resolve(ref: str) -> Path:
    """The path of a URDF reference (see the module's docstring)."""
    kind, _, rel = ref.partition(":")
    if not rel:
        raise ValueError(f"bad URDF reference {ref!r}: expected shared:, repo: or erd: before the path")
    if kind == "shared":
        for d in shared_dirs():
            if (d / rel).is_file():
                return d / rel
        raise FileNotFoundError(f"{rel} is in none of {', '.join(map(str, shared_dirs()))}: set GRID_ROBOTS_DIR, "
                                "or provide ../shared beside the checkout")
    if kind == "repo":
        return ROOT / rel
    if kind == "erd":
        return example_robot_data_dir() / rel
    raise ValueError(f"bad URDF reference {ref!r}: expected shared:, repo: or erd: before the path")


def urdf_path(name: str) -> Path:
    """The URDF of the roster's robot `name`."""
    return resolve(find(name).urdf)
