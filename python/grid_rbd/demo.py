"""Trajectory optimisation through differentiable dynamics: ``python -m grid_rbd.demo [options]``.

A batch of reaching tasks for a fixed-base robot: from rest at a start configuration, move the end effector
to a target point within the horizon and stop there. The torque trajectory of every task is optimised by
gradient descent (Adam) on ``jax.grad`` of a loss through the whole rollout (``JaxRobotHandle.rollout``:
semi-implicit Euler steps of forward dynamics in one kernel call and its adjoint in another, gravity
compensated, the end-effector positions by ``frames=``),
all tasks at once under ``jax.vmap``; the gradients come from the generated derivative kernels. Prints the
loss as it falls and saves a plot of the loss and of the first task's distance to its target.
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from . import _examples
from .jax import JaxRobotHandle

# loss weights: final position error (per m²), final velocity (per (rad/s)²), effort (per (N·m)² per step)
POSITION_WEIGHT = 100.0
VELOCITY_WEIGHT = 0.1
EFFORT_WEIGHT = 1e-4


def _tasks(robot: JaxRobotHandle, batch: int, seed: int) -> tuple[jax.Array, jax.Array]:
    """Start configurations and reachable targets: the end effector at a nearby random configuration."""
    q0, q_goal = _examples.reaching_configurations(robot, batch, seed)
    frame = robot.n_frames - 1
    targets = np.asarray(robot.frame_poses(jnp.asarray(q_goal))[0][:, frame, :])
    return jnp.asarray(q0), jnp.asarray(targets)


def _rollout(robot: JaxRobotHandle, dt: float):  # noqa: ANN202
    """(q0, torques [T, NV]) -> (end-effector path [T, 3], final qd): semi-implicit Euler
    (JaxRobotHandle.rollout, the fused kernels) with gravity compensation added to the optimised torques.

    Compensating gravity with the robot's own model cancels it exactly (M·qdd + C·qd + g = u + g), so the
    compensated arm is the same arm with gravity off, and the rollout runs without a JAX controller."""
    frame = robot.n_frames - 1
    weightless = robot.with_gravity((0.0, 0.0, 0.0))

    def rollout(q0: jax.Array, torques: jax.Array) -> tuple[jax.Array, jax.Array]:
        out = weightless.rollout(q0, jnp.zeros_like(q0), torques, dt, frames=[frame])
        return out.frame_positions[..., 0, :], out.qd[..., -1, :]

    return rollout


def main(argv: list[str] | None = None) -> int:
    parser = _examples.parser(__doc__, batch=32, iterations=200,
                              lr_help="Adam step size in N·m, halving every 100 steps (default 0.05)")
    parser.add_argument("--plot", default="grid_rbd_demo.png", help="where to save the plot ('' for none)")
    args = parser.parse_args(argv)
    robot = _examples.load_arm(parser, args)
    print(f"{args.batch} reaching tasks, {args.horizon} steps of {args.dt} s, {args.iterations} Adam steps")

    q0, targets = _tasks(robot, args.batch, args.seed)
    rollout = _rollout(robot, args.dt)

    def loss(torques: jax.Array, q0: jax.Array, target: jax.Array) -> jax.Array:
        path, qd = rollout(q0, torques)
        miss = path[-1] - target
        return (POSITION_WEIGHT * jnp.sum(miss * miss) + VELOCITY_WEIGHT * jnp.sum(qd * qd)
                + EFFORT_WEIGHT * jnp.sum(torques * torques))

    value_and_grad = jax.vmap(jax.value_and_grad(loss))

    def adam_step(state, k, q0, targets):  # noqa: ANN001, ANN202
        torques, moments = state
        values, grads = value_and_grad(torques, q0, targets)
        step_size = args.lr * 0.5 ** (k / 100)  # halves every 100 steps
        return _examples.adam(torques, grads, moments, k, step_size), values

    torques = jnp.zeros((args.batch, args.horizon, robot.nv), q0.dtype)
    first_path = np.asarray(jax.jit(rollout)(q0[0], torques[0])[0])
    state = (torques, _examples.zero_moments(torques))
    (torques, _), history, elapsed = _examples.optimise(adam_step, state, args.iterations, q0, targets)

    paths, qd_end = jax.jit(jax.vmap(rollout))(q0, torques)
    miss = np.linalg.norm(np.asarray(paths[:, -1] - targets), axis=1)
    print("summary")
    print(f"  mean loss                {history[0]:.4g} -> {history[-1]:.4g} in {elapsed:.2f} s "
          f"({args.iterations * args.batch / elapsed:.3g} rollout gradients per second)")
    print(f"  final distance to target median {1000 * np.median(miss):.1f} mm, max {1000 * miss.max():.1f} mm")
    print(f"  final joint speed        max {np.abs(np.asarray(qd_end)).max():.3g} rad/s")
    if not np.isfinite(history[-1]) or history[-1] >= history[0]:
        print("the loss did not fall")
        return 1

    if args.plot:
        plt = _examples.pyplot()
        if plt is None:
            return 0
        t = args.dt * np.arange(1, args.horizon + 1)
        before = np.linalg.norm(first_path - np.asarray(targets[0]), axis=1)
        after = np.linalg.norm(np.asarray(paths[0]) - np.asarray(targets[0]), axis=1)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        ax1.semilogy(np.arange(1, len(history) + 1), history)
        ax1.set_xlabel("Adam step")
        ax1.set_ylabel(f"mean loss over {args.batch} tasks")
        ax1.set_title("loss through differentiable rollouts")
        ax2.plot(t, 1000 * before, label="zero torque (gravity compensated)")
        ax2.plot(t, 1000 * after, label="optimised")
        ax2.set_xlabel("time [s]")
        ax2.set_ylabel("end effector to target [mm]")
        ax2.set_title(f"{robot.name}: task 1")
        ax2.legend()
        _examples.save(fig, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
