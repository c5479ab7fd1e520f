"""Batched forward-dynamics rollouts of a robot with JAX: ``python -m grid_rbd.rollouts [options]``.

Draws a batch of random start states, then integrates every rollout in parallel with one jitted, batched
JaxRobotHandle.rollout per chunk of steps: a damped, unactuated robot falling under gravity (semi-implicit
Euler, fixed bases only). Prints progress and a summary and saves a plot of the first rollout's joint angles.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from . import _examples
from .jax import JaxRobotHandle


def _start_states(robot: JaxRobotHandle, batch: int, seed: int) -> tuple[jax.Array, jax.Array]:
    lower, upper = robot.position_limits
    lower = np.where(np.isfinite(lower), lower, -np.pi)
    upper = np.where(np.isfinite(upper), upper, np.pi)
    rng = np.random.default_rng(seed)
    q = rng.uniform(lower, upper, size=(batch, robot.nq)).astype(np.float32)
    qd = rng.normal(0.0, 0.5, size=(batch, robot.nv)).astype(np.float32)
    return jnp.asarray(q), jnp.asarray(qd)


def _make_chunk(robot: JaxRobotHandle, steps: int, dt: float, damping: float):  # noqa: ANN202
    """A jitted function advancing a batch of states by `steps` steps (JaxRobotHandle.rollout, joint damping
    as the controller) and returning the visited angles."""

    def damped(q: jax.Array, qd: jax.Array, u: jax.Array) -> jax.Array:
        return u - damping * qd

    def advance(q: jax.Array, qd: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        out = robot.rollout(q, qd, jnp.zeros(qd.shape[:-1] + (steps, robot.nv), qd.dtype), dt, controller=damped)
        return out.q[:, -1], out.qd[:, -1], out.q

    return jax.jit(advance)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="iiwa", help="built robot name or build directory (default iiwa)")
    parser.add_argument("--batch", type=int, default=4096, help="rollouts run in parallel (default 4096)")
    parser.add_argument("--steps", type=int, default=1000, help="integration steps (default 1000)")
    parser.add_argument("--chunk", type=int, default=100, help="steps per jitted call (default 100)")
    parser.add_argument("--dt", type=float, default=1e-3, help="time step in seconds (default 1e-3)")
    parser.add_argument("--damping", type=float, default=0.5, help="joint damping in N·m·s/rad (default 0.5)")
    parser.add_argument("--plot", default="grid_rbd_rollouts.png", help="where to save the plot ('' for none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    robot = JaxRobotHandle(args.robot)
    if robot.floating_base:
        parser.error(f"robot {robot.name!r} has a floating base; this demo integrates fixed-base robots only")
    print(f"robot {robot.name} ({robot.model_name}): nq {robot.nq}, nv {robot.nv}, device {jax.devices()[0]}")
    print(f"{args.batch} rollouts x {args.steps} steps of {args.dt} s, damping {args.damping}")

    q, qd = _start_states(robot, args.batch, args.seed)
    chunk = min(args.chunk, args.steps)
    advance = _make_chunk(robot, chunk, args.dt, args.damping)
    start = time.perf_counter()
    compiled = advance.lower(q, qd).compile()
    print(f"compiled in {time.perf_counter() - start:.2f} s")

    paths = []
    done = 0
    start = time.perf_counter()
    while done < args.steps:
        q, qd, path = compiled(q, qd)
        paths.append(np.asarray(path[0]))
        done += chunk
        elapsed = time.perf_counter() - start
        rate = args.batch * done / elapsed
        print(f"  step {done:6d}/{args.steps}  {elapsed:7.2f} s  {rate:12.4g} steps·rollouts/s", flush=True)
    elapsed = time.perf_counter() - start

    q_end = np.asarray(q)
    finite = np.isfinite(q_end).all(axis=1)
    speed = np.linalg.norm(np.asarray(qd), axis=1)
    print("summary")
    print(f"  forward-dynamics calls   {args.batch * done:,d} in {elapsed:.2f} s "
          f"({args.batch * done / elapsed:.4g} per second)")
    print(f"  finite final states      {int(finite.sum())}/{args.batch}")
    print(f"  final joint speed        median {np.median(speed):.3g} rad/s, max {speed.max():.3g} rad/s")

    if args.plot:
        plt = _examples.pyplot()
        if plt is None:
            return 0
        path = np.concatenate(paths, axis=0)
        t = args.dt * np.arange(1, path.shape[0] + 1)
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for j in range(robot.nq):
            ax.plot(t, path[:, j], label=robot.joint_names[j] if j < len(robot.joint_names) else f"q{j}")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("joint angle [rad]")
        ax.set_title(f"{robot.name}: first of {args.batch} damped rollouts under gravity")
        ax.legend(fontsize=7, ncol=2)
        _examples.save(fig, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
