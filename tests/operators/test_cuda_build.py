"""The CUDA build of the operator harness: every call body compiles for sm_90 with nvcc (the device code the
GPU run executes), and the library's host path agrees with the host compiler's build. Runs in CI, which has
nvcc (the nvidia-cuda-nvcc wheel in .venv) but no GPU."""

from __future__ import annotations

import ctypes

import numpy as np

import harness as harness_module


def test_cuda_build_compiles_every_call(tmp_path, harness):
    lib = harness_module.build_cuda(tmp_path)
    assert ctypes.CDLL(str(lib)).glass_device_built() == 1
    cuda = harness_module.Harness(lib)  # its host path: no device needed
    assert cuda.names == harness.names
    rng = np.random.default_rng(7)
    for name in ("so3_exp/thread/double", "so3_exp/block/float", "spatial_inertia/warp/double"):
        n_in, n_out = (3, 9) if name.startswith("so3_exp") else (10, 36)
        x = rng.normal(size=n_in)
        np.testing.assert_allclose(cuda.run(name, x, n_out=n_out), harness.run(name, x, n_out=n_out),
                                   rtol=1e-6, atol=1e-6)
