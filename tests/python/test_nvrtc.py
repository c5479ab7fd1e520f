"""The kernel headers compile under NVRTC (grid_rbd._nvrtc), the route of CUDA builds at run time: device code
only, the standard headers from libcu++. A cubin for sm_90 needs no GPU, so these run everywhere; loading and
launching the kernels is the GPU machine's part."""

from __future__ import annotations

import struct

import pytest

from grid_rbd import _nvrtc
from grid_rbd._artifacts import find_robot

EM_CUDA = 190


def cubin_arch(cubin: bytes) -> int:
    """The SM version a cubin is built for (ELF e_flags, bits 8-15)."""
    assert cubin[:4] == b"\x7fELF" and cubin[4] == 2, "not a 64-bit ELF file"
    (machine,) = struct.unpack_from("<H", cubin, 18)
    assert machine == EM_CUDA, f"ELF machine {machine}, not CUDA"
    (flags,) = struct.unpack_from("<I", cubin, 48)
    return (flags >> 8) & 0xFF


@pytest.mark.parametrize(
    ("robot", "kernels"),
    [
        # a fixed base: forward dynamics, the mass matrix and the inverse-dynamics derivatives, both forms
        ("iiwa", ["grid::aba_kernel<float, grid::TIER_SHARED>", "grid::aba_thread_kernel<float>",
                  "grid::mass_matrix_kernel<double, grid::TIER_LITE>",
                  "grid::inverse_dynamics_gradient_thread_kernel<float>"]),
        # a floating base (quaternion joint), at the tier that spills to the workspace
        ("go2", ["grid::inverse_dynamics_kernel<double, grid::TIER_MINIMAL>", "grid::frame_poses_thread_kernel<float>"]),
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
