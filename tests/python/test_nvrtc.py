"""The kernel headers compile under NVRTC (grid_rbd._nvrtc), the route of CUDA builds at run time: device code
only, the standard headers from libcu++. A cubin for sm_90 needs no GPU, so these run everywhere; loading and
launching the kernels is the GPU machine's part."""

from __future__ import annotations

import pytest

from grid_rbd import _nvrtc
from grid_rbd._artifacts import find_robot
from support import FakeRTCLibrary, cubin_arch


@pytest.mark.parametrize(
    ("robot", "kernels"),
    [
        # a fixed base: forward dynamics, the mass matrix (its one-thread kernel stores rows as they become
        # final) and the inverse-dynamics derivatives, both forms
        ("iiwa", ["grid::aba_kernel<float, grid::TIER_SHARED>", "grid::aba_thread_kernel<float>",
                  "grid::mass_matrix_kernel<double, grid::TIER_LITE>", "grid::mass_matrix_thread_kernel<float>",
                  "grid::inverse_dynamics_gradient_thread_kernel<float>"]),
        # a floating base (quaternion joint), at the tier that spills to the workspace; limb kernels (a warp per
        # limb of the tree, its lambdas forced inline; M⁻¹'s output staged in shared memory)
        ("go2", ["grid::inverse_dynamics_kernel<double, grid::TIER_MINIMAL>", "grid::frame_poses_thread_kernel<float>",
                 "grid::inverse_dynamics_gradient_limbs_kernel<float>", "grid::minv_limbs_kernel<float>"]),
    ],
)
def test_kernels_compile_for_sm90(robot, kernels):
    r = _nvrtc.compile_kernels(find_robot(robot), kernels, arch="sm_90")
    assert cubin_arch(r.cubin) == 90
    assert set(r.mangled) == set(kernels)
    for name, symbol in r.mangled.items():
        assert symbol.startswith("_ZN4grid") and symbol.encode() in r.cubin, (name, symbol)


def test_errors_name_the_problem(tmp_path):
    build = find_robot("iiwa")
    with pytest.raises(_nvrtc.NvrtcError, match='namespace "grid" has no member "no_such_kernel"'):
        _nvrtc.compile_kernels(build, ["grid::no_such_kernel<float>"])
    with pytest.raises(_nvrtc.NvrtcError, match="arch must be sm_XY"):
        _nvrtc.compile_kernels(build, ["grid::aba_thread_kernel<float>"], arch="90")
    with pytest.raises(_nvrtc.NvrtcError, match="holds no grid.cuh"):
        _nvrtc.compile_kernels(tmp_path, ["grid::aba_thread_kernel<float>"])


def test_runtime_kernels_compile_what_the_metadata_lists_and_cache_it(tmp_path, monkeypatch):
    import shutil

    from grid_rbd import _rtc
    from grid_rbd._metadata import load_metadata

    build = tmp_path / "iiwa"
    shutil.copytree(find_robot("iiwa"), build)
    metadata = load_metadata(build / "metadata.json")
    names = metadata.algorithms["frame_poses"].kernels
    assert names and all(n.startswith("grid::frame_poses_") for n in names)

    lib = FakeRTCLibrary()
    _rtc.RuntimeKernels(build, lib, metadata, "sm_90").load("frame_poses")
    assert set(lib.loaded) == set(names)
    cubins = list((build / _rtc.CACHE_DIR).glob("*.cubin"))
    assert len(cubins) == len(names)  # one program per kernel
    for name, symbol in lib.loaded.items():
        assert any(symbol.encode() in c.read_bytes() for c in cubins), (name, symbol)

    # another process: the cubins come from the cache, NVRTC is not run
    def no_nvrtc(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(_rtc._KernelCache, "compile", no_nvrtc)
    again = FakeRTCLibrary()
    kernels = _rtc.RuntimeKernels(build, again, metadata, "sm_90")
    kernels.load("frame_poses")
    kernels.load("frame_poses")  # loaded once
    assert again.loaded == lib.loaded
    # a changed header is another cache key: it compiles anew
    with open(build / "grid.cuh", "a") as f:
        f.write("\n// changed\n")
    with pytest.raises(AssertionError, match="compiled again"):
        _rtc.RuntimeKernels(build, FakeRTCLibrary(), metadata, "sm_90").load("frame_poses")


def test_gpu_arch_names():
    from grid_rbd._rtc import gpu_arch

    assert gpu_arch("9.0") == "sm_90" and gpu_arch("12.0") == "sm_120" and gpu_arch("8.6") == "sm_86"


def test_a_read_only_build_folder_keeps_its_kernels_in_the_user_cache(tmp_path, monkeypatch):
    """An installed wheel's robot folder may be read-only: the cubins then go to the user's cache, where a
    later loader finds them."""
    import shutil

    from grid_rbd import _rtc
    from grid_rbd._metadata import load_metadata

    build = tmp_path / "iiwa"
    shutil.copytree(find_robot("iiwa"), build)
    monkeypatch.setenv("GRID_RBD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_rtc.os, "access", lambda path, mode: False)  # this test may run as root
    metadata = load_metadata(build / "metadata.json")
    names = metadata.algorithms["frame_poses"].kernels
    lib = FakeRTCLibrary()
    _rtc.RuntimeKernels(build, lib, metadata, "sm_90").load("frame_poses")
    assert set(lib.loaded) == set(names)
    assert not (build / _rtc.CACHE_DIR).exists()
    assert len(list((tmp_path / "cache" / _rtc.CACHE_DIR).glob("*.cubin"))) == len(names)

    def no_nvrtc(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(_rtc._KernelCache, "compile", no_nvrtc)
    again = FakeRTCLibrary()
    _rtc.RuntimeKernels(build, again, metadata, "sm_90").load("frame_poses")
    assert again.loaded == lib.loaded


def test_a_call_in_one_precision_compiles_only_that_precisions_kernels(tmp_path):
    import shutil

    from grid_rbd import _rtc
    from grid_rbd._metadata import load_metadata

    build = tmp_path / "iiwa"
    shutil.copytree(find_robot("iiwa"), build)
    metadata = load_metadata(build / "metadata.json")
    names = metadata.algorithms["frame_poses"].kernels
    floats = [n for n in names if "<float" in n]
    assert floats and len(floats) < len(names)

    lib = FakeRTCLibrary()
    kernels = _rtc.RuntimeKernels(build, lib, metadata, "sm_90")
    kernels.load("frame_poses", "float")
    assert set(lib.loaded) == set(floats)
    kernels.load("frame_poses", "double")
    kernels.load("frame_poses")
    assert set(lib.loaded) == set(names)
    assert len(list((build / _rtc.CACHE_DIR).glob("*.cubin"))) == len(names)
    with pytest.raises(ValueError, match="precision must be 'float' or 'double'"):
        kernels.load("mass_matrix", "half")


def test_kernels_compile_in_processes_of_their_own(tmp_path, monkeypatch):
    """NVRTC's compilations on threads of one process partly wait for each other, so each kernel compiles in a
    worker process; its errors reach the caller as NvrtcError with NVRTC's log."""
    import shutil

    from grid_rbd import _rtc

    build = tmp_path / "iiwa"
    shutil.copytree(find_robot("iiwa"), build)

    def not_here(*args, **kwargs):
        raise AssertionError("compiled in the calling process")

    monkeypatch.setattr(_nvrtc, "compile_kernels", not_here)
    cache = _rtc._KernelCache(build, "sm_90")
    cubin, mangled = cache.compile("grid::frame_poses_thread_kernel<float>")
    assert cubin_arch(cubin) == 90 and mangled["grid::frame_poses_thread_kernel<float>"].encode() in cubin
    with pytest.raises(_nvrtc.NvrtcError, match='namespace "grid" has no member "no_such_kernel"'):
        cache.compile("grid::no_such_kernel<float>")


def test_a_cache_that_cannot_be_written_compiles_in_the_calling_process(tmp_path, monkeypatch):
    import shutil

    from grid_rbd import _rtc

    build = tmp_path / "iiwa"
    shutil.copytree(find_robot("iiwa"), build)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("GRID_RBD_CACHE", str(blocker))
    monkeypatch.setattr(_rtc.os, "access", lambda path, mode: False)
    calls = []
    compile_kernels = _nvrtc.compile_kernels

    def here(*args, **kwargs):
        calls.append(args)
        return compile_kernels(*args, **kwargs)

    monkeypatch.setattr(_nvrtc, "compile_kernels", here)
    cubin, _ = _rtc._KernelCache(build, "sm_90").compile("grid::frame_poses_thread_kernel<float>")
    assert cubin_arch(cubin) == 90 and len(calls) == 1
