"""Trajectory optimisation through differentiable dynamics: ``python -m grid_rbd.demo [options]``.

A batch of reaching tasks for a fixed-base robot: from rest at a start configuration, move the end effector
to a target point within the horizon and stop there. The torque trajectory of every task is optimised by
gradient descent (Adam) on ``jax.grad`` of a loss through the whole rollout (``JaxRobotHandle.rollout``:
semi-implicit Euler steps of ``forward_dynamics``, gravity compensation by ``gravity_forces`` as the
controller, the end-effector positions by ``frames=``),
all tasks at once under ``jax.vmap``; the gradients come from the generated derivative kernels. Prints the
loss as it falls and saves a plot of the loss and of the first task's distance to its target.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from . import _adam
from .jax import JaxRobotHandle

# loss weights: final position error (per m²), final velocity (per (rad/s)²), effort (per (N·m)² per step)
POSITION_WEIGHT = 100.0
VELOCITY_WEIGHT = 0.1
EFFORT_WEIGHT = 1e-4


def _tasks(robot: JaxRobotHandle, batch: int, seed: int) -> tuple[jax.Array, jax.Array]:
    """Start configurations and reachable targets: the end effector at a nearby random configuration."""
    lower, upper = robot.position_limits
    lower = np.where(np.isfinite(lower), lower, -np.pi)
    upper = np.where(np.isfinite(upper), upper, np.pi)
    rng = np.random.default_rng(seed)
    mid = 0.5 * (lower + upper)
    q0 = np.clip(mid + rng.normal(0.0, 0.3, (batch, robot.nq)), lower, upper)
    q_goal = np.clip(q0 + rng.normal(0.0, 0.5, (batch, robot.nq)), lower, upper)
    frame = robot.n_frames - 1
    targets = np.asarray(robot.frame_poses(jnp.asarray(q_goal))[0][:, frame, :])
    return jnp.asarray(q0), jnp.asarray(targets)


def _rollout(robot: JaxRobotHandle, dt: float):  # noqa: ANN202
    """(q0, torques [T, NV]) -> (end-effector path [T, 3], final qd): semi-implicit Euler
    (JaxRobotHandle.rollout) with gravity compensation added to the optimised torques."""
    frame = robot.n_frames - 1

    def compensated(q: jax.Array, qd: jax.Array, u: jax.Array) -> jax.Array:
        return robot.gravity_forces(q) + u

    def rollout(q0: jax.Array, torques: jax.Array) -> tuple[jax.Array, jax.Array]:
        out = robot.rollout(q0, jnp.zeros_like(q0), torques, dt, frames=[frame], controller=compensated)
        return out.frame_positions[..., 0, :], out.qd[..., -1, :]

    return rollout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="iiwa", help="built robot name or build directory (default iiwa)")
    parser.add_argument("--batch", type=int, default=32, help="reaching tasks optimised at once (default 32)")
    parser.add_argument("--horizon", type=int, default=100, help="time steps per trajectory (default 100)")
    parser.add_argument("--dt", type=float, default=0.01, help="time step in seconds (default 0.01)")
    parser.add_argument("--iterations", type=int, default=200, help="gradient steps (default 200)")
    parser.add_argument("--lr", type=float, default=0.05, help="Adam step size in N·m, halving every 100 steps (default 0.05)")
    parser.add_argument("--plot", default="grid_rbd_demo.png", help="where to save the plot ('' for none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in ("batch", "horizon", "iterations"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")

    robot = JaxRobotHandle(args.robot)
    if robot.floating_base:
        parser.error(f"robot {robot.name!r} has a floating base; this demo optimises fixed-base arms")
    print(f"robot {robot.name} ({robot.model_name}): nq {robot.nq}, nv {robot.nv}, device {jax.devices()[0]}")
    print(f"{args.batch} reaching tasks, {args.horizon} steps of {args.dt} s, {args.iterations} Adam steps")

    q0, targets = _tasks(robot, args.batch, args.seed)
    rollout = _rollout(robot, args.dt)

    def loss(torques: jax.Array, q0: jax.Array, target: jax.Array) -> jax.Array:
        path, qd = rollout(q0, torques)
        miss = path[-1] - target
        return (POSITION_WEIGHT * jnp.sum(miss * miss) + VELOCITY_WEIGHT * jnp.sum(qd * qd)
                + EFFORT_WEIGHT * jnp.sum(torques * torques))

    value_and_grad = jax.vmap(jax.value_and_grad(loss))

    @jax.jit
    def adam_step(torques, m, v, k, q0, targets):  # noqa: ANN001, ANN202
        values, grads = value_and_grad(torques, q0, targets)
        step_size = args.lr * 0.5 ** (k / 100)  # halves every 100 steps
        torques, (m, v) = _adam.update(torques, grads, (m, v), k, step_size)
        return torques, m, v, values

    torques = jnp.zeros((args.batch, args.horizon, robot.nv), q0.dtype)
    m, v = _adam.init(torques)
    first_path = np.asarray(jax.jit(rollout)(q0[0], torques[0])[0])

    start = time.perf_counter()
    compiled = adam_step.lower(torques, m, v, 1.0, q0, targets).compile()
    print(f"compiled in {time.perf_counter() - start:.2f} s")
    history = []
    start = time.perf_counter()
    for k in range(1, args.iterations + 1):
        torques, m, v, values = compiled(torques, m, v, float(k), q0, targets)
        history.append(float(jnp.mean(values)))
        if k == 1 or k % max(1, args.iterations // 10) == 0 or k == args.iterations:
            print(f"  step {k:4d}/{args.iterations}  mean loss {history[-1]:10.4g}  {time.perf_counter() - start:7.2f} s",
                  flush=True)
    elapsed = time.perf_counter() - start

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
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot (pip install matplotlib)")
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
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot saved to {Path(args.plot).resolve()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
