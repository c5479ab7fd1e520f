"""Time integration (JaxRobotHandle.step and .rollout, grid_rbd.integrators) against the same schemes composed
from Pinocchio's ABA and integrate in float64, derivatives against central differences, and the transforms
(jit, vmap, grad, jvp) and bad input. Rollouts run both ways: the fused kernels (one call for the T steps and
one per derivative) and the scan of single steps."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import conventions
import refdata

ROBOTS = [r for r in ("iiwa", "go2") if r in refdata.robot_names()]  # a fixed base, a free-flyer
METHODS = ("semi_implicit", "rk4")
FUSED = pytest.mark.parametrize("fused", [True, False], ids=["fused", "scan"])


def _robot(name: str) -> conventions.Robot:
    return {r.name: r for r in refdata.robot_set()}[name]


def _pinocchio_rollout(model, q0, qd0, u, dt, method, controller=None):
    """The scheme of grid_rbd.integrators, one sample, from pin.aba and pin.integrate."""
    pin = conventions.pinocchio()
    data = model.createData()

    def accel(q, v, u):
        tau = u if controller is None else controller(q, v, u)
        return pin.aba(model, data, q, v, tau).copy()

    q, qd, qs, qds = q0.copy(), qd0.copy(), [], []
    for tau in u:
        if method == "semi_implicit":
            qd = qd + dt * accel(q, qd, tau)
            q = pin.integrate(model, q, dt * qd)
        else:
            a1 = accel(q, qd, tau)
            v2 = qd + dt / 2 * a1
            a2 = accel(pin.integrate(model, q, dt / 2 * qd), v2, tau)
            v3 = qd + dt / 2 * a2
            a3 = accel(pin.integrate(model, q, dt / 2 * v2), v3, tau)
            v4 = qd + dt * a3
            a4 = accel(pin.integrate(model, q, dt * v3), v4, tau)
            q, qd = (pin.integrate(model, q, dt / 6 * (qd + 2 * v2 + 2 * v3 + v4)),
                     qd + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4))
        qs.append(q)
        qds.append(qd)
    return np.array(qs), np.array(qds)


def _start(h, seed: int, batch: tuple[int, ...], steps: int):
    key = jax.random.PRNGKey(seed)
    q0 = h.random_configuration(key, batch, dtype=jnp.float64)
    rng = np.random.default_rng(seed)
    qd0 = rng.normal(0.0, 0.5, batch + (h.nv,))
    u = rng.normal(0.0, 2.0, batch + (steps, h.nv))
    return np.asarray(q0), qd0, u


@FUSED
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("robot", ROBOTS)
def test_rollout_matches_pinocchio(robot, method, fused, jax_handle):
    h = jax_handle(robot)
    model = conventions.build_model(_robot(robot))
    assert model.nq == h.nq, "robots without continuous joints (Pinocchio's (cos, sin) coordinates)"
    dt, steps = 0.005, 100
    q0, qd0, u = _start(h, 1, (2,), steps)
    out = jax.jit(lambda q0, qd0, u: h.rollout(q0, qd0, u, dt, method=method, fused=fused))(q0, qd0, u)
    assert out.q.shape == (2, steps, h.nq) and out.qd.shape == (2, steps, h.nv) and out.frame_positions is None
    for s in range(2):
        want_q, want_qd = _pinocchio_rollout(model, q0[s], qd0[s], u[s], dt, method)
        scale = 1.0 + np.abs(want_qd).max()
        np.testing.assert_allclose(np.asarray(out.q[s]), want_q, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(np.asarray(out.qd[s]), want_qd, rtol=0, atol=1e-9 * scale)
    # one step is the rollout's first
    q1, qd1 = h.step(q0, qd0, u[:, 0], dt, method=method)
    np.testing.assert_allclose(np.asarray(q1), np.asarray(out.q[:, 0]), rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.asarray(qd1), np.asarray(out.qd[:, 0]), rtol=0, atol=1e-14)


@pytest.mark.parametrize("robot", ROBOTS)
def test_controller_is_applied_at_every_stage(robot, jax_handle):
    """A damping controller, evaluated at each RK4 stage's state, against the same in the Pinocchio scheme."""
    h = jax_handle(robot)
    model = conventions.build_model(_robot(robot))
    dt, steps, c = 0.005, 40, 0.7
    q0, qd0, u = _start(h, 6, (), steps)
    out = h.rollout(q0, qd0, u, dt, method="rk4", controller=lambda q, qd, u: u - c * qd)
    want_q, want_qd = _pinocchio_rollout(model, q0, qd0, u, dt, "rk4", controller=lambda q, qd, u: u - c * qd)
    scale = 1.0 + np.abs(want_qd).max()
    np.testing.assert_allclose(np.asarray(out.q), want_q, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(np.asarray(out.qd), want_qd, rtol=0, atol=1e-9 * scale)
    free = h.rollout(q0, qd0, u, dt, method="rk4")
    assert np.abs(np.asarray(free.qd) - want_qd).max() > 1e-3, "the controller changed nothing"


@pytest.mark.parametrize("robot", ROBOTS)
def test_frame_positions_follow_the_states(robot, jax_handle):
    h = jax_handle(robot)
    q0, qd0, u = _start(h, 2, (3,), 4)
    frames = [h.frame_names[-1], 0]
    out = h.rollout(q0, qd0, u, 0.01, frames=frames)
    pos, _, _ = h.frame_poses(out.q)
    assert out.frame_positions.shape == (3, 4, 2, 3)
    np.testing.assert_array_equal(np.asarray(out.frame_positions), np.asarray(pos[..., [h.frame_index(frames[0]), 0], :]))


# The scan's RK4 gradient of the free-flyer takes XLA most of a minute to compile; the fused kernels, which
# test_fused_kernels_agree_with_the_scan holds to the scan, cover that cell.
SCAN_CELLS = [("iiwa", "semi_implicit"), ("iiwa", "rk4"), ("go2", "semi_implicit")]
DERIVATIVE_CELLS = [pytest.param(r, m, True, id=f"{r}-{m}-fused") for r in ROBOTS for m in METHODS] + [
    pytest.param(r, m, False, id=f"{r}-{m}-scan") for r, m in SCAN_CELLS if r in ROBOTS]


@pytest.mark.parametrize(("robot", "method", "fused"), DERIVATIVE_CELLS)
def test_derivatives_match_central_differences(robot, method, fused, jax_handle):
    """Forward and reverse mode of a loss on the last state and a frame's path, against central differences
    along random directions of qd0, u and dt and along a tangent direction of q0 (q0 ⊕ ε·δ)."""
    h = jax_handle(robot)
    dt, steps = 0.01, 8
    q0, qd0, u = _start(h, 3, (), steps)
    rng = np.random.default_rng(4)
    wq, wv = rng.standard_normal(h.nq), rng.standard_normal(h.nv)
    frame = h.frame_names[-1]

    def loss(delta, qd0, u, dt):
        out = h.rollout(h.integrate(q0, delta), qd0, u, dt, method=method, frames=[frame], fused=fused)
        return out.q[-1] @ wq + out.qd[-1] @ wv + jnp.sum(out.frame_positions ** 2)

    x = tuple(jnp.asarray(a, jnp.float64) for a in (np.zeros(h.nv), qd0, u, dt))
    value = jax.jit(loss)
    derivative = jax.jit(lambda x, dx: jax.jvp(loss, x, dx)[1])  # one compile for every direction
    grads = jax.jit(jax.grad(loss, argnums=(0, 1, 2, 3)))(*x)
    eps = 1e-6
    for k, shape in enumerate(a.shape for a in x):
        d = jnp.asarray(rng.standard_normal(shape))
        dx = tuple(d if i == k else jnp.zeros_like(a) for i, a in enumerate(x))
        plus = tuple(a + eps * t for a, t in zip(x, dx))
        minus = tuple(a - eps * t for a, t in zip(x, dx))
        central = (float(value(*plus)) - float(value(*minus))) / (2 * eps)
        forward = float(derivative(x, dx))
        reverse = float(jnp.sum(grads[k] * d))
        tol = 1e-6 * (1.0 + abs(central))
        assert abs(forward - central) < tol, (k, forward, central)
        assert abs(reverse - central) < tol, (k, reverse, central)


@FUSED
def test_vmap_and_batch_agree(fused, jax_handle):
    h = jax_handle("iiwa")
    q0, qd0, u = _start(h, 5, (2, 3), 6)
    batched = h.rollout(q0, qd0, u, 0.01, method="rk4", fused=fused)
    mapped = jax.vmap(lambda a, b, c: h.rollout(a, b, c, 0.01, method="rk4", fused=fused))(q0, qd0, u)
    np.testing.assert_allclose(np.asarray(mapped.q), np.asarray(batched.q), rtol=0, atol=1e-13)
    np.testing.assert_allclose(np.asarray(mapped.qd), np.asarray(batched.qd), rtol=0, atol=1e-13)


@pytest.mark.parametrize(("args", "message"), [
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv), np.zeros(h.nv), 0.01, {}), r"u must have shape \('T', 7\)"),
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv + 1), np.zeros((3, h.nv)), 0.01, {}), r"qd0 must have shape \(7,\)"),
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv), np.zeros((0, h.nv)), 0.01, {}), "a rollout needs T >= 1"),
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv), np.zeros((3, h.nv)), np.ones(2), {}), "dt must be a scalar"),
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv), np.zeros((3, h.nv)), 0.01, {"method": "euler"}), "method must be one of"),
    (lambda h: (np.zeros(h.nq), np.zeros(h.nv), np.zeros((3, h.nv)), 0.01, {"frames": ["no_such_frame"]}), "no_such_frame"),
])
def test_bad_input_is_named(args, message, jax_handle):
    h = jax_handle("iiwa")
    q0, qd0, u, dt, kw = args(h)
    with pytest.raises(ValueError, match=message):
        h.rollout(q0, qd0, u, dt, **kw)


def test_dtype_follows_the_inputs(jax_handle):
    """float32 states and efforts roll out in float32; integer efforts take the states' dtype."""
    h = jax_handle("iiwa")
    q0, qd0, u = _start(h, 7, (2,), 3)
    out = h.rollout(q0.astype(np.float32), qd0.astype(np.float32), u.astype(np.float32), 0.01)
    assert out.q.dtype == jnp.float32 and out.qd.dtype == jnp.float32
    out = h.rollout(q0, qd0, np.zeros(u.shape, np.int32), 0.01)
    assert out.q.dtype == jnp.float64


@pytest.mark.parametrize(("robot", "method"), [c for c in SCAN_CELLS if c[0] in ROBOTS])
def test_fused_kernels_agree_with_the_scan(robot, method, jax_handle):
    """The fused kernels against the scan of single steps (an independent derivation: JAX differentiating the
    configuration update and each step's forward-dynamics rule): states, jvp and grad in every argument, the
    raw quaternion coordinates of q0 included, and grad under vmap with an argument left unbatched."""
    h = jax_handle(robot)
    dt, steps = 0.01, 12
    q0, qd0, u = _start(h, 8, (3,), steps)
    rng = np.random.default_rng(9)
    wq, wv = rng.standard_normal((steps, h.nq)), rng.standard_normal((steps, h.nv))

    def loss(fused):
        def f(q0, qd0, u, dt):
            out = h.rollout(q0, qd0, u, dt, method=method, fused=fused)
            return jnp.sum(jnp.sin(out.q) * wq) + jnp.sum(out.qd ** 2 * wv)
        return f

    x = tuple(jnp.asarray(a, jnp.float64) for a in (q0, qd0, u, dt))
    fused = jax.jit(lambda *a: h.rollout(*a, method=method, fused=True))(*x)
    scan = jax.jit(lambda *a: h.rollout(*a, method=method, fused=False))(*x)
    np.testing.assert_allclose(np.asarray(fused.q), np.asarray(scan.q), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(fused.qd), np.asarray(scan.qd), rtol=0, atol=1e-11)

    def close(a, b):
        a, b = np.asarray(a), np.asarray(b)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-11 * (1.0 + np.abs(b).max()))

    for ga, gb in zip(jax.jit(jax.grad(loss(True), argnums=(0, 1, 2, 3)))(*x),
                      jax.jit(jax.grad(loss(False), argnums=(0, 1, 2, 3)))(*x), strict=True):
        close(ga, gb)
    dx = tuple(jnp.asarray(rng.standard_normal(np.shape(a))) for a in x)
    close(jax.jvp(loss(True), x, dx)[1], jax.jvp(loss(False), x, dx)[1])
    per_sample = [jax.vmap(jax.grad(lambda q0, u, f=f: loss(f)(q0, x[1][0], u, dt), argnums=(0, 1)),
                           in_axes=(0, None))(x[0], x[2][0]) for f in (True, False)]
    for ga, gb in zip(*per_sample, strict=True):
        close(ga, gb)


JACOBIAN_CELLS = [pytest.param(r, b, id=f"{r}-{i}") for r in ROBOTS
                  for b, i in ((None, "whole"), (1, "step-chunks")) if r == "iiwa" or b is None]


@pytest.mark.parametrize(("robot", "budget"), JACOBIAN_CELLS)
def test_jacobian_adjoint_agrees_with_the_scan_and_the_kernel(robot, budget, jax_handle, monkeypatch):
    """Reverse mode by every step's Jacobians (adjoint="jacobians") against the adjoint kernel and, for the
    fixed base, the scan of single steps (JAX differentiating each step): grad in every argument, a
    free-flyer's raw quaternion coordinates included, on a batch and under vmap with an argument left
    unbatched; with a budget of one byte the steps' Jacobians are formed a step at a time."""
    from grid_rbd import _trajectory

    if budget is not None:
        monkeypatch.setattr(_trajectory, "_JACOBIAN_BUDGET_BYTES", budget)
    h = jax_handle(robot)
    dt, steps = 0.01, 12
    q0, qd0, u = _start(h, 11, (3,), steps)
    rng = np.random.default_rng(12)
    wq, wv = rng.standard_normal((steps, h.nq)), rng.standard_normal((steps, h.nv))

    def loss(**how):
        def f(q0, qd0, u, dt):
            out = h.rollout(q0, qd0, u, dt, **how)
            return jnp.sum(jnp.sin(out.q) * wq) + jnp.sum(out.qd ** 2 * wv)
        return f

    x = tuple(jnp.asarray(a, jnp.float64) for a in (q0, qd0, u, dt))
    ways = {"jacobians": {"fused": True, "adjoint": "jacobians"}, "kernel": {"fused": True, "adjoint": "kernel"}}
    if h.nq == h.nv:  # a free-flyer's scan gradient takes XLA a minute; the kernel is held to it above
        ways["scan"] = {"fused": False}
    grads = {name: jax.jit(jax.grad(loss(**how), argnums=(0, 1, 2, 3)))(*x) for name, how in ways.items()}
    per_sample = {name: jax.vmap(jax.grad(lambda q0, u, how=how: loss(**how)(q0, x[1][0], u, dt), argnums=(0, 1)),
                                 in_axes=(0, None))(x[0], x[2][0]) for name, how in ways.items()}
    for other in ways.keys() - {"jacobians"}:
        for got, want in [*zip(grads["jacobians"], grads[other], strict=True),
                          *zip(per_sample["jacobians"], per_sample[other], strict=True)]:
            got, want = np.asarray(got), np.asarray(want)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * (1.0 + np.abs(want).max()))
    # float32: the same recursion on float32 Jacobians
    x32 = tuple(jnp.asarray(a, jnp.float32) for a in x)
    g32 = jax.jit(jax.grad(loss(**ways["jacobians"]), argnums=2))(*x32)
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(g32), np.asarray(grads["kernel"][2]), rtol=0,
                               atol=1e-3 * (1.0 + np.abs(np.asarray(grads["kernel"][2])).max()))


def test_jacobian_adjoint_refuses_what_it_does_not_cover(jax_handle):
    h = jax_handle("iiwa")
    q0, qd0, u = _start(h, 13, (), 3)
    with pytest.raises(ValueError, match="covers method='semi_implicit'"):
        h.rollout(q0, qd0, u, 0.01, method="rk4", adjoint="jacobians")
    with pytest.raises(ValueError, match="adjoint must be one of"):
        h.rollout(q0, qd0, u, 0.01, adjoint="reverse")
    with pytest.raises(ValueError, match="scan of single steps"):
        h.rollout(q0, qd0, u, 0.01, fused=False, adjoint="jacobians")
    second = jax.hessian(lambda u: jnp.sum(h.rollout(q0, qd0, u, 0.01, adjoint="jacobians").q ** 2))
    with pytest.raises(NotImplementedError, match="second derivatives of a fused rollout"):
        second(jnp.asarray(u))


def test_fused_rollouts_refuse_what_they_cannot_do(jax_handle):
    h = jax_handle("iiwa")
    q0, qd0, u = _start(h, 10, (), 3)
    with pytest.raises(ValueError, match="cannot call a JAX controller"):
        h.rollout(q0, qd0, u, 0.01, controller=lambda q, qd, u: u, fused=True)
    second = jax.hessian(lambda u: jnp.sum(h.rollout(q0, qd0, u, 0.01, fused=True).q ** 2))
    with pytest.raises(NotImplementedError, match="second derivatives of a fused rollout"):
        second(jnp.asarray(u))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("robot", ROBOTS)
def test_step_derivatives_match_the_differentiated_step(robot, method, jax_handle):
    """The integrator_gradient kernel (one dual-number run of the step per direction) against JAX's
    derivatives of the step composed from forward_dynamics and integrate, in tangent coordinates: q moved
    along θ by integrate, the change of q1 taken to the tangent at q1 by configuration_tangent."""
    h = jax_handle(robot)
    nv = h.nv
    q0, qd0, u = _start(h, 11, (3,), 1)
    u = u[:, 0]
    dt = np.array([0.004, 0.01, 0.007])
    q1, qd1, dx, du = h.step_derivatives(q0, qd0, u, dt, method=method)
    assert dx.shape == (3, 2 * nv, 2 * nv) and du.shape == (3, 2 * nv, nv)
    for s in range(3):
        def step(theta, qd, u, s=s):
            return h.step(h.integrate(jnp.asarray(q0[s]), theta), qd, u, dt[s], method=method)

        x = (jnp.zeros(nv), jnp.asarray(qd0[s]), jnp.asarray(u[s]))
        want_q1, want_qd1 = step(*x)
        np.testing.assert_allclose(np.asarray(q1[s]), np.asarray(want_q1), rtol=0, atol=1e-13)
        np.testing.assert_allclose(np.asarray(qd1[s]), np.asarray(want_qd1), rtol=0, atol=1e-12)
        jq, jqd = jax.jacfwd(step, argnums=(0, 1, 2))(*x)  # each a tuple over (θ, qd, u)
        # the tangent at q1 of each column of ∂q1/∂(·)
        to_tangent = jax.vmap(lambda dq: h.configuration_tangent(want_q1, dq), in_axes=1, out_axes=1)
        want = np.block([[np.asarray(to_tangent(jq[0])), np.asarray(to_tangent(jq[1])), np.asarray(to_tangent(jq[2]))],
                         [np.asarray(jqd[0]), np.asarray(jqd[1]), np.asarray(jqd[2])]])
        got = np.concatenate([np.asarray(dx[s]), np.asarray(du[s])], axis=1)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * (1.0 + np.abs(want).max()))


def test_step_derivatives_refuse_bad_input(jax_handle):
    h = jax_handle("iiwa")
    q0, qd0, u = _start(h, 12, (2,), 1)
    with pytest.raises(ValueError, match="method must be one of"):
        h.step_derivatives(q0, qd0, u[:, 0], 0.01, method="euler")
    with pytest.raises(ValueError, match="dt must be a scalar or have q's batch shape"):
        h.step_derivatives(q0, qd0, u[:, 0], np.ones(3))
    with pytest.raises(NotImplementedError, match="needs derivatives of an order"):
        jax.grad(lambda u: jnp.sum(h.step_derivatives(q0, qd0, u, 0.01)[2]))(jnp.asarray(u[:, 0]))


def test_numpy_handle_steps_like_the_jax_handle(jax_handle, numpy_handle):
    """RobotHandle.step_derivatives runs the same kernel on NumPy arrays, the step in the states' dtype."""
    h, n = jax_handle("iiwa"), numpy_handle("iiwa")
    q0, qd0, u = _start(h, 13, (2,), 1)
    want = h.step_derivatives(q0, qd0, u[:, 0], 0.01, method="rk4")
    got = n.step_derivatives(q0, qd0, u[:, 0], np.array([0.01, 0.01]), method="rk4")
    for a, b in zip(got, want, strict=True):
        assert isinstance(a, np.ndarray)
        np.testing.assert_array_equal(a, np.asarray(b))
    single = n.step_derivatives(q0[0].astype(np.float32), qd0[0].astype(np.float32), u[0, 0].astype(np.float32), 0.01)
    assert all(a.dtype == np.float32 for a in single)


def test_jacobian_adjoint_handler_names_a_bad_operand(jax_handle):
    """The recursion's handler checks every operand: a step Jacobian of the wrong size or dtype is an error
    naming it and the shape it needs, not a crash."""
    h = jax_handle("iiwa")
    nq, nv, b, t = h.nq, h.nv, 2, 3
    target = h._robot.target("rollout_adjoint_jacobians")

    def call(jac_shape, jac_dtype=jnp.float64):
        z = lambda *s: jnp.zeros(s, jnp.float64)  # noqa: E731
        operands = [z(b, nq), z(b, nq), z(b, nv), z(b, t, nq), z(b, t, nv), z(b, t, nq), z(b, t, nv),
                    jnp.zeros(jac_shape, jac_dtype), z(b, t, nv, nv), z(b, t, nv, nv), z(b, t, nv), z(b)]
        results = [jax.ShapeDtypeStruct(s, jnp.float64) for s in ((b, nq), (b, nv), (b, t, nv), (b,))]
        return jax.block_until_ready(jax.ffi.ffi_call(target, results)(*operands))

    lq, lqd, gu, gdt = call((b, t, nv, nv))
    assert not np.any(np.asarray(gu)) and not np.any(np.asarray(lq))
    with pytest.raises(Exception, match=rf"operand da_dq has shape \[{b}, {t}, {nv}, {nv + 1}\]; "
                                        rf"expected \[\.\.\., {t}, {nv}, {nv}\]"):
        call((b, t, nv, nv + 1))
    with pytest.raises(Exception, match="operand da_dq has dtype float32 but operand q_first has float64"):
        call((b, t, nv, nv), jnp.float32)
