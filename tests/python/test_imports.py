"""No import cycles among the project's Python modules (python/grid_rbd and bench), counting the imports
that run (those under ``if TYPE_CHECKING:`` only serve the type checker)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def _modules() -> dict[str, Path]:
    out = {}
    for base, top in ((REPO_ROOT / "python" / "grid_rbd", REPO_ROOT / "python"), (REPO_ROOT / "bench", REPO_ROOT)):
        for f in base.rglob("*.py"):
            parts = f.relative_to(top).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            target = (base + ("." + node.module if node.module else "")) if node.level else (node.module or "")
            names = [f"{target}.{a.name}" for a in node.names] + ([target] if node.module else [])
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        # importing a submodule imports its parent packages first; that is no cycle
        found |= {n for n in names if n in known and n != name and not name.startswith(n + ".")}
    return found


def test_no_import_cycles():
    known = _modules()
    assert "grid_rbd.jax" in known and "bench.run" in known
    edges = {m: _imports(m, p, known) for m, p in known.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(known):
        if m not in state:
            visit(m, [])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_every_kernel_name_the_handles_use_is_generated(jax_handle):
    """The one method -> kernel table names kernels that exist: every public method it lists is a method of
    both handles and its kernel is in a built robot's metadata."""
    import grid_rbd
    from grid_rbd._kernels import KERNEL_OF, forward_dynamics_kernel
    from grid_rbd.jax import JaxRobotHandle

    h = jax_handle("iiwa")
    for method, kernel in KERNEL_OF.items():
        assert hasattr(JaxRobotHandle, method) and hasattr(grid_rbd.RobotHandle, method), method
        assert h._robot.metadata.algorithm(kernel).name == kernel
    assert h._robot.metadata.algorithm(forward_dynamics_kernel("minv")).name == "forward_dynamics"
