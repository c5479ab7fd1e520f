"""Finding the CUDA runtime that the handler library of run-time kernels compiles against."""

from __future__ import annotations

from pathlib import Path

import pytest

from grid_rbd import _cuda_paths


def _runtime(root: Path, *, crt: bool) -> Path:
    (root / "include").mkdir(parents=True)
    (root / "include" / "cuda_runtime_api.h").write_text("")
    if crt:
        (root / "include" / "crt").mkdir()
        (root / "include" / "crt" / "host_defines.h").write_text("")
    (root / "lib").mkdir()
    (root / "lib" / "libcudart.so.13").write_text("")
    return root


@pytest.mark.parametrize("wheel_has_crt", [True, False])
def test_a_wheel_folder_without_the_crt_headers_is_passed_over(tmp_path, monkeypatch, wheel_has_crt):
    wheel = _runtime(tmp_path / "site" / "nvidia" / "cu13", crt=wheel_has_crt)
    toolkit = _runtime(tmp_path / "cuda", crt=True)
    monkeypatch.setattr(_cuda_paths, "nvidia_dirs", lambda relative: [wheel])
    monkeypatch.setenv("CUDA_HOME", str(toolkit))
    include, library = _cuda_paths.cuda_runtime()
    want = wheel if wheel_has_crt else toolkit
    assert (include, library) == (want / "include", want / "lib" / "libcudart.so.13")


def test_no_complete_runtime_is_none(tmp_path, monkeypatch):
    wheel = _runtime(tmp_path / "site" / "nvidia" / "cu13", crt=False)
    monkeypatch.setattr(_cuda_paths, "nvidia_dirs", lambda relative: [wheel])
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-toolkit"))
    assert _cuda_paths.cuda_runtime() is None


def test_the_runtime_headers_are_the_ones_the_go_build_checks():
    """The wheel's Python finds the runtime that grid-rbd-build will accept: both name the same headers."""
    import re

    source = (Path(__file__).resolve().parents[2] / "codegen" / "build" / "compile.go").read_text()
    found = re.search(r"var CUDARuntimeHeaders = \[\]string\{([^}]*)\}", source)
    assert found, "codegen/build/compile.go no longer declares CUDARuntimeHeaders"
    assert tuple(re.findall(r'"([^"]+)"', found.group(1))) == _cuda_paths.RUNTIME_HEADERS
