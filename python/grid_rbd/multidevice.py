"""A batch over every device, on one host or many: ``python -m grid_rbd.multidevice [options]``.

The same program runs on 1, 2 or 8 devices of one process, or under ``--distributed`` with one process per
GPU on several hosts (docs/sharding.md). The batch is split over a one-axis mesh of all devices; each step
computes every sample's forward dynamics and its gradient with respect to the efforts (``jit(vmap(grad))``,
through the generated derivative kernels) on each device's own samples, and the mean loss, the one value that
crosses devices (an all-reduce). A batch the device count does not divide is padded with extra samples
whose loss weight is zero. Prints the collectives of the compiled step, the time per step and the samples
per second, and checks each process's shards against the same call unsharded on their device.

On a CPU, ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` gives eight host devices to try it.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Sequence
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from .jax import JaxRobotHandle

AXIS = "batch"


def _say(*args: object) -> None:
    """Prints from the first process only (every process runs the same program)."""
    if jax.process_index() == 0:
        print(*args, flush=True)


def _collectives(compiled_text: str) -> list[str]:
    found = re.findall(r"\b(all-gather|all-reduce|all-to-all|collective-permute|reduce-scatter)(?:-start)?\(",
                       compiled_text)
    return sorted(set(found))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="iiwa", help="built robot name or build directory (default iiwa)")
    p.add_argument("--batch", type=int, default=65536, help="samples per step over all devices (default 65536)")
    p.add_argument("--iterations", type=int, default=20, help="timed steps (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--distributed", action="store_true",
                   help="call jax.distributed.initialize() first: one process per GPU, several hosts")
    args = p.parse_args(argv)
    if args.batch < 1 or args.iterations < 1:
        p.error("--batch and --iterations must be at least 1")
    if args.distributed:
        jax.distributed.initialize()  # coordinator, process count and id from the cluster's environment

    robot = JaxRobotHandle(args.robot)
    devices = jax.device_count()
    mesh = jax.make_mesh((devices,), (AXIS,))
    sharding = NamedSharding(mesh, PartitionSpec(AXIS))
    per_device = -(-args.batch // devices)
    padded = per_device * devices
    _say(f"robot {robot.name}: {devices} device(s) ({jax.devices()[0].platform}) in {jax.process_count()} "
         f"process(es); batch {args.batch}, {per_device} per device"
         + (f" ({padded - args.batch} padding samples)" if padded != args.batch else ""))

    # Every device draws its own samples: no host array of the whole batch, on any host.
    @partial(jax.jit, out_shardings=sharding)
    def draw(key: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        kq, kv, ku = jax.random.split(key, 3)
        q = robot.random_configuration(kq, (padded,))
        qd = jax.random.normal(kv, (padded, robot.nv), q.dtype)
        tau = 10.0 * jax.random.normal(ku, (padded, robot.nv), q.dtype)
        return q, qd, tau

    # The loss weight of a sample, 1 / batch (0 for padding), built shard by shard on every process.
    weight = np.where(np.arange(padded) < args.batch, 1.0 / args.batch, 0.0).astype(jnp.result_type(float))
    weights = jax.make_array_from_callback((padded,), sharding, lambda index: weight[index])

    def loss(q: jax.Array, qd: jax.Array, tau: jax.Array) -> jax.Array:
        qdd = robot.forward_dynamics(q, qd, tau)
        return jnp.sum(qdd * qdd)

    per_sample = jax.vmap(jax.value_and_grad(loss, argnums=2))

    @jax.jit
    def step(q: jax.Array, qd: jax.Array, tau: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
        values, grads = per_sample(q, qd, tau)
        return jnp.sum(w * values), grads  # the sum is the only cross-device traffic

    q, qd, tau = draw(jax.random.key(args.seed))
    start = time.perf_counter()
    compiled = step.lower(q, qd, tau, weights).compile()
    _say(f"compiled in {time.perf_counter() - start:.2f} s; collectives in the step: "
         f"{', '.join(_collectives(compiled.as_text())) or 'none'}")

    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        mean, grads = jax.block_until_ready(compiled(q, qd, tau, weights))
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    _say(f"mean loss {float(mean):.6g}; step {median * 1e6:.0f} µs (median of {args.iterations}): "
         f"{args.batch / median:.3g} samples/s, {args.batch / median / devices:.3g} per device")
    _say(f"gradients {grads.shape} sharded {grads.sharding.spec}")

    # Each process checks the shards it holds against the unsharded call on the same device.
    worst = 0.0
    for shard_q, shard_qd, shard_tau, shard_g in zip(q.addressable_shards, qd.addressable_shards,
                                                     tau.addressable_shards, grads.addressable_shards):
        _, want = jax.jit(per_sample)(shard_q.data, shard_qd.data, shard_tau.data)
        got = np.asarray(shard_g.data)
        worst = max(worst, float(np.max(np.abs(got - np.asarray(want))) / max(float(np.max(np.abs(want))), 1e-300)))
    print(f"process {jax.process_index()}: largest relative difference from the unsharded call on its "
          f"{len(grads.addressable_shards)} shard(s): {worst:.2g}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
