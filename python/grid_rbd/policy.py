"""Policy learning through differentiable rollouts: ``python -m grid_rbd.policy [options]``.

One feedback policy for a fixed-base robot, shared by every task: gravity compensation plus joint gains
around a target configuration, scaled by each joint's own inertia so that the gains are rates,
``tau = g(q) + diag(M(q)) ∘ (kp ∘ (q* − q) − kd ∘ qd)`` with a learned ``kp`` (1/s²) and ``kd`` (1/s) per joint.
The policy acts every ``--hold`` simulation steps and its torque is held in between (a controller slower than
the simulation, as robots and learned policies usually run), so each control interval is one fused rollout
(``JaxRobotHandle.rollout``: the interval's steps in one kernel call, its derivative in one tangent or
adjoint call) and the horizon a scan over the intervals. It is trained by gradient descent (Adam) on
``jax.grad`` of the mean loss over a batch of reaching tasks (start at rest, reach the target configuration
``q*`` within the horizon, stop there), then evaluated on tasks it was not trained on. Prints the loss as it
falls and the held-out error before and after training.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import _examples
from .jax import JaxRobotHandle

# loss weights: final configuration error (per rad²), final velocity (per (rad/s)²), gains (per (1/s²)²)
POSITION_WEIGHT = 10.0
VELOCITY_WEIGHT = 0.1
GAIN_WEIGHT = 1e-6
# initial gains: a slow, underdamped approach (natural frequency 2 rad/s, damping ratio 0.25)
INITIAL_KP, INITIAL_KD = 4.0, 1.0


def final_errors(robot: JaxRobotHandle, params: dict[str, jax.Array], q0: jax.Array, target: jax.Array,
                 horizon: int, dt: float, hold: int) -> tuple[jax.Array, jax.Array]:
    """Every task's final configuration error and final velocity, under the policy acting every ``hold``
    steps (``horizon`` a multiple of it)."""
    kp, kd = jnp.exp(params["log_kp"]), jnp.exp(params["log_kd"])

    def interval(state: tuple[jax.Array, jax.Array], _: None) -> tuple[tuple[jax.Array, jax.Array], None]:
        q, qd = state
        inertia = jnp.diagonal(robot.mass_matrix(q), axis1=-2, axis2=-1)
        tau = robot.gravity_forces(q) + inertia * (kp * (target - q) - kd * qd)
        held = jnp.broadcast_to(tau[..., None, :], tau.shape[:-1] + (hold, robot.nv))
        out = robot.rollout(q, qd, held, dt)
        return (out.q[..., -1, :], out.qd[..., -1, :]), None

    (q, qd), _ = jax.lax.scan(interval, (q0, jnp.zeros_like(q0)), None, length=horizon // hold)
    return q - target, qd


def main(argv: list[str] | None = None) -> int:
    parser = _examples.parser(__doc__, batch=64, iterations=100, lr_help="Adam step size on the log-gains (default 0.05)")
    parser.add_argument("--hold", type=int, default=5,
                        help="simulation steps per policy action, the torque held over them (default 5)")
    args = parser.parse_args(argv)
    if args.hold < 1 or args.horizon % args.hold:
        parser.error(f"--hold must be at least 1 and divide --horizon ({args.horizon}); got {args.hold}")
    robot = _examples.load_arm(parser, args)
    print(f"policy tau = g(q) + diag(M(q)) (kp (q* - q) - kd qd), acting every {args.hold} steps; {args.batch} "
          f"tasks of {args.horizon} steps of {args.dt} s, {args.iterations} Adam steps")

    q0, target = (jnp.asarray(a) for a in _examples.reaching_configurations(robot, args.batch, args.seed))
    held_q0, held_target = (jnp.asarray(a) for a in _examples.reaching_configurations(robot, args.batch, args.seed + 1))
    params = {"log_kp": jnp.full(robot.nv, np.log(INITIAL_KP), q0.dtype),
              "log_kd": jnp.full(robot.nv, np.log(INITIAL_KD), q0.dtype)}

    def loss(params: dict[str, jax.Array], q0: jax.Array, target: jax.Array) -> jax.Array:
        miss, qd = final_errors(robot, params, q0, target, args.horizon, args.dt, args.hold)
        gains = jnp.exp(params["log_kp"]) ** 2 + jnp.exp(params["log_kd"]) ** 2
        return (POSITION_WEIGHT * jnp.mean(jnp.sum(miss * miss, -1)) + VELOCITY_WEIGHT * jnp.mean(jnp.sum(qd * qd, -1))
                + GAIN_WEIGHT * jnp.sum(gains))

    def train_step(state, k, q0, target):  # noqa: ANN001, ANN202
        params, moments = state
        value, grads = jax.value_and_grad(loss)(params, q0, target)
        return _examples.adam(params, grads, moments, k, args.lr), value

    held_out = jax.jit(lambda params: jnp.linalg.norm(final_errors(robot, params, held_q0, held_target,
                                                                     args.horizon, args.dt, args.hold)[0], axis=-1))
    before = np.asarray(held_out(params))
    state = (params, _examples.zero_moments(params))
    (params, _), history, elapsed = _examples.optimise(train_step, state, args.iterations, q0, target)
    after = np.asarray(held_out(params))
    print("summary")
    print(f"  loss                     {history[0]:.4g} -> {history[-1]:.4g} in {elapsed:.2f} s "
          f"({args.iterations * args.batch / elapsed:.3g} rollout gradients per second)")
    print(f"  held-out final error     median {np.median(before):.3g} -> {np.median(after):.3g} rad "
          f"({args.batch} tasks not trained on)")
    print(f"  gains                    kp {np.round(np.exp(np.asarray(params['log_kp'])), 1)}")
    print(f"                           kd {np.round(np.exp(np.asarray(params['log_kd'])), 2)}")
    if not np.isfinite(history[-1]) or history[-1] >= history[0] or np.median(after) >= np.median(before):
        print("training did not help")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
