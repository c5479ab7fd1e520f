"""Pinocchio references of the pytest suite: the robot set, the random inputs and the expected outputs.

A reference holds, for one robot, NUM_SAMPLES random states (inputs in our conventions) and what
Pinocchio gives for every method at those states, mapped to our conventions by
``tests/pinocchio/conventions.py``. It is computed with Pinocchio (``compute``) or, when the
environment variable GRID_RBD_REFERENCE_DIR names a folder, loaded from the ``<robot>.npz`` files that
``tests/python/make_reference.py`` wrote there (``load``); in that mode Pinocchio is never imported, so
the suite runs on machines without it (the GPU machine).

Inputs per robot, from ``numpy.random.default_rng(seed)``, sample by sample: q (``conventions.sample_q``:
within the position limits, random unit quaternion for a free-flyer), qd ~ N(0, 1) for the first
LARGE_VELOCITY_FROM samples and N(0, 10²) for the rest (large velocities), qdd ~ N(0, 3²), tau ~ N(0, 10²).

Outputs per sample: the six dynamics methods (``conventions.dynamics``), the pose and world-aligned
Jacobian of every link frame (``conventions.kinematics``, frames in URDF link order), the first-order
derivatives of RNEA and ABA (``conventions.dynamics_derivatives``), the gravity-dependent
methods again under CUSTOM_GRAVITY, and Pinocchio's joint limits in our layout. Inertial parameters
(``conventions.inertial_parameters``): the bodies' dynamic parameters, a perturbed set (``perturb``), and per
sample the joint-torque regressor and inverse dynamics, mass matrix and forward dynamics of the model with the
perturbed parameters.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
if str(REPO_ROOT / "tests" / "pinocchio") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "tests" / "pinocchio"))

import conventions  # noqa: E402  (imports no Pinocchio by itself)
from bench import roster  # noqa: E402  (on sys.path through conventions)

REFERENCE_ENV = "GRID_RBD_REFERENCE_DIR"
FORMAT_VERSION = 4  # bump when the stored fields change

NUM_SAMPLES = 6
LARGE_VELOCITY_FROM = 3  # samples from this index on have qd ~ N(0, 10²)

INPUTS = ("q", "qd", "qdd", "tau")
# Pinocchio outputs, keyed by the method of the handle that must reproduce them.
DYNAMICS = ("inverse_dynamics", "bias_forces", "gravity_forces", "mass_matrix", "minv", "forward_dynamics")
KINEMATICS = ("pos", "rot", "quat", "jacobian")
# Pinocchio's first-order derivatives (computeRNEADerivatives at (q, qd, qdd), computeABADerivatives at
# (q, qd, tau)), in tangent coordinates
DERIVATIVES = ("rnea_dq", "rnea_dqd", "aba_dq", "aba_dqd")
# second derivatives: central differences of Pinocchio's first derivatives (conventions.second_derivatives)
# at the first SECOND_ORDER_SAMPLES samples of robots with nv <= SECOND_ORDER_MAX_NV (NV³ entries each)
SECOND_ORDER = ("rnea_dq2", "rnea_dqdqd", "rnea_dqd2", "rnea_dM_dq",
                "aba_dq2", "aba_dqdqd", "aba_dqd2", "aba_dMinv_dq")
SECOND_ORDER_SAMPLES = 2
SECOND_ORDER_MAX_NV = 30
# the gravity-dependent methods again under another gravity (x and y components non-zero)
CUSTOM_GRAVITY = (1.5, -2.5, -7.0)
CUSTOM = ("inverse_dynamics", "bias_forces", "gravity_forces", "forward_dynamics")
CUSTOM_KEYS = tuple(f"custom_gravity_{k}" for k in CUSTOM)
# Pinocchio's joint-torque regressor, and the dynamics with the perturbed inertial parameters
PERTURBED = ("inverse_dynamics", "mass_matrix", "forward_dynamics")
INERTIAL = ("joint_torque_regressor",) + tuple(f"perturbed_{k}" for k in PERTURBED)


LONG_ENV = "GRID_LONG_TESTS"


def _robot(r: roster.Robot) -> conventions.Robot:
    return conventions.Robot(r.name, r.urdf, r.floating, r.seed)


def robot_set() -> list[conventions.Robot]:
    """The roster's pytest robots (which tests/suite_test.go builds): those marked long only when
    GRID_LONG_TESTS=1, as tests/suite_test.go builds them; the large ones are test_large_trees.py's
    (large_robot_set)."""
    long_too = os.environ.get(LONG_ENV, "") == "1"
    return [_robot(r) for r in roster.suite("pytest") if (long_too or not r.long) and not r.large]


def large_robot_set() -> list[conventions.Robot]:
    """The roster's large pytest robots: random trees and a chain of 100-200 links, built rolled."""
    return [_robot(r) for r in roster.suite("pytest") if r.large]


def robot_names() -> list[str]:
    return [r.name for r in robot_set()]


def reference_dir() -> Path | None:
    """The folder of stored references when GRID_RBD_REFERENCE_DIR is set, else None."""
    value = os.environ.get(REFERENCE_ENV, "").strip()
    return Path(value).expanduser().absolute() if value else None


@dataclass
class Reference:
    robot: conventions.Robot
    source: str  # "pinocchio <version>" or the .npz file it came from
    nq: int
    nv: int
    joint_names: list[str]
    frame_names: list[str]
    inputs: dict[str, np.ndarray]  # [S, nq] / [S, nv]
    outputs: dict[str, np.ndarray]  # [S, ...] per DYNAMICS and KINEMATICS key
    limits: dict[str, np.ndarray] = field(default_factory=dict)
    second_order: dict[str, np.ndarray] = field(default_factory=dict)  # [SECOND_ORDER_SAMPLES, NV, NV, NV]
    # "parameters" and "perturbed_parameters", [NB, 10] each (conventions.inertial_parameters' layout)
    inertial: dict[str, np.ndarray] = field(default_factory=dict)

    def cond_mass_matrix(self) -> np.ndarray:
        """cond(M) per sample (2-norm)."""
        return np.linalg.cond(self.outputs["mass_matrix"])


# ---------------------------------------------------------------------------
# Computing (Pinocchio)


def perturb(params: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Physical inertial parameters near params (NB, 10): each body with mass gets its mass scaled by up to
    ±30 %, its centre of mass moved by up to 5 cm and its rotational inertia about the centre of mass scaled
    axis by axis by up to ±30 %, so that every parameter changes; massless bodies stay as they are."""
    pin = conventions.pinocchio()
    out = np.array(params, dtype=float)
    for b, p in enumerate(params):
        if p[0] <= 0:
            continue
        inertia = pin.Inertia.FromDynamicParameters(p)
        scale = np.diag(1.0 + 0.3 * rng.uniform(-1.0, 1.0, 3))
        out[b] = pin.Inertia(p[0] * (1.0 + 0.3 * rng.uniform(-1.0, 1.0)),
                             inertia.lever + 0.05 * rng.uniform(-1.0, 1.0, 3),
                             scale @ inertia.inertia @ scale).toDynamicParameters()
    return out


def compute(robot: conventions.Robot) -> Reference:
    """The reference of a robot, computed with Pinocchio now."""
    pin = conventions.pinocchio()
    model = conventions.build_model(robot)
    data = model.createData()
    joint_names = conventions.check_joint_order(robot, model)
    frames = conventions.body_frames(model, conventions.urdf_link_names(robot.path()))
    nq, nv = conventions.our_nq(model), model.nv

    rng = np.random.default_rng(robot.seed)
    inputs: dict[str, list[np.ndarray]] = {k: [] for k in INPUTS}
    outputs: dict[str, list[np.ndarray]] = {
        k: [] for k in DYNAMICS + KINEMATICS + DERIVATIVES + CUSTOM_KEYS + INERTIAL}
    parameters = conventions.inertial_parameters(model)
    perturbed_parameters = perturb(parameters, np.random.default_rng(robot.seed + 1))
    perturbed = conventions.with_inertial_parameters(model, perturbed_parameters)
    perturbed_data = perturbed.createData()
    for s in range(NUM_SAMPLES):
        q = conventions.sample_q(model, rng)
        qd = rng.normal(0.0, 10.0 if s >= LARGE_VELOCITY_FROM else 1.0, nv)
        qdd = rng.normal(0.0, 3.0, nv)
        tau = rng.normal(0.0, 10.0, nv)
        for k, v in zip(INPUTS, (q, qd, qdd, tau)):
            inputs[k].append(v)
        for k, v in conventions.dynamics(model, data, q, qd, qdd, tau).items():
            outputs[k].append(v)
        for k, v in conventions.kinematics(model, data, frames, q).items():
            outputs[k].append(v)
        for k, v in conventions.dynamics_derivatives(model, data, q, qd, qdd, tau).items():
            outputs[k].append(v)
        model.gravity.linear = np.array(CUSTOM_GRAVITY)
        custom = conventions.dynamics(model, data, q, qd, qdd, tau)
        model.gravity.linear = np.array(conventions.GRAVITY)
        for k in CUSTOM:
            outputs[f"custom_gravity_{k}"].append(custom[k])
        outputs["joint_torque_regressor"].append(conventions.joint_torque_regressor(model, data, q, qd, qdd))
        changed = conventions.dynamics(perturbed, perturbed_data, q, qd, qdd, tau)
        for k in PERTURBED:
            outputs[f"perturbed_{k}"].append(changed[k])

    second: dict[str, list[np.ndarray]] = {k: [] for k in SECOND_ORDER}
    if nv <= SECOND_ORDER_MAX_NV:
        for s in range(SECOND_ORDER_SAMPLES):
            x = {k: inputs[k][s] for k in INPUTS}
            for k, v in conventions.second_derivatives(model, data, x["q"], x["qd"], x["qdd"], x["tau"]).items():
                second[k].append(v)

    # position limits of single-coordinate joints (revolute, prismatic) in our q layout; velocity and
    # effort limits of every one-degree-of-freedom joint; NaN elsewhere
    lower, upper = np.full(nq, np.nan), np.full(nq, np.nan)
    velocity, effort = np.full(nv, np.nan), np.full(nv, np.nan)
    off = 0
    for j in model.joints[1:]:
        kind = conventions.joint_kind(j)
        if kind == "single":
            lower[off] = model.lowerPositionLimit[j.idx_q]
            upper[off] = model.upperPositionLimit[j.idx_q]
        if kind != "free_flyer":
            velocity[j.idx_v] = model.velocityLimit[j.idx_v]
            effort[j.idx_v] = model.effortLimit[j.idx_v]
        off += 7 if kind == "free_flyer" else 1

    return Reference(
        robot=robot,
        source=f"pinocchio {pin.__version__}",
        nq=nq,
        nv=nv,
        joint_names=joint_names,
        frame_names=[n for n, _ in frames],
        inputs={k: np.array(v) for k, v in inputs.items()},
        outputs={k: np.array(v) for k, v in outputs.items()},
        limits={"lower": lower, "upper": upper, "velocity": velocity, "effort": effort},
        second_order={k: np.array(v) for k, v in second.items() if v},
        inertial={"parameters": parameters, "perturbed_parameters": perturbed_parameters},
    )


# ---------------------------------------------------------------------------
# Storing and loading (.npz, no pickles)


def save(ref: Reference, path: Path) -> None:
    arrays = {
        "format_version": np.array(FORMAT_VERSION),
        "robot": np.array(ref.robot.name),
        "urdf": np.array(ref.robot.urdf),
        "floating": np.array(ref.robot.free_flyer),
        "seed": np.array(ref.robot.seed),
        "num_samples": np.array(NUM_SAMPLES),
        "source": np.array(ref.source),
        "nq": np.array(ref.nq),
        "nv": np.array(ref.nv),
        "joint_names": np.array(ref.joint_names, dtype=str),
        "frame_names": np.array(ref.frame_names, dtype=str),
    }
    arrays.update({f"in_{k}": v for k, v in ref.inputs.items()})
    arrays.update({f"out_{k}": v for k, v in ref.outputs.items()})
    arrays.update({f"limit_{k}": v for k, v in ref.limits.items()})
    arrays.update({f"second_{k}": v for k, v in ref.second_order.items()})
    arrays.update({f"inertial_{k}": v for k, v in ref.inertial.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def load(robot: conventions.Robot, folder: Path) -> Reference:
    """A stored reference; fails when it is missing or was made for another robot entry or format."""
    path = folder / f"{robot.name}.npz"
    if not path.is_file():
        raise FileNotFoundError(
            f"{REFERENCE_ENV}={folder}: no reference for {robot.name} ({path} is missing); "
            f"write them with `python tests/python/make_reference.py {folder}` on a machine with Pinocchio")
    with np.load(path, allow_pickle=False) as z:
        got = {k: z[k] for k in z.files}
    stored = (int(got["format_version"]), str(got["robot"]), str(got["urdf"]), bool(got["floating"]),
              int(got["seed"]), int(got["num_samples"]))
    want = (FORMAT_VERSION, robot.name, robot.urdf, robot.free_flyer, robot.seed, NUM_SAMPLES)
    if stored != want:
        raise ValueError(
            f"{path} is stale: made for (format, robot, urdf, floating, seed, samples) = {stored}, "
            f"the roster and this suite want {want}; rewrite it with tests/python/make_reference.py")
    return Reference(
        robot=robot,
        source=f"{path} ({got['source']})",
        nq=int(got["nq"]),
        nv=int(got["nv"]),
        joint_names=[str(n) for n in got["joint_names"]],
        frame_names=[str(n) for n in got["frame_names"]],
        inputs={k: got[f"in_{k}"] for k in INPUTS},
        outputs={k: got[f"out_{k}"] for k in DYNAMICS + KINEMATICS + DERIVATIVES + CUSTOM_KEYS + INERTIAL},
        limits={k[len("limit_"):]: v for k, v in got.items() if k.startswith("limit_")},
        second_order={k[len("second_"):]: v for k, v in got.items() if k.startswith("second_")},
        inertial={k[len("inertial_"):]: v for k, v in got.items() if k.startswith("inertial_")},
    )


def get(robot: conventions.Robot) -> Reference:
    """The reference of a robot: loaded from GRID_RBD_REFERENCE_DIR when set, else computed."""
    folder = reference_dir()
    return load(robot, folder) if folder is not None else compute(robot)
