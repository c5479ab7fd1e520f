"""Helpers of the grid_rbd pytest suite: the methods under test, dtypes, inputs, comparisons, error log."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

import jax
import numpy as np
import pytest

PLATFORM = jax.devices()[0].platform

# dtype parameters; the platform is part of the id so that every result names where it ran
DTYPES = [
    pytest.param(np.float64, id=f"float64-{PLATFORM}"),
    pytest.param(np.float32, id=f"float32-{PLATFORM}"),
]

# relative error against Pinocchio, w.r.t. each output's max magnitude per sample
RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
# transformed (jit, vmap, batched) against unbatched calls, float64
TRANSFORM_RTOL = 1e-12


@dataclass(frozen=True)
class Method:
    """A handle method as the tests call it: array arguments by name, outputs as a tuple."""

    name: str  # test id
    args: tuple[str, ...]  # among q, qd, qdd, tau
    outputs: tuple[str, ...]  # reference keys (refdata.DYNAMICS / KINEMATICS)
    frame: bool  # takes a frame (end_effector_pose, frame_jacobian)
    call: Callable[..., tuple]  # call(handle, *arrays, frame=None) -> tuple of arrays
    cond_scaled: bool = False  # float32 tolerance scales with cond(M)


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


METHODS = {
    m.name: m
    for m in [
        Method("inverse_dynamics", ("q", "qd", "qdd"), ("inverse_dynamics",), False,
               lambda h, q, qd, qdd, frame=None: _tuple(h.inverse_dynamics(q, qd, qdd))),
        Method("bias_forces", ("q", "qd"), ("bias_forces",), False,
               lambda h, q, qd, frame=None: _tuple(h.bias_forces(q, qd))),
        Method("gravity_forces", ("q",), ("gravity_forces",), False,
               lambda h, q, frame=None: _tuple(h.gravity_forces(q))),
        Method("mass_matrix", ("q",), ("mass_matrix",), False,
               lambda h, q, frame=None: _tuple(h.mass_matrix(q))),
        Method("minv", ("q",), ("minv",), False,
               lambda h, q, frame=None: _tuple(h.minv(q)), cond_scaled=True),
        Method("forward_dynamics_aba", ("q", "qd", "tau"), ("forward_dynamics",), False,
               lambda h, q, qd, tau, frame=None: _tuple(h.forward_dynamics(q, qd, tau, method="aba")),
               cond_scaled=True),
        Method("forward_dynamics_minv", ("q", "qd", "tau"), ("forward_dynamics",), False,
               lambda h, q, qd, tau, frame=None: _tuple(h.forward_dynamics(q, qd, tau, method="minv")),
               cond_scaled=True),
        Method("frame_poses", ("q",), ("pos", "rot", "quat"), False,
               lambda h, q, frame=None: _tuple(h.frame_poses(q))),
        Method("end_effector_pose", ("q",), ("pos", "rot", "quat"), True,
               lambda h, q, frame=None: _tuple(h.end_effector_pose(q, frame))),
        Method("frame_jacobian", ("q",), ("jacobian",), True,
               lambda h, q, frame=None: _tuple(h.frame_jacobian(q, frame))),
        Method("multi_target_position", ("q",), ("pos",), False,
               lambda h, q, frame=None: _tuple(h.multi_target_position(q))),
    ]
}


def arg_size(handle, arg: str) -> int:
    return handle.nq if arg == "q" else handle.nv


def random_inputs(handle, rng: np.random.Generator, batch: tuple[int, ...], dtype=np.float64) -> dict:
    """Random q, qd, qdd, tau of a batch shape; a free-flyer's quaternion is normalised."""
    q = rng.uniform(-np.pi, np.pi, batch + (handle.nq,))
    if handle.floating_base:
        quat = rng.standard_normal(batch + (4,))
        q[..., 3:7] = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    out = {
        "q": q,
        "qd": rng.normal(0.0, 3.0, batch + (handle.nv,)),
        "qdd": rng.normal(0.0, 3.0, batch + (handle.nv,)),
        "tau": rng.normal(0.0, 10.0, batch + (handle.nv,)),
    }
    return {k: v.astype(dtype) for k, v in out.items()}


def check_relative(robot: str, dtype, name: str, got, want, rtol: float) -> None:
    """Asserts the worst sample's relative error (sample_errors, one batch dimension) is within rtol, and
    logs it."""
    err, _ = sample_errors(got, want, 1)
    worst = int(np.argmax(err))
    log_error(robot, dtype, name, float(err[worst]), float(err[worst] / rtol))
    assert err[worst] <= rtol, (
        f"{robot} {name} ({np.dtype(dtype).name}): relative error {err[worst]:.3e} > {rtol:.1e} at sample "
        f"{worst}; {worst_entry(got, want, (worst,))}"
    )


def frame_map(handle, ref) -> np.ndarray:
    """For each of the handle's frames, its index in the reference's (a refdata.Reference) frames."""
    missing = [n for n in handle.frame_names if n not in ref.frame_names]
    assert not missing, f"{handle.name}: frames of the build that Pinocchio has no BODY frame for: {missing}"
    return np.array([ref.frame_names.index(n) for n in handle.frame_names], dtype=int)


def leaf_frame(handle) -> str:
    """A frame far from the root (the last one), whose pose and Jacobian depend on many joints."""
    return handle.frame_names[-1]


# ---------------------------------------------------------------------------
# Comparison


def sample_errors(got, want, batch_ndim: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sample of the leading batch_ndim axes: (max |got - want| / max |want|, max |want|).

    NaN anywhere in a sample gives an infinite error; a zero reference needs an exact zero.
    """
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    axes = tuple(range(batch_ndim, want.ndim))
    diff = np.abs(got - want)
    bad = np.any(np.isnan(diff), axis=axes) if axes else np.isnan(diff)
    diff = np.where(np.isnan(diff), np.inf, diff)
    dmax = np.max(diff, axis=axes) if axes else diff
    scale = np.max(np.abs(want), axis=axes) if axes else np.abs(want)
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(scale > 0, dmax / np.where(scale > 0, scale, 1.0), np.where(dmax > 0, np.inf, 0.0))
    return np.where(bad, np.inf, err), scale


def worst_entry(got, want, sample: tuple[int, ...]) -> str:
    g = np.asarray(got, dtype=np.float64)[sample]
    w = np.asarray(want, dtype=np.float64)[sample]
    d = np.abs(g - w)
    d = np.where(np.isnan(d), np.inf, d)
    i = np.unravel_index(int(np.argmax(d)), d.shape) if d.ndim else ()
    idx = list(map(int, i))
    return f"worst entry {idx}: got {float(g[i])!r}, want {float(w[i])!r}"


# ---------------------------------------------------------------------------
# Error log: max error and max error/tolerance per (robot, dtype, method)

ERRORS: dict[tuple[str, str, str], tuple[float, float]] = {}


def log_error(robot: str, dtype, method: str, err: float, ratio: float) -> None:
    key = (robot, np.dtype(dtype).name, method)
    old = ERRORS.get(key, (0.0, 0.0))
    ERRORS[key] = (max(old[0], err), max(old[1], ratio))


def error_table() -> list[str]:
    robots = list(dict.fromkeys(k[0] for k in ERRORS))
    lines = [f"{'robot':<12} {'dtype':<8} {'max err':>10}  {'worst method':<32} {'max err/tol':>11}  "
             f"{'worst (err/tol)'}"]
    for robot in robots:
        for dtype in ("float64", "float32"):
            rows = {k[2]: v for k, v in ERRORS.items() if k[0] == robot and k[1] == dtype}
            if not rows:
                continue
            m_err = max(rows, key=lambda m: rows[m][0])
            m_rat = max(rows, key=lambda m: rows[m][1])
            lines.append(f"{robot:<12} {dtype:<8} {rows[m_err][0]:>10.2e}  {m_err:<32} "
                         f"{rows[m_rat][1]:>11.2e}  {m_rat}")
    return lines


def error_tsv() -> str:
    out = ["robot\tdtype\tmethod\tmax_rel_err\tmax_err_over_tol"]
    for (robot, dtype, method), (err, ratio) in sorted(ERRORS.items()):
        out.append(f"{robot}\t{dtype}\t{method}\t{err:.3e}\t{ratio:.3e}")
    return "\n".join(out) + "\n"


# NVRTC kernels without a GPU (test_nvrtc, test_from_urdf)
EM_CUDA = 190


def cubin_arch(cubin: bytes) -> int:
    """The SM version a cubin is built for (ELF e_flags, bits 8-15)."""
    assert cubin[:4] == b"\x7fELF" and cubin[4] == 2, "not a 64-bit ELF file"
    (machine,) = struct.unpack_from("<H", cubin, 18)
    assert machine == EM_CUDA, f"ELF machine {machine}, not CUDA"
    (flags,) = struct.unpack_from("<I", cubin, 48)
    return (flags >> 8) & 0xFF


class FakeRTCLibrary:
    """Stands in for libgrid_rbd_cuda_rtc.so on a machine without a GPU: records what grid_rtc_load is given."""

    def __init__(self):
        self.loaded: dict[str, str] = {}
        outer = self

        def grid_rtc_load(cubin, count, names, mangled):
            assert cubin_arch(bytes(cubin)) == 90
            for k in range(count):
                outer.loaded[names[k].decode()] = mangled[k].decode()
            return 0

        self.grid_rtc_load = grid_rtc_load
        self.grid_rtc_error = lambda code: b"error"
