"""The operator library's contract: every function the spec (../shared/seeds/003_*.txt) documents, by
section, and where the headers and the harness cover it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = sorted((REPO_ROOT.parent / "shared" / "seeds").glob("003_*.txt"))
HEADERS = REPO_ROOT / "kernels" / "glass"

# a documented signature line: "[template<...>] <return type> <name>(<parameters>)#"
_SIGNATURE = re.compile(r"^(?:template<.*?>\s+)?[\w:<>,*& ]+?\b(\w+)\((.*)\)#$")
# a section heading: a short line ending in '#' that is not a signature
_HEADING = re.compile(r"^(?!.*::)([A-Z][^#<=]{2,60})#$")


@dataclass(frozen=True)
class Function:
    section: str
    name: str
    signatures: tuple[str, ...]  # every documented overload


def spec_functions(spec: Path | None = None) -> list[Function]:
    """The documented functions in spec order, overloads grouped under one name per section."""
    path = spec or SPEC[0]
    section = ""
    found: dict[tuple[str, str], list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        m = _SIGNATURE.match(line)
        if m:
            found.setdefault((section, m.group(1)), []).append(line[:-1])
            continue
        h = _HEADING.match(line)
        if h and h.group(1) not in ("Functions", "Template Parameters", "Parameters", "Returns"):
            section = h.group(1).strip()
    return [Function(s, n, tuple(sig)) for (s, n), sig in found.items()]


def header_text() -> str:
    return "\n".join(p.read_text() for p in sorted(HEADERS.glob("*.cuh")))


def defined_in_headers(name: str, text: str) -> bool:
    """Whether the headers define a function of that name (a return type or template line, then name()."""
    return re.search(rf"^[ \t]*(?:GLASS_HD|GLASS_DEVICE|inline|constexpr|template)[^\n;]*\b{re.escape(name)}\s*\(",
                     text, re.M) is not None


def scope_units(f: Function) -> list[str]:
    """The scopes a function must be exercised in. The spec documents an array operator's block form (with
    TRAILING_SYNC) and, as a second signature without it, the form glass::warp and glass::thread share:
    such a function needs block, warp and thread calls. A block-only function (the _fast warp-shuffle
    reductions, block-level detail templates) needs a block call; any other function one call."""
    synced = [s for s in f.signatures if "TRAILING_SYNC" in s]
    plain = [s for s in f.signatures if "TRAILING_SYNC" not in s]
    if synced and plain:
        return ["block", "warp", "thread"]
    if synced:
        return ["block"]
    return ["any"]
