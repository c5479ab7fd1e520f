"""Derivatives: the generated derivative kernels against Pinocchio, and JAX autodiff through the handle
methods against float64 central differences, including the free-flyer quaternion chain rule, batching
(``jit(vmap(grad))``) and the compiled HLO."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import refdata
from support import DTYPES, METHODS, check_relative, leaf_frame, log_error, sample_errors, worst_entry

ROBOTS = refdata.robot_names()
FLOATING = [r.name for r in refdata.robot_set() if r.free_flyer]

# float64 derivative kernels against Pinocchio, relative to each output's max magnitude per sample
PINOCCHIO_RTOL = 1e-8
# autodiff against central differences of step FD_STEP (see _central_differences)
FD_STEP = 1e-3
FD_RTOL = 1e-5


# ---------------------------------------------------------------------------------------------------------
# Derivative kernels against Pinocchio


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ROBOTS)
def test_derivative_kernels_match_pinocchio(robot, dtype, jax_handle, reference):
    """dτ/dq, dτ/dqd (computeRNEADerivatives) and dqdd/dq, dqdd/dqd, M⁻¹ (computeABADerivatives)."""
    h, ref = jax_handle(robot), reference(robot)
    x = {k: jnp.asarray(v, dtype) for k, v in ref.inputs.items()}
    dtau_dq, dtau_dqd = h.inverse_dynamics_derivatives(x["q"], x["qd"], x["qdd"])
    dqdd_dq, dqdd_dqd, minv = h.forward_dynamics_derivatives(x["q"], x["qd"], x["tau"])
    if np.dtype(dtype) == np.float64:
        rtol_id = rtol_fd = PINOCCHIO_RTOL
    else:
        # float32: inverse dynamics is well conditioned; forward dynamics goes through M⁻¹
        rtol_id = 1e-3
        rtol_fd = 1e-5 * float(np.max(ref.cond_mass_matrix()))
    check_relative(robot, dtype, "inverse_dynamics_derivatives.dq", dtau_dq, ref.outputs["rnea_dq"], rtol_id)
    check_relative(robot, dtype, "inverse_dynamics_derivatives.dqd", dtau_dqd, ref.outputs["rnea_dqd"], rtol_id)
    check_relative(robot, dtype, "forward_dynamics_derivatives.dq", dqdd_dq, ref.outputs["aba_dq"], rtol_fd)
    check_relative(robot, dtype, "forward_dynamics_derivatives.dqd", dqdd_dqd, ref.outputs["aba_dqd"], rtol_fd)
    check_relative(robot, dtype, "forward_dynamics_derivatives.minv", minv, ref.outputs["minv"], rtol_fd)


@pytest.mark.parametrize("robot", ROBOTS)
def test_autodiff_of_fixed_base_methods_matches_pinocchio(robot, jax_handle, reference):
    """jacfwd through forward_dynamics and inverse_dynamics gives Pinocchio's derivatives; for a fixed
    base raw q is the tangent, for a free-flyer the velocity derivatives still compare directly."""
    h, ref = jax_handle(robot), reference(robot)
    q, qd, qdd, tau = (jnp.asarray(ref.inputs[k]) for k in ("q", "qd", "qdd", "tau"))
    fd_dqd = jax.vmap(jax.jacfwd(lambda q, v, t: h.forward_dynamics(q, v, t), argnums=1))(q, qd, tau)
    id_dqd = jax.vmap(jax.jacrev(lambda q, v, a: h.inverse_dynamics(q, v, a), argnums=1))(q, qd, qdd)
    check_relative(robot, np.float64, "jacfwd(forward_dynamics).qd", fd_dqd, ref.outputs["aba_dqd"], PINOCCHIO_RTOL)
    check_relative(robot, np.float64, "jacrev(inverse_dynamics).qd", id_dqd, ref.outputs["rnea_dqd"], PINOCCHIO_RTOL)
    if not h.floating_base:
        fd_dq = jax.vmap(jax.jacrev(lambda q, v, t: h.forward_dynamics(q, v, t)))(q, qd, tau)
        check_relative(robot, np.float64, "jacrev(forward_dynamics).q", fd_dq, ref.outputs["aba_dq"], PINOCCHIO_RTOL)


# ---------------------------------------------------------------------------------------------------------
# Autodiff against central differences


def _state(h, rng):
    """One state with moderate velocities; a free-flyer's quaternion is unit."""
    q = rng.uniform(-np.pi, np.pi, h.nq)
    if h.floating_base:
        quat = rng.standard_normal(4)
        q[3:7] = quat / np.linalg.norm(quat)
    return {"q": q, "qd": rng.normal(0.0, 1.0, h.nv), "qdd": rng.normal(0.0, 3.0, h.nv),
            "tau": rng.normal(0.0, 10.0, h.nv)}


def _central_differences(f, args, argnum):
    """d f / d args[argnum] by the fourth-order central stencil, float64, shape out.shape + (n,).

    All 4·n perturbed inputs go through f as one batch (the methods take leading batch dimensions). The
    step is large for a finite difference because the error here is rounding, amplified by cond(M) on
    robots such as h1_2, not truncation (which the fourth-order stencil keeps at O(FD_STEP⁴)).
    """
    x = np.asarray(args[argnum], dtype=np.float64)
    n = x.size
    eye = np.eye(n) * FD_STEP
    shifted = np.concatenate([x - 2 * eye, x - eye, x + eye, x + 2 * eye])  # (4n, n)
    batch = [jnp.asarray(shifted) if i == argnum else jnp.broadcast_to(a, (4 * n,) + a.shape)
             for i, a in enumerate(args)]
    y = np.asarray(f(*batch)).reshape(4, n, -1)
    d = (y[0] - 8 * y[1] + 8 * y[2] - y[3]) / (12 * FD_STEP)  # (n, m)
    return d.T


def _outputs(method, h, frame):
    """The method as a function of its array arguments returning, per sample, its outputs flattened and
    concatenated (leading batch dimensions kept)."""

    def f(*arrays):
        lead = arrays[0].shape[:-1]
        outs = method.call(h, *arrays, frame=frame)
        return jnp.concatenate([jnp.reshape(o, lead + (-1,)) for o in outs], axis=-1)

    return f


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ROBOTS)
def test_autodiff_matches_central_differences(robot, method, jax_handle, rng):
    """jacfwd and jacrev of every method against central differences, with respect to each argument
    (raw q included: on free-flyer robots this checks the quaternion chain rule)."""
    h = jax_handle(robot)
    m = METHODS[method]
    frame = leaf_frame(h) if m.frame else None
    state = _state(h, rng)
    args = [jnp.asarray(state[a]) for a in m.args]
    f = _outputs(m, h, frame)
    for argnum, name in enumerate(m.args):
        want = _central_differences(f, args, argnum)
        scale = max(1.0, float(np.max(np.abs(want))))
        for mode, jac in (("jacfwd", jax.jacfwd), ("jacrev", jax.jacrev)):
            got = np.asarray(jax.jit(jac(f, argnums=argnum))(*args))
            err = float(np.max(np.abs(got - want))) / scale
            log_error(robot, np.float64, f"autodiff:{method}", err, err / FD_RTOL)
            assert err <= FD_RTOL, (
                f"{robot} {mode}({method}) w.r.t. {name}: error {err:.3e} (relative to {scale:.3g}) against "
                f"central differences exceeds {FD_RTOL:.0e}"
            )


@pytest.mark.parametrize("robot", FLOATING)
def test_quaternion_chain_rule(robot, jax_handle, rng):
    """The raw-q derivative of a free-flyer: a body twist v, written as a raw dq (dp = R v_lin,
    dquat = ½ quat ⊗ (ω, 0)), maps back to v; a radial dquat changes nothing; and the jvp along that dq is
    the tangent derivative kernel times v."""
    h = jax_handle(robot)
    state = _state(h, rng)
    q, qd, tau = (jnp.asarray(state[k]) for k in ("q", "qd", "tau"))
    v = jnp.asarray(rng.normal(size=h.nv))
    x, y, z, w = (float(c) for c in state["q"][3:7])
    rot = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    om = np.asarray(v[3:6])
    qv, qw = np.array([x, y, z]), w
    dquat = 0.5 * np.concatenate([qw * om + np.cross(qv, om), [-qv @ om]])  # quat ⊗ (ω, 0)
    dq = np.concatenate([rot @ np.asarray(v[:3]), dquat, np.asarray(v[6:])])
    np.testing.assert_allclose(h.configuration_tangent(q, jnp.asarray(dq)), v, rtol=0, atol=1e-12)

    dqdd_dq, _, _ = h.forward_dynamics_derivatives(q, qd, tau)
    _, along = jax.jvp(lambda q: h.forward_dynamics(q, qd, tau), (q,), (jnp.asarray(dq),))
    np.testing.assert_allclose(along, dqdd_dq @ v, rtol=1e-10, atol=1e-10 * float(jnp.max(jnp.abs(along))))

    radial = np.zeros(h.nq)
    radial[3:7] = state["q"][3:7]
    _, moved = jax.jvp(lambda q: h.forward_dynamics(q, qd, tau), (q,), (jnp.asarray(radial),))
    qdd = h.forward_dynamics(q, qd, tau)
    assert float(jnp.max(jnp.abs(moved))) <= 1e-10 * float(jnp.max(jnp.abs(qdd))), moved
    # and a scaled quaternion gives the same dynamics
    scaled = q.at[3:7].multiply(3.0)
    np.testing.assert_allclose(h.forward_dynamics(scaled, qd, tau), qdd, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------------------------------------
# Batching and compiled HLO


BATCH = 1024


def _loss(method, h, frame):
    """A smooth scalar of the method's outputs without trigonometry, so any in the HLO is the dynamics'."""

    def loss(*arrays):
        outs = method.call(h, *arrays, frame=frame)
        return sum(jnp.sum(o * jnp.linspace(-1.0, 1.0, o.size).reshape(o.shape) + 0.5 * o * o) for o in outs)

    return loss


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_jit_vmap_grad_over_a_batch(robot, method, jax_handle, rng):
    """jit(vmap(grad(loss))) over 1024 states runs, matches per-sample grads, and compiles to our custom
    calls: the derivative kernels are there, and no trigonometry (the joint transforms) is."""
    h = jax_handle(robot)
    m = METHODS[method]
    frame = leaf_frame(h) if m.frame else None
    states = [_state(h, rng) for _ in range(BATCH)]
    args = [jnp.asarray(np.stack([s[a] for s in states])) for a in m.args]
    loss = _loss(m, h, frame)
    batched = jax.jit(jax.vmap(jax.grad(loss, argnums=tuple(range(len(args))))))
    grads = batched(*args)
    for k in (0, BATCH - 1):
        single = jax.grad(loss, argnums=tuple(range(len(args))))(*(a[k] for a in args))
        for g, s in zip(grads, single, strict=True):
            np.testing.assert_allclose(g[k], s, rtol=1e-12, atol=1e-12 * float(jnp.max(jnp.abs(s)) + 1))

    hlo = batched.lower(*args).compile().as_text()
    targets = set(re.findall(r'custom_call_target="([^"]+)"', hlo))
    ours = {t for t in targets if t.startswith(f"grid_rbd.{h.name}.")}
    assert ours, f"no grid_rbd custom call in the compiled HLO; targets: {targets}"
    derivative = ("_gradient", "_hessian")
    assert any(t.endswith(derivative) for t in ours), f"no derivative kernel in the HLO: {sorted(ours)}"
    trig = re.findall(r" (sine|cosine|tan|atan2)\(", hlo)
    assert not trig, f"the compiled HLO computes trigonometry, so it re-traces dynamics: {trig}"


# ---------------------------------------------------------------------------------------------------------
# Second derivatives


SECOND_ORDER_PINOCCHIO_RTOL = 1e-6  # against central differences of Pinocchio's exact first derivatives


def _along_tangent(h, f, q, step=FD_STEP):
    """d f(q ⊕ ε e_b) / dε per tangent direction b by the fourth-order stencil, moving q along the raw
    direction whose configuration_tangent is e_b (exact to first order, which the stencil needs)."""
    g = jax.jacfwd(lambda d: h.configuration_tangent(q, d))(jnp.zeros_like(q))  # (NV, NQ)
    lift = np.linalg.pinv(np.asarray(g))  # raw direction of each unit tangent
    cols = []
    for b in range(h.nv):
        d = jnp.asarray(lift[:, b])

        def at(eps):
            x = q + eps * d
            if h.floating_base:
                x = x.at[3:7].set(x[3:7] / jnp.linalg.norm(x[3:7]))
            return np.asarray(f(x))

        cols.append((at(-2 * step) - 8 * at(-step) + 8 * at(step) - at(2 * step)) / (12 * step))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("robot", ROBOTS)
def test_second_order_kernels(robot, jax_handle, reference):
    """idsva_so and fdsva_so against central differences of Pinocchio's first derivatives (robots up to
    refdata.SECOND_ORDER_MAX_NV velocity coordinates), else of our first-order kernels, which match
    Pinocchio (test_derivative_kernels_match_pinocchio)."""
    h, ref = jax_handle(robot), reference(robot)
    x = {k: jnp.asarray(v) for k, v in ref.inputs.items()}
    for s in range(refdata.SECOND_ORDER_SAMPLES):
        q, qd, qdd, tau = x["q"][s], x["qd"][s], x["qdd"][s], x["tau"][s]
        got_id = h.inverse_dynamics_second_derivatives(q, qd, qdd)
        got_fd = h.forward_dynamics_second_derivatives(q, qd, tau)
        if ref.second_order:
            source = "Pinocchio"
            want_id = [ref.second_order[k][s] for k in refdata.SECOND_ORDER[:4]]
            want_fd = [ref.second_order[k][s] for k in refdata.SECOND_ORDER[4:]]
            rtol = SECOND_ORDER_PINOCCHIO_RTOL
        else:
            assert h.nv > refdata.SECOND_ORDER_MAX_NV, "Pinocchio's second-order reference is missing"
            source = "our first-order kernels"
            want_id = [
                _along_tangent(h, lambda q: h.inverse_dynamics_derivatives(q, qd, qdd)[0], q),
                _along_tangent(h, lambda q: h.inverse_dynamics_derivatives(q, qd, qdd)[1], q),
                np.asarray(jax.jacfwd(lambda v: h.inverse_dynamics_derivatives(q, v, qdd)[1])(qd)),
                _along_tangent(h, h.mass_matrix, q),
            ]
            want_fd = [
                _along_tangent(h, lambda q: h.forward_dynamics_derivatives(q, qd, tau)[0], q),
                _along_tangent(h, lambda q: h.forward_dynamics_derivatives(q, qd, tau)[1], q),
                np.asarray(jax.jacfwd(lambda v: h.forward_dynamics_derivatives(q, v, tau)[1])(qd)),
                _along_tangent(h, h.minv, q),
            ]
            rtol = FD_RTOL
        names = ("d2tau_dq2", "d2tau_dqdqd", "d2tau_dqd2", "dM_dq", "d2qdd_dq2", "d2qdd_dqdqd", "d2qdd_dqd2",
                 "dMinv_dq")
        for name, got, want in zip(names, list(got_id) + list(got_fd), want_id + want_fd, strict=True):
            err, _ = sample_errors(np.asarray(got)[None], np.asarray(want)[None], 1)
            log_error(robot, np.float64, f"second_order:{name}", float(err[0]), float(err[0]) / rtol)
            assert err[0] <= rtol, (
                f"{robot} {name} sample {s}: relative error {err[0]:.3e} > {rtol:.0e} against central "
                f"differences of {source}; {worst_entry(np.asarray(got)[None], np.asarray(want)[None], (0,))}"
            )


def _flat_loss(method, h, frame, shapes):
    """A scalar of the method's outputs as a function of its arguments concatenated into one vector:
    linear plus a small quadratic part, so the Hessian holds both second derivatives and products of
    first derivatives."""
    splits = np.cumsum([n for n in shapes])[:-1]

    def loss(x):
        outs = method.call(h, *jnp.split(x, splits), frame=frame)
        total = 0.0
        for o in outs:
            w = jnp.linspace(-1.0, 1.0, o.size).reshape(o.shape)
            total = total + jnp.sum(w * o) + 1e-3 * jnp.sum(o * o)
        return total

    return loss


@pytest.mark.parametrize("method", [m for m in METHODS if m != "frame_jacobian"])
@pytest.mark.parametrize("robot", ROBOTS)
def test_hessian_matches_central_differences(robot, method, jax_handle, rng):
    """jax.hessian of every method (but frame_jacobian, whose second derivative is third-order
    kinematics) against central differences of jax.grad, which runs on the first-order kernels."""
    h = jax_handle(robot)
    m = METHODS[method]
    frame = leaf_frame(h) if m.frame else None
    state = _state(h, rng)
    x = jnp.asarray(np.concatenate([state[a] for a in m.args]))
    loss = _flat_loss(m, h, frame, [state[a].size for a in m.args])
    hess = np.asarray(jax.jit(jax.hessian(loss))(x))
    n = x.size
    eye = np.eye(n) * FD_STEP
    shifted = jnp.asarray(np.concatenate([x - 2 * eye, x - eye, x + eye, x + 2 * eye]))
    grads = np.asarray(jax.jit(jax.vmap(jax.grad(loss)))(shifted)).reshape(4, n, n)
    want = ((grads[0] - 8 * grads[1] + 8 * grads[2] - grads[3]) / (12 * FD_STEP)).T
    scale = max(1.0, float(np.max(np.abs(want))))
    err = float(np.max(np.abs(hess - want))) / scale
    log_error(robot, np.float64, f"hessian:{method}", err, err / FD_RTOL)
    assert err <= FD_RTOL, f"{robot} hessian({method}): error {err:.3e} (relative to {scale:.3g}) > {FD_RTOL:.0e}"
    assert float(np.max(np.abs(hess - hess.T))) <= 1e-9 * scale, "the Hessian is not symmetric"


def test_third_derivatives_raise_a_clear_error(jax_handle):
    h = jax_handle("iiwa")
    q = jnp.zeros(h.nq)
    with pytest.raises(NotImplementedError, match="derivatives of an order"):
        jax.jacfwd(jax.hessian(lambda q: jnp.sum(h.gravity_forces(q))))(q)
    with pytest.raises(NotImplementedError, match="derivatives of an order"):
        jax.hessian(lambda q: jnp.sum(h.frame_jacobian(q, leaf_frame(h))))(q)


def test_bad_input_under_grad_names_the_argument(jax_handle):
    h = jax_handle("iiwa")
    with pytest.raises(ValueError, match="qd must have shape"):
        jax.grad(lambda q: jnp.sum(h.forward_dynamics(q, jnp.zeros(3), jnp.zeros(h.nv))))(jnp.zeros(h.nq))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("robot", ["iiwa", "go2"])
def test_numpy_handle_derivatives_equal_the_jax_handle(robot, dtype, jax_handle, numpy_handle, rng):
    """RobotHandle's derivative methods run the same (CPU) kernels as the JAX handle on the CPU device:
    identical results, NumPy arrays of the input dtype. (On a GPU the JAX handle runs the CUDA build, which
    the Pinocchio comparisons above check.)"""
    jh, nh = jax_handle(robot), numpy_handle(robot)
    s = _state(jh, rng)
    q, qd, qdd, tau = (np.asarray(s[k], dtype) for k in ("q", "qd", "qdd", "tau"))
    frame = leaf_frame(jh)
    with jax.default_device(jax.devices("cpu")[0]):
        pairs = [
            (nh.inverse_dynamics_derivatives(q, qd, qdd), jh.inverse_dynamics_derivatives(q, qd, qdd)),
            (nh.forward_dynamics_derivatives(q, qd, tau), jh.forward_dynamics_derivatives(q, qd, tau)),
            (nh.inverse_dynamics_second_derivatives(q, qd, qdd),
             jh.inverse_dynamics_second_derivatives(q, qd, qdd)),
            (nh.forward_dynamics_second_derivatives(q, qd, tau),
             jh.forward_dynamics_second_derivatives(q, qd, tau)),
            ((nh.frame_jacobians(q),), (jh.frame_jacobians(q),)),
            ((nh.frame_jacobian_derivatives(q, frame),), (jh.frame_jacobian_derivatives(q, frame),)),
        ]
    for got, want in pairs:
        for g, w in zip(got, want, strict=True):
            assert isinstance(g, np.ndarray) and g.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(g, np.asarray(w))
