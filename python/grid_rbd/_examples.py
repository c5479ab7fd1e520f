"""What the example programs share (grid_rbd.demo, grid_rbd.policy, grid_rbd.rollouts): their command line,
the arm and its reaching tasks, the Adam update, the optimisation loop with its progress lines and the
plotting back end. No optimiser dependency; matplotlib only for the plots."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .jax import JaxRobotHandle

B1, B2, EPS = 0.9, 0.999, 1e-8


def parser(doc: str, batch: int, iterations: int, lr_help: str) -> argparse.ArgumentParser:
    """The options every example takes: robot, batch, horizon, dt, iterations, lr, seed."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--robot", default="iiwa", help="built robot name or build directory (default iiwa)")
    p.add_argument("--batch", type=int, default=batch, help=f"reaching tasks per gradient step (default {batch})")
    p.add_argument("--horizon", type=int, default=100, help="time steps per rollout (default 100)")
    p.add_argument("--dt", type=float, default=0.01, help="time step in seconds (default 0.01)")
    p.add_argument("--iterations", type=int, default=iterations, help=f"gradient steps (default {iterations})")
    p.add_argument("--lr", type=float, default=0.05, help=lr_help)
    p.add_argument("--seed", type=int, default=0)
    return p


def load_arm(p: argparse.ArgumentParser, args: argparse.Namespace) -> JaxRobotHandle:
    """The fixed-base robot the arguments name, after checking the counts; prints what runs where."""
    for name in ("batch", "horizon", "iterations"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    robot = JaxRobotHandle(args.robot)
    if robot.floating_base:
        p.error(f"robot {robot.name!r} has a floating base; the examples drive fixed-base arms")
    print(f"robot {robot.name} ({robot.model_name}): nq {robot.nq}, nv {robot.nv}, device {jax.devices()[0]}")
    return robot


def reaching_configurations(robot: JaxRobotHandle, batch: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and goal configurations within the joint limits, the goals 0.5 rad per joint from the starts."""
    lower, upper = robot.position_limits
    lower = np.where(np.isfinite(lower), lower, -np.pi)
    upper = np.where(np.isfinite(upper), upper, np.pi)
    rng = np.random.default_rng(seed)
    q0 = np.clip(0.5 * (lower + upper) + rng.normal(0.0, 0.3, (batch, robot.nq)), lower, upper)
    goal = np.clip(q0 + rng.normal(0.0, 0.5, (batch, robot.nq)), lower, upper)
    return q0, goal


def zero_moments(params: Any) -> tuple[Any, Any]:
    """Adam's first and second moments before the first step, shaped like ``params`` (a pytree of arrays)."""
    return jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params)


def adam(params: Any, grads: Any, moments: tuple[Any, Any], k: Any, step_size: Any) -> tuple[Any, tuple[Any, Any]]:
    """Step ``k`` (from 1) of Adam on a pytree of arrays: the new parameters and moments."""
    m = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, moments[0], grads)
    v = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, moments[1], grads)

    def move(p: jax.Array, m: jax.Array, v: jax.Array) -> jax.Array:
        return p - step_size * (m / (1 - B1**k)) / (jnp.sqrt(v / (1 - B2**k)) + EPS)

    return jax.tree.map(move, params, m, v), (m, v)


def optimise(step: Callable[..., tuple[Any, jax.Array]], state: Any, iterations: int, *args: Any) -> tuple[Any, list[float], float]:
    """Runs ``state, loss = step(state, k, *args)`` for k = 1..iterations, compiled once (its time printed),
    printing the mean loss ten times; returns the final state, every step's mean loss and the seconds taken."""
    start = time.perf_counter()
    compiled = jax.jit(step).lower(state, 1.0, *args).compile()
    print(f"compiled in {time.perf_counter() - start:.2f} s")
    history: list[float] = []
    start = time.perf_counter()
    for k in range(1, iterations + 1):
        state, loss = compiled(state, float(k), *args)
        history.append(float(jnp.mean(loss)))
        if k == 1 or k % max(1, iterations // 10) == 0 or k == iterations:
            print(f"  step {k:4d}/{iterations}  mean loss {history[-1]:10.4g}  {time.perf_counter() - start:7.2f} s",
                  flush=True)
    return state, history, time.perf_counter() - start


def pyplot() -> Any:
    """matplotlib's pyplot on a file-only back end, or None (saying so) where matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return None
    return plt


def save(fig: Any, path: str) -> None:
    """Writes a figure to ``path`` and says where."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot saved to {Path(path).resolve()}")
