"""The handlers' trailing ``workspace`` result: the scratch of the kernels' tuned resource tier.

Every XLA FFI handler takes its outputs, then a uint8 ``workspace``; JaxRobotHandle sizes it by the CUDA
library's ``grid_<algo>_cuda_workspace_bytes`` (0 on the CPU, where it is ignored). Checked here: results
against Pinocchio whatever workspace a call is given (a larger one than asked included, as under vmap),
and a workspace of another dtype refused with an error that names it. On a GPU machine, a build with
``go tool mage build URDF -cuda -tier=minimal`` runs the whole suite at a spilled tier through it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

ROBOT = "iiwa"


def _aba_call(handle, workspace: jax.ShapeDtypeStruct):
    """forward dynamics through the raw handler, with the given workspace result."""
    info = handle._robot.metadata.algorithm("aba")
    (out,) = info.outputs

    def call(q, qd, tau):
        result_types = [jax.ShapeDtypeStruct(q.shape[:-1] + out.shape, q.dtype), workspace]
        gx, gy, gz = handle.gravity
        f = jax.ffi.ffi_call(handle._robot.target("aba"), result_types, vmap_method="broadcast_all")
        return f(q, qd, tau, gravity_x=np.float64(gx), gravity_y=np.float64(gy), gravity_z=np.float64(gz))[0]

    return call


@pytest.mark.parametrize("workspace_bytes", [0, 4096])
def test_any_workspace_gives_pinocchio_results(workspace_bytes, jax_handle, reference):
    h, ref = jax_handle(ROBOT), reference(ROBOT)
    q, qd, tau = (jnp.asarray(ref.inputs[k]) for k in ("q", "qd", "tau"))
    got = _aba_call(h, jax.ShapeDtypeStruct((workspace_bytes,), jnp.uint8))(q, qd, tau)
    np.testing.assert_allclose(np.asarray(got), ref.outputs["forward_dynamics"], rtol=1e-9, atol=1e-9)


def test_workspace_of_another_dtype_is_refused(jax_handle, reference):
    h, ref = jax_handle(ROBOT), reference(ROBOT)
    q, qd, tau = (jnp.asarray(ref.inputs[k]) for k in ("q", "qd", "tau"))
    with pytest.raises(Exception, match=r"result workspace has dtype float32; expected uint8"):
        jax.block_until_ready(_aba_call(h, jax.ShapeDtypeStruct((16,), jnp.float32))(q, qd, tau))


def test_handle_asks_for_the_library_workspace(jax_handle, reference, monkeypatch):
    """kernel_call sizes the workspace result by the library's query and drops it from the outputs."""
    h, ref = jax_handle(ROBOT), reference(ROBOT)
    asked = []

    def query(algorithm: str, samples: int, itemsize: int) -> int:
        asked.append((algorithm, samples, itemsize))
        return 48 * samples

    monkeypatch.setattr(type(h._robot), "workspace_bytes", lambda self, *a: query(*a))
    # A kernel call is traced once per kernel, shapes and dtype in a process (its jit is keyed on them):
    # without clearing, an earlier test's trace would answer, sized before the patch.
    jax.clear_caches()
    try:
        q, qd, tau = (jnp.asarray(ref.inputs[k]) for k in ("q", "qd", "tau"))
        samples = q.shape[0]
        f = jax.jit(lambda q, qd, tau: h.kernel_call("aba", (q, qd, tau)))
        hlo = f.lower(q, qd, tau).as_text()
        assert f"tensor<{48 * samples}xui8>" in hlo, "the custom call has no workspace result of the asked size"
        (got,) = f(q, qd, tau)
        assert ("aba", samples, 8) in asked
        np.testing.assert_allclose(np.asarray(got), ref.outputs["forward_dynamics"], rtol=1e-9, atol=1e-9)
    finally:
        jax.clear_caches()  # no trace sized by the patched query outlives the patch
