"""The cases of test_sharding.py, run in a process of their own with eight host devices.

XLA's host device count is fixed when JAX starts, and the rest of the suite runs on one device, so
test_sharding.py starts ``python sharding_cases.py ROBOT...`` with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` and asserts on the JSON report it prints: per robot,
mesh and case, the largest error of the sharded call against the same call unsharded, the collectives in the
compiled HLO, the shapes every grid_rbd custom call sees and the sharding of every output.

Importing this module only defines the case names (test_sharding.py parametrises over them); nothing runs.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEVICES = 8
BATCH = 16  # two samples per device
STEPS = 3  # rollout length
DT = 0.01
MESHES = ("explicit", "auto")  # the axis types of the one-dimensional mesh "d"

COLLECTIVES = ("all-gather", "all-reduce", "all-to-all", "collective-permute", "reduce-scatter")


@dataclass(frozen=True)
class Case:
    """A call on sharded inputs: ``fn(handle)`` gives the function of the arrays named in ``args``."""

    name: str
    args: tuple[str, ...]
    fn: Callable[[Any], Callable[..., Any]]


def _methods() -> list[Case]:
    def leaf(h: Any) -> str:
        return h.frame_names[-1]

    return [
        Case("inverse_dynamics", ("q", "qd", "qdd"), lambda h: h.inverse_dynamics),
        Case("bias_forces", ("q", "qd"), lambda h: h.bias_forces),
        Case("gravity_forces", ("q",), lambda h: h.gravity_forces),
        Case("mass_matrix", ("q",), lambda h: h.mass_matrix),
        Case("minv", ("q",), lambda h: h.minv),
        Case("forward_dynamics_aba", ("q", "qd", "tau"), lambda h: h.forward_dynamics),
        Case("forward_dynamics_minv", ("q", "qd", "tau"),
             lambda h: lambda q, qd, tau: h.forward_dynamics(q, qd, tau, method="minv")),
        Case("frame_poses", ("q",), lambda h: h.frame_poses),
        Case("end_effector_pose", ("q",), lambda h: lambda q: h.end_effector_pose(q, leaf(h))),
        Case("frame_jacobian", ("q",), lambda h: lambda q: h.frame_jacobian(q, leaf(h))),
        Case("frame_jacobians", ("q",), lambda h: h.frame_jacobians),
        Case("frame_jacobian_derivatives", ("q",), lambda h: lambda q: h.frame_jacobian_derivatives(q, leaf(h))),
        Case("multi_target_position", ("q",), lambda h: h.multi_target_position),
        Case("multi_target_position_derivatives", ("q",), lambda h: h.multi_target_position_derivatives),
        Case("inverse_dynamics_derivatives", ("q", "qd", "qdd"), lambda h: h.inverse_dynamics_derivatives),
        Case("forward_dynamics_derivatives", ("q", "qd", "tau"), lambda h: h.forward_dynamics_derivatives),
        Case("inverse_dynamics_second_derivatives", ("q", "qd", "qdd"),
             lambda h: h.inverse_dynamics_second_derivatives),
        Case("forward_dynamics_second_derivatives", ("q", "qd", "tau"),
             lambda h: h.forward_dynamics_second_derivatives),
        Case("step", ("q", "qd", "tau"), lambda h: lambda q, qd, u: h.step(q, qd, u, DT)),
        Case("rollout", ("q", "qd", "u"), lambda h: lambda q, qd, u: tuple(h.rollout(q, qd, u, DT))[:2]),
        Case("kernel_call", ("q", "qd", "tau"), lambda h: lambda q, qd, tau: h.kernel_call("aba", (q, qd, tau))),
    ]


# Methods whose per-sample gradient runs under jit(vmap(grad)): every derivative rule's kernels included.
_DIFFERENTIABLE = (
    "inverse_dynamics", "bias_forces", "gravity_forces", "mass_matrix", "minv", "forward_dynamics_aba",
    "forward_dynamics_minv", "frame_poses", "frame_jacobian", "frame_jacobians", "inverse_dynamics_derivatives",
    "forward_dynamics_derivatives", "step", "rollout", "multi_target_position", "multi_target_position_derivatives",
)


def _sum_squares(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return sum(jnp.sum(x * x) for x in jax.tree.leaves(tree))


def _per_sample_grad(case: Case) -> Case:
    """jit(vmap(grad)) of the sum of squares of the outputs, with respect to every argument."""
    import jax

    def fn(h: Any) -> Callable[..., Any]:
        f = case.fn(h)
        argnums = tuple(range(len(case.args)))
        return jax.vmap(jax.grad(lambda *xs: _sum_squares(f(*xs)), argnums=argnums))

    return Case(f"vmap_grad_{case.name}", case.args, fn)


def _hessian() -> Case:
    """jit(vmap(hessian)): forward mode over reverse mode, through the second-order kernels."""
    import jax

    def fn(h: Any) -> Callable[..., Any]:
        return jax.vmap(jax.hessian(lambda q, qd, tau: _sum_squares(h.forward_dynamics(q, qd, tau)), argnums=(0, 1)))

    return Case("vmap_hessian_forward_dynamics", ("q", "qd", "tau"), fn)


# The robots: iiwa (fixed base) runs every method and every per-sample gradient on the explicit mesh; go2 (a
# free-flyer, slower to compile) every method and the gradients whose rules chain the free-flyer's tangent map
# through a kernel of each kind. The auto mesh runs a sample of gradients and the per-sample Hessian, on iiwa.
ROBOTS = ("iiwa", "go2")
_GO2_GRADS = {"inverse_dynamics", "mass_matrix", "forward_dynamics_aba", "frame_poses", "forward_dynamics_derivatives"}
_AUTO_GRADS = {"mass_matrix", "forward_dynamics_aba", "frame_jacobian"}


def cases(robot: str, mesh: str) -> list[Case]:
    """The cases of a robot on a mesh of ``"explicit"`` or ``"auto"`` axes. (JAX's forward mode under vmap
    fails on explicitly sharded batches for plain jax.numpy code, e.g. a concatenate of a slice and a product,
    so the Hessian runs on the auto mesh.)"""
    methods = _methods()
    by_name = {c.name: c for c in methods}
    if mesh == "explicit":
        grads = _DIFFERENTIABLE if robot == "iiwa" else tuple(n for n in _DIFFERENTIABLE if n in _GO2_GRADS)
        return methods + [_per_sample_grad(by_name[n]) for n in grads]
    if robot != "iiwa":
        return []
    return [_per_sample_grad(by_name[n]) for n in _DIFFERENTIABLE if n in _AUTO_GRADS] + [_hessian()]


# Cases run once per robot beside the per-mesh ones.
SPECIAL_KEYS = ("uneven_batch", "mesh_2d", "eager", "gspmd", "unpartitioned_control")
CASE_KEYS = tuple((robot, f"{mesh}/{c.name}") for robot in ROBOTS for mesh in MESHES for c in cases(robot, mesh)) \
    + tuple((robot, key) for robot in ROBOTS for key in SPECIAL_KEYS)


# ---------------------------------------------------------------------------------------------------------
# Running (in the eight-device process)


def _inputs(h: Any, batch: tuple[int, ...], seed: int) -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, batch + (h.nq,))
    if h.floating_base:
        quat = rng.standard_normal(batch + (4,))
        q[..., 3:7] = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    return {
        "q": q,
        "qd": rng.normal(0.0, 1.0, batch + (h.nv,)),
        "qdd": rng.normal(0.0, 1.0, batch + (h.nv,)),
        "tau": rng.normal(0.0, 5.0, batch + (h.nv,)),
        "u": rng.normal(0.0, 5.0, batch + (STEPS, h.nv)),
    }


def _custom_calls(hlo: str) -> list[dict[str, Any]]:
    """Every grid_rbd custom call of compiled HLO text: its target and the floating-point shapes of its
    operands and results."""
    calls = []
    for line in hlo.splitlines():
        m = re.search(r'custom_call_target="(grid_rbd\.[^"]+)"', line)
        if not m:
            continue
        text = line.split(", metadata=")[0]
        shapes = [[int(d) for d in s.split(",") if d] for s in re.findall(r"\bf(?:32|64)\[([0-9,]*)\]", text)]
        calls.append({"target": m.group(1), "shapes": shapes})
    return calls


def _collectives(hlo: str) -> list[str]:
    return sorted({c for c in COLLECTIVES if re.search(rf"\b{c}(-start)?\(", hlo)})


def _spec(sharding: Any, ndim: int) -> list[Any]:
    """A named sharding's partition spec, padded to ``ndim`` entries, as JSON (axis names, lists or None)."""
    spec = list(sharding.spec) + [None] * (ndim - len(sharding.spec))
    return [list(a) if isinstance(a, tuple) else a for a in spec]


def _max_error(got: Any, want: Any) -> float:
    """Largest ``|got - want| / max|want|`` over the outputs (NaN anywhere: infinite)."""
    import jax
    import numpy as np

    worst = 0.0
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape or np.isnan(g).any() or np.isnan(w).any():
            return float("inf")
        scale = max(float(np.max(np.abs(w))), 1e-300) if w.size else 1.0
        worst = max(worst, float(np.max(np.abs(g - w))) / scale if w.size else 0.0)
    return worst


def _record(fn: Callable[..., Any], sharded: list[Any], plain: list[Any], local_batch: list[int],
            in_spec: list[Any], eager: bool = False) -> dict[str, Any]:
    import jax

    jitted = jax.jit(fn)
    got = fn(*sharded) if eager else jitted(*sharded)
    want = jitted(*plain)  # the same call on unsharded arrays (one device: no partitioning at all)
    out = {
        "error": _max_error(got, want),
        "local_batch": local_batch,
        "in_spec": in_spec,
        "out_specs": [_spec(x.sharding, x.ndim) for x in jax.tree.leaves(got)],
    }
    if not eager:
        hlo = jitted.lower(*sharded).compile().as_text()
        out.update(collectives=_collectives(hlo), calls=_custom_calls(hlo))
    return out


def _run_robot(name: str) -> dict[str, dict[str, Any]]:
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    from grid_rbd.jax import JaxRobotHandle

    h = JaxRobotHandle(name)
    results: dict[str, dict[str, Any]] = {}

    def record(key: str, *args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        try:
            results[key] = _record(*args, **kwargs)
        except Exception as e:  # reported by the test of this case
            results[key] = {"exception": f"{type(e).__name__}: {e}"}
        results[key]["seconds"] = time.perf_counter() - start

    arrays = _inputs(h, (BATCH,), seed=1)
    for kind in MESHES:
        axis_type = AxisType.Explicit if kind == "explicit" else AxisType.Auto
        mesh = jax.make_mesh((DEVICES,), ("d",), axis_types=(axis_type,))
        shard = NamedSharding(mesh, P("d"))
        for case in cases(name, kind):
            plain = [arrays[a] for a in case.args]
            sharded = [jax.device_put(x, shard) for x in plain]
            record(f"{kind}/{case.name}", case.fn(h), sharded, plain, [BATCH // DEVICES], ["d"])

    mesh = jax.make_mesh((DEVICES,), ("d",), axis_types=(AxisType.Auto,))
    shard = NamedSharding(mesh, P("d"))
    # A batch the devices do not divide: a jit's arguments cannot be sharded so (JAX raises IndivisibleError
    # naming the shape and the mesh), but a value inside a jit can. The partitioner pads it: every device runs
    # ceil(12 / 8) = 2 rows; the result, padded back to 16 rows, leaves sharded.
    uneven = _inputs(h, (12,), seed=2)

    def padded_bias_forces(q: Any, qd: Any) -> Any:
        q, qd = (jax.lax.with_sharding_constraint(x, shard) for x in (q, qd))
        return jax.lax.with_sharding_constraint(jnp.pad(h.bias_forces(q, qd), ((0, 4), (0, 0))), shard)

    record("uneven_batch", padded_bias_forces, [uneven["q"], uneven["qd"]], [uneven["q"], uneven["qd"]], [2], ["d"])
    # Two batch dimensions over a 4 × 2 mesh: each device holds a 1 × 4 block of samples.
    mesh2 = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    two = _inputs(h, (4, 8), seed=3)
    plain = [two["q"], two["qd"], two["tau"]]
    record(
        "mesh_2d", jax.vmap(jax.vmap(jax.grad(lambda q, qd, tau: _sum_squares(h.forward_dynamics(q, qd, tau)))), ),
        [jax.device_put(x, NamedSharding(mesh2, P("x", "y"))) for x in plain], plain, [1, 4], ["x", "y"])
    # A call outside jit on sharded arrays keeps their sharding.
    record("eager", h.mass_matrix, [jax.device_put(arrays["q"], shard)], [arrays["q"]], [BATCH // DEVICES],
           ["d"], eager=True)
    # GSPMD, the partitioner before Shardy (still selectable in the JAX versions supported).
    shardy = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        grad = _per_sample_grad(next(c for c in _methods() if c.name == "forward_dynamics_aba"))
        plain = [arrays[a] for a in grad.args]
        record("gspmd", grad.fn(h), [jax.device_put(x, shard) for x in plain], plain, [BATCH // DEVICES], ["d"])
    finally:
        jax.config.update("jax_use_shardy_partitioner", shardy)
    # The bare FFI call, not partitioned: what the checks must catch (XLA gathers the batch).
    q_sharded = jax.device_put(arrays["q"], shard)
    record("unpartitioned_control", lambda q: h._ffi_call("mass_matrix", None, [q])[0], [q_sharded],
           [arrays["q"]], [BATCH // DEVICES], ["d"])
    return results


def main(robots: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    if jax.device_count() != DEVICES:
        raise SystemExit(f"expected {DEVICES} devices (XLA_FLAGS=--xla_force_host_platform_device_count="
                         f"{DEVICES}), got {jax.device_count()}")
    report = {"jax": jax.__version__, "robots": {name: _run_robot(name) for name in robots}}
    print(json.dumps(report))


if __name__ == "__main__":
    repo = Path(__file__).resolve().parents[2]
    try:
        import grid_rbd  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(repo / "python"))
    main(sys.argv[1:])
