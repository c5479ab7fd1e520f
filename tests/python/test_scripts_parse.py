"""Scripts that only run on a GPU machine (tests/gpu), and the benchmarks parse here, so a typo is
caught before a device run: every Python file compiles, every shell script passes ``bash -n``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("tests/gpu", "bench", ".ci", "python")


def _files(suffix: str) -> list[Path]:
    return sorted(f for d in FOLDERS for f in (REPO_ROOT / d).rglob(f"*{suffix}") if "__pycache__" not in f.parts)


@pytest.mark.parametrize("path", _files(".py"), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_python_file_compiles(path: Path):
    compile(path.read_text(), str(path), "exec")


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("path", _files(".sh") + [REPO_ROOT / ".ci" / "run"], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_shell_script_parses(path: Path):
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
