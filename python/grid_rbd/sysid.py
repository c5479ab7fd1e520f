"""System identification on the joint-torque regressor: ``python -m grid_rbd.sysid [options]``.

The robot's link masses are unknown: each body's inertial parameters are its URDF parameters scaled by an
unknown factor (a link of denser or lighter material: mass, first moment and rotational inertia scale
together, the centre of mass and the shape stay). Torques are simulated at random states with the true
parameters (``inverse_dynamics(..., params=...)``) and the masses recovered by linear least squares on the
regressor: with ``tau = Y(q, qd, qdd) @ pi`` and ``pi_i = m_i · u_i`` (``u_i`` body ``i``'s URDF parameters
per kilogram) the torques are linear in the masses, ``tau = Σ_i (Y_i @ u_i) m_i``. Float64 throughout:
noiseless torques give the masses to rounding; ``--noise`` adds Gaussian measurement noise. ``jax.grad``
of the torque residual with respect to the masses, through ``params``, shows the fit's optimality. Prints
the true, URDF and recovered masses and the worst relative error; exits 1 when it exceeds ``--tolerance``.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np

from .jax import JaxRobotHandle


def parameters(unit: np.ndarray, masses: jax.Array) -> jax.Array:
    """Inertial parameters ``(n_bodies, 10)`` of bodies with the given masses and per-kilogram parameters."""
    return masses[:, None] * unit


def identify(robot: JaxRobotHandle, args: argparse.Namespace) -> int:
    """Simulates the torques, recovers the masses and reports; 0 when within ``args.tolerance``."""
    nominal = robot.inertial_parameters()
    urdf_mass = nominal[:, 0]
    if np.any(urdf_mass <= 0):
        massless = [robot.joint_names[i] for i in np.flatnonzero(urdf_mass <= 0)]
        print(f"bodies without mass (joints {massless}) have no per-kilogram parameters to scale")
        return 1
    unit = nominal / urdf_mass[:, None]
    rng = np.random.default_rng(args.seed)
    true_mass = urdf_mass * (1.0 + args.perturbation * rng.uniform(-1.0, 1.0, robot.n_bodies))

    q = robot.random_configuration(jax.random.PRNGKey(args.seed), (args.samples,), jnp.float64)
    qd = jnp.asarray(rng.normal(0.0, 1.0, (args.samples, robot.nv)))
    qdd = jnp.asarray(rng.normal(0.0, 3.0, (args.samples, robot.nv)))
    tau = robot.inverse_dynamics(q, qd, qdd, params=parameters(unit, jnp.asarray(true_mass)))
    tau = tau + args.noise * jnp.asarray(rng.normal(0.0, 1.0, tau.shape))

    # the torques' columns per kilogram of each body: Y's ten columns of the body times its parameters per kg
    y = robot.joint_torque_regressor(q, qd, qdd).reshape(args.samples, robot.nv, robot.n_bodies, 10)
    design = np.asarray(jnp.einsum("snbk,bk->snb", y, unit)).reshape(-1, robot.n_bodies)
    mass, *_ = np.linalg.lstsq(design, np.asarray(tau).reshape(-1), rcond=None)

    def residual(masses: jax.Array) -> jax.Array:
        err = robot.inverse_dynamics(q, qd, qdd, params=parameters(unit, masses)) - tau
        return 0.5 * jnp.mean(jnp.sum(err * err, axis=-1))

    grad = jax.jit(jax.grad(residual))
    error = np.abs(mass - true_mass) / true_mass
    print(f"robot {robot.name}: {robot.n_bodies} bodies, {args.samples} states, torque noise {args.noise} N·m; "
          f"cond(design) {np.linalg.cond(design):.3g}")
    print(f"  {'body of joint':<24} {'URDF kg':>10} {'true kg':>12} {'recovered kg':>16} {'rel. error':>11}")
    for i, name in enumerate(robot.joint_names):
        print(f"  {name:<24} {urdf_mass[i]:>10.5g} {true_mass[i]:>12.8g} {mass[i]:>16.12g} {error[i]:>11.2e}")
    print(f"  |grad residual| at the URDF masses {float(jnp.linalg.norm(grad(jnp.asarray(urdf_mass)))):.3g}, "
          f"at the recovered ones {float(jnp.linalg.norm(grad(jnp.asarray(mass)))):.3g}")
    print(f"worst relative mass error {error.max():.3g} (tolerance {args.tolerance:g})")
    return 0 if error.max() <= args.tolerance else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="iiwa", help="built robot name or build directory (default iiwa)")
    p.add_argument("--samples", type=int, default=64, help="states with measured torques (default 64)")
    p.add_argument("--perturbation", type=float, default=0.2,
                   help="largest relative change of a link's mass from the URDF's (default 0.2)")
    p.add_argument("--noise", type=float, default=0.0, help="standard deviation of the torque noise, N·m (default 0)")
    p.add_argument("--tolerance", type=float, default=1e-6, help="largest relative mass error (default 1e-6)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.samples < 1:
        p.error("--samples must be at least 1")
    if not 0 <= args.perturbation < 1:
        p.error("--perturbation must be in [0, 1) (a relative change that keeps masses positive); "
                f"got {args.perturbation}")
    if args.noise < 0:
        p.error(f"--noise must be non-negative; got {args.noise}")
    with jax.enable_x64(True):
        return identify(JaxRobotHandle(args.robot), args)


if __name__ == "__main__":
    raise SystemExit(main())
