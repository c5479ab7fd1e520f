"""Mapping between grid-rbd's conventions and Pinocchio's: the one place where it lives.

``make_ref_vectors.py`` (reference vectors for the Go reference dynamics) and the pytest suite in
``tests/python`` (equivalence of the compiled kernels) both use this module. Importing it does not
import Pinocchio; the functions that need Pinocchio import it when called, so the pytest suite can run
from stored references on a machine without Pinocchio.

Joint order
    Ours: depth-first pre-order traversal from the URDF root link over ALL joints
    (fixed ones included); the child joints of a link are visited sorted by joint
    name; the movable joints (revolute, continuous, prismatic, floating) are kept
    in the order they are visited. Fixed joints only decide where their subtree is
    visited (a fixed joint named ``a_mount`` is visited, with everything below
    it, before a sibling ``b_leg_hip``).
    Pinocchio's URDF parser visits the tree the same way, so ``model.names[1:]``
    (index 0 is Pinocchio's "universe") must equal our order. ``urdf_joint_order``
    computes our order independently from the URDF XML (``xml.etree`` plus an
    explicit DFS) and ``check_joint_order`` stops with an error when the two
    differ; ``check_names`` compares a list of names (e.g. a build's
    ``metadata.json`` joint_names) with the checked order. When a free-flyer is
    added to a fixed-base URDF it is named ``root_joint`` and comes first (in
    Pinocchio and in our metadata alike).

Free-flyer (URDF ``floating`` joint, or the free-flyer added to the root link)
    q = [x y z qx qy qz qw]: the translation followed by a unit quaternion with the
    scalar last, both giving the pose of the child link relative to the joint's
    parent frame (for a URDF floating joint that frame is the parent link frame
    moved by the joint's <origin>). Velocity, acceleration and effort are
    [v_lin; omega] (resp. [f; n]) expressed in the child (base) frame. All of
    this is identical to Pinocchio's JointModelFreeFlyer, so the 7 position and 6
    velocity values are copied unchanged.

Continuous joints
    Our q holds ONE angle per continuous joint (nq == nv for it). Pinocchio's
    unbounded revolute joints hold (cos θ, sin θ) (nq = 2, nv = 1). Hence our nq
    is ``model.nv + (number of free-flyers)`` and differs from ``model.nq``.
    Our q is converted to Pinocchio's joint by joint (``to_pin_q``): walking the
    joints in order with a running offset into our q, joint ``j`` writes
    ``qpin[j.idx_q : j.idx_q + j.nq]``:
      * free-flyer (nq 7, nv 6): copy our 7 values;
      * continuous (nq 2, nv 1): write (cos θ, sin θ) from our single angle θ;
      * revolute or prismatic (nq 1, nv 1): copy our single value.
    Velocities, accelerations and efforts have the same layout in both
    (``j.idx_v`` equals our running velocity offset) and are passed unchanged.

Mimic joints
    Treated as independent joints (Pinocchio's default, ``mimic=False``).

Gravity
    [0, 0, -9.81] in world coordinates (Pinocchio's default).

Axes
    Joint axes are normalised (Pinocchio does so when parsing the URDF; e.g.
    branchy's prismatic axis (1 1 0) moves along (1 1 0)/sqrt(2) per unit of q).

Fixed joints and the root link
    Fixed joints are not joints of the model: the inertia of a link on a fixed
    joint is merged into the body of its nearest movable ancestor (Pinocchio
    does the same), and the link keeps a frame. A massless URDF root link such as
    branchy's ``world`` is the fixed world: Pinocchio attaches its BODY frame to
    "universe", so its pose is always the identity, and the joint leaving it
    (branchy's ``floating`` joint ``float_base``) is the first joint of the
    model, with its <origin> as the joint placement.

Frames
    Every URDF link is a frame; Pinocchio's BODY frame of the same name is its
    counterpart (``body_frames``). After ``pin.framesForwardKinematics``,
    ``data.oMf[id]`` gives the position and the rotation matrix whose columns are
    the link's axes in world coordinates: our ``pos`` and ``rot`` (rows of that
    matrix, row-major). Our quaternion is that rotation as [qx qy qz qw]; q and -q
    are the same rotation, so ``frame_pose`` returns the one with qw >= 0 and
    ``align_quaternion_sign`` flips a computed quaternion onto a reference's sign.

Frame Jacobians
    Ours is Pinocchio's ``getFrameJacobian(..., LOCAL_WORLD_ALIGNED)``: world-
    aligned, rows [v; ω] (the velocity of the frame's origin, then its angular
    velocity, in world coordinates), columns velocity coordinates. No conversion.

Dynamics
    ``pin.rnea`` (inverse dynamics, gravity included), ``pin.nonLinearEffects``
    (bias forces C(q, qd)·qd + g(q)), ``pin.computeGeneralizedGravity`` (g(q)),
    ``pin.crba`` (mass matrix; Pinocchio fills only the upper triangle, so it is
    symmetrised from that triangle), ``pin.computeMinverse`` (same remark) and
    ``pin.aba`` (forward dynamics, gravity included) take and return velocity-
    space vectors in our layout; only q needs converting.

Derivatives of the dynamics
    ``pin.computeRNEADerivatives(q, qd, qdd)`` (``data.dtau_dq``, ``data.dtau_dv``,
    gravity included) and ``pin.computeABADerivatives(q, qd, tau)``
    (``data.ddq_dq``, ``data.ddq_dv``) are nv x nv matrices whose rows are
    velocity-space outputs and whose columns are tangent directions: a column
    of ``*_dq`` is the derivative along the displacement ``q ⊕ ε e_i``
    (``pin.integrate``), not along the i-th entry of Pinocchio's q. For a
    free-flyer that displacement is the body twist [v_lin; ω] in the base
    frame (to first order the translation moves by R·v_lin and the rotation by
    R·exp([ω]) either way), for a continuous joint it is the angle (one nv
    coordinate, not cos and sin), for revolute and prismatic joints the
    coordinate itself. These are also our derivatives' directions, so the
    matrices are used as Pinocchio returns them: no mapping of rows or columns
    (``derivatives_to_ours`` is the identity, kept as the place for one).
"""

from __future__ import annotations

import math
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import roster  # noqa: E402  (the robot roster and its URDF finder)

GRAVITY = (0.0, 0.0, -9.81)
FREE_FLYER_NAME = "root_joint"

MOVABLE_TYPES = {"revolute", "continuous", "prismatic", "floating"}
KNOWN_TYPES = MOVABLE_TYPES | {"fixed"}


def pinocchio():
    """The Pinocchio module, imported on first use."""
    import pinocchio as pin

    return pin


# ---------------------------------------------------------------------------
# Robot descriptions


def resolve_urdf(ref: str) -> Path:
    """The path of a URDF reference: "shared:<file>", "repo:<path>" or "erd:<path>", found where the robot
    roster's references are (bench/roster.py)."""
    return roster.resolve(ref)


@dataclass(frozen=True)
class Robot:
    name: str
    urdf: str  # "shared:<file>", "repo:<path>" or "erd:<path>" (see resolve_urdf)
    free_flyer: bool  # add Pinocchio's free-flyer above the URDF root link
    seed: int

    def path(self) -> Path:
        try:
            return resolve_urdf(self.urdf)
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None


# ---------------------------------------------------------------------------
# URDF parsing (independent of Pinocchio)


def urdf_joint_order(urdf_path: Path) -> list[str]:
    """Movable joints in our order: DFS from the root over all joints, siblings by name."""
    robot = ET.parse(urdf_path).getroot()
    links = [l.get("name") for l in robot.findall("link")]
    children: dict[str, list[tuple[str, str, str]]] = {l: [] for l in links}
    child_links = set()
    for j in robot.findall("joint"):
        name, jtype = j.get("name"), j.get("type")
        if jtype not in KNOWN_TYPES:
            raise ValueError(f"{urdf_path.name}: joint {name!r} has unsupported type {jtype!r}")
        parent = j.find("parent").get("link")
        child = j.find("child").get("link")
        if parent not in children or child not in children:
            raise ValueError(f"{urdf_path.name}: joint {name!r} refers to an unknown link")
        if child in child_links:
            raise ValueError(f"{urdf_path.name}: link {child!r} has two parent joints")
        child_links.add(child)
        children[parent].append((name, jtype, child))
    roots = [l for l in links if l not in child_links]
    if len(roots) != 1:
        raise ValueError(f"{urdf_path.name}: expected one root link, found {roots}")

    order: list[str] = []
    stack = [roots[0]]  # explicit stack; push children in reverse so the smallest name pops first
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            name, jtype, child = item
            if jtype in MOVABLE_TYPES:
                order.append(name)
            stack.append(child)
        else:
            for joint in sorted(children[item], key=lambda t: t[0], reverse=True):
                stack.append(joint)
    return order


def urdf_link_names(urdf_path: Path) -> list[str]:
    return [l.get("name") for l in ET.parse(urdf_path).getroot().findall("link")]


# ---------------------------------------------------------------------------
# Model, joint order and configuration mapping


def build_model(robot: Robot):
    """Pinocchio's model of a robot, with our gravity."""
    pin = pinocchio()
    path = str(robot.path())
    if robot.free_flyer:
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer(), mimic=False)
    else:
        model = pin.buildModelFromUrdf(path, mimic=False)
    model.gravity.linear = np.array(GRAVITY)
    return model


def joint_kind(j) -> str:
    if j.nq == 7 and j.nv == 6:
        return "free_flyer"
    if j.nq == 2 and j.nv == 1:
        return "continuous"
    if j.nq == 1 and j.nv == 1:
        return "single"
    raise ValueError(f"unsupported Pinocchio joint {j.shortname()} (nq={j.nq}, nv={j.nv})")


def our_nq(model) -> int:
    return sum(7 if joint_kind(j) == "free_flyer" else 1 for j in model.joints[1:])


def expected_joint_names(robot: Robot) -> list[str]:
    names = urdf_joint_order(robot.path())
    return ([FREE_FLYER_NAME] if robot.free_flyer else []) + names


def check_joint_order(robot: Robot, model) -> list[str]:
    ours = expected_joint_names(robot)
    theirs = list(model.names)[1:]
    if ours != theirs:
        raise AssertionError(
            f"{robot.name}: joint order differs from Pinocchio's\n"
            f"  ours (DFS over all joints, siblings by name): {ours}\n"
            f"  Pinocchio model.names[1:]:                    {theirs}"
        )
    return ours


def check_names(robot_name: str, what: str, got: list[str], want: list[str], source: str) -> None:
    """Fail when a build's names (joint_names, frame_names) differ from the reference's, in order."""
    got, want = list(got), list(want)
    if got == want:
        return
    lines = [f"{robot_name}: {what} of the build differ from the reference ({source})"]
    missing = [n for n in want if n not in got]
    extra = [n for n in got if n not in want]
    if missing:
        lines.append(f"  missing in the build: {missing}")
    if extra:
        lines.append(f"  not in the reference: {extra}")
    if not missing and not extra:
        first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        lines.append(f"  same names, other order: first difference at index {first}: "
                     f"build {got[first]!r}, reference {want[first]!r}")
    lines.append(f"  build:     {got}")
    lines.append(f"  reference: {want}")
    raise AssertionError("\n".join(lines))


def to_pin_q(model, q_ours: np.ndarray) -> np.ndarray:
    """Our q (one angle per continuous joint) -> Pinocchio's q."""
    q_ours = np.asarray(q_ours, dtype=float)
    if q_ours.shape != (our_nq(model),):
        raise ValueError(f"q has shape {q_ours.shape}, expected ({our_nq(model)},)")
    q = np.zeros(model.nq)
    off = 0
    for j in model.joints[1:]:
        kind = joint_kind(j)
        if kind == "free_flyer":
            q[j.idx_q : j.idx_q + 7] = q_ours[off : off + 7]
            off += 7
        elif kind == "continuous":
            q[j.idx_q] = math.cos(q_ours[off])
            q[j.idx_q + 1] = math.sin(q_ours[off])
            off += 1
        else:
            q[j.idx_q] = q_ours[off]
            off += 1
    return q


def sample_q(model, rng: np.random.Generator) -> np.ndarray:
    """A random configuration in our convention.

    revolute / prismatic: uniform in [lower, upper] of Pinocchio's position limits when both are
    finite and no wider than 2π, otherwise uniform in [-π, π]; continuous: uniform in [-π, π];
    free-flyer: position uniform in [-1, 1]^3, quaternion a normalised 4-D standard normal sample.
    """
    out: list[float] = []
    for j in model.joints[1:]:
        kind = joint_kind(j)
        if kind == "free_flyer":
            pos = rng.uniform(-1.0, 1.0, 3)
            quat = rng.standard_normal(4)
            quat /= np.linalg.norm(quat)
            out.extend(pos.tolist() + quat.tolist())
        elif kind == "continuous":
            out.append(float(rng.uniform(-math.pi, math.pi)))
        else:
            lo = float(model.lowerPositionLimit[j.idx_q])
            hi = float(model.upperPositionLimit[j.idx_q])
            if math.isfinite(lo) and math.isfinite(hi) and lo <= hi and hi - lo <= 2 * math.pi:
                out.append(float(rng.uniform(lo, hi)))
            else:
                out.append(float(rng.uniform(-math.pi, math.pi)))
    return np.array(out)


def symmetrize_upper(a: np.ndarray) -> np.ndarray:
    return np.triu(a) + np.triu(a, 1).T


# ---------------------------------------------------------------------------
# Frames and Jacobians


def body_frames(model, links: list[str]) -> list[tuple[str, int]]:
    """(link, Pinocchio BODY frame id) for every link that has a BODY frame, in the given order."""
    pin = pinocchio()
    out = []
    for name in links:
        if model.existFrame(name, pin.BODY):
            out.append((name, model.getFrameId(name, pin.BODY)))
    return out


def quaternion_xyzw(rot: np.ndarray) -> np.ndarray:
    """The unit quaternion [qx qy qz qw] of a rotation matrix, with qw >= 0."""
    pin = pinocchio()
    quat = np.array(pin.Quaternion(np.asarray(rot, dtype=float)).coeffs())  # Eigen's xyzw order
    quat /= np.linalg.norm(quat)
    return -quat if quat[3] < 0 else quat


def align_quaternion_sign(quat: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """quat or -quat (per quaternion along the last axis), whichever points the way reference does."""
    quat = np.asarray(quat)
    sign = np.where(np.sum(quat * np.asarray(reference), axis=-1, keepdims=True) < 0, -1, 1)
    return quat * sign.astype(quat.dtype)


def frame_pose(data, frame_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pos, rot, quat xyzw) of a frame after pin.framesForwardKinematics, in our conventions."""
    oMf = data.oMf[frame_id]
    rot = np.array(oMf.rotation)
    return np.array(oMf.translation), rot, quaternion_xyzw(rot)


def frame_jacobian(model, data, frame_id: int) -> np.ndarray:
    """A frame's world-aligned Jacobian (rows [v; ω]) after pin.computeJointJacobians: ours, unconverted."""
    pin = pinocchio()
    return np.array(pin.getFrameJacobian(model, data, frame_id, pin.LOCAL_WORLD_ALIGNED))


# ---------------------------------------------------------------------------
# Dynamics in our conventions (q ours, everything else unchanged)


def dynamics(model, data, q_ours, qd, qdd, tau) -> dict[str, np.ndarray]:
    """Pinocchio's dynamics at one state, as our methods return them.

    inverse_dynamics = rnea(q, qd, qdd); bias_forces = nonLinearEffects(q, qd);
    gravity_forces = computeGeneralizedGravity(q); mass_matrix = crba(q) and minv = computeMinverse(q),
    both symmetrised from their upper triangles; forward_dynamics = aba(q, qd, tau).
    """
    pin = pinocchio()
    q = to_pin_q(model, q_ours)
    qd, qdd, tau = (np.asarray(x, dtype=float) for x in (qd, qdd, tau))
    return {
        "inverse_dynamics": pin.rnea(model, data, q, qd, qdd).copy(),
        "bias_forces": pin.nonLinearEffects(model, data, q, qd).copy(),
        "gravity_forces": pin.computeGeneralizedGravity(model, data, q).copy(),
        "mass_matrix": symmetrize_upper(pin.crba(model, data, q).copy()),
        "minv": symmetrize_upper(pin.computeMinverse(model, data, q).copy()),
        "forward_dynamics": pin.aba(model, data, q, qd, tau).copy(),
    }


def inertial_parameters(model) -> np.ndarray:
    """Pinocchio's bodies' dynamic parameters, (njoints - 1, 10): one row per joint's body (links welded by
    fixed joints merged in), ``[m, m·c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`` about the body origin; our body
    order, which is Pinocchio's joint order (check_joint_order)."""
    return np.array([model.inertias[j].toDynamicParameters() for j in range(1, model.njoints)])


def with_inertial_parameters(model, params: np.ndarray):
    """A copy of the model whose bodies have the dynamic parameters params (njoints - 1, 10)."""
    pin = pinocchio()
    out = model.copy()
    for j, p in enumerate(np.asarray(params, dtype=float), start=1):
        out.inertias[j] = pin.Inertia.FromDynamicParameters(p)
    return out


def joint_torque_regressor(model, data, q_ours, qd, qdd) -> np.ndarray:
    """Pinocchio's computeJointTorqueRegressor (nv × 10·(njoints − 1), gravity included): τ = Y·π for π the
    rows of inertial_parameters, flattened. Its layout is ours."""
    pin = pinocchio()
    q = to_pin_q(model, q_ours)
    return pin.computeJointTorqueRegressor(model, data, q, np.asarray(qd, float), np.asarray(qdd, float)).copy()


def derivatives_to_ours(d_pin: np.ndarray) -> np.ndarray:
    """A derivative of Pinocchio's (rows velocity space, columns tangent directions) -> ours.

    Both layouts are the same (see "Derivatives of the dynamics" above), so this copies.
    """
    return np.array(d_pin, dtype=float, copy=True)


def dynamics_derivatives(model, data, q_ours, qd, qdd, tau) -> dict[str, np.ndarray]:
    """Pinocchio's derivatives of the dynamics at one state, in our conventions (nv x nv each).

    rnea_dq, rnea_dqd: d rnea(q, qd, qdd) / d(q, qd), gravity included (computeRNEADerivatives);
    aba_dq, aba_dqd: d aba(q, qd, tau) / d(q, qd) (computeABADerivatives).
    """
    pin = pinocchio()
    q = to_pin_q(model, q_ours)
    qd, qdd, tau = (np.asarray(x, dtype=float) for x in (qd, qdd, tau))
    pin.computeRNEADerivatives(model, data, q, qd, qdd)
    out = {
        "rnea_dq": derivatives_to_ours(data.dtau_dq),
        "rnea_dqd": derivatives_to_ours(data.dtau_dv),
    }
    pin.computeABADerivatives(model, data, q, qd, tau)
    out["aba_dq"] = derivatives_to_ours(data.ddq_dq)
    out["aba_dqd"] = derivatives_to_ours(data.ddq_dv)
    return out


def _stencil(f, step: float) -> np.ndarray:
    """(f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h: a fourth-order central difference."""
    return (f(-2 * step) - 8 * f(-step) + 8 * f(step) - f(2 * step)) / (12 * step)


def second_derivatives(model, data, q_ours, qd, qdd, tau, step: float = 1e-3) -> dict[str, np.ndarray]:
    """Second derivatives of RNEA and ABA by central differences of Pinocchio's exact first derivatives.

    Indexing as grid_rbd's idsva_so / fdsva_so: t[i, a, b] is the derivative of the first-derivative
    entry [i, a] along direction b; configuration directions move q with pinocchio.integrate (the tangent
    convention of the first derivatives). Keys: rnea_dq2, rnea_dqdqd (entry of d tau/d qd along q),
    rnea_dqd2, rnea_dM_dq (d M_ij / d q_b), and the same for aba (aba_dMinv_dq = d Minv_ij / d q_b).
    """
    pin = pinocchio()
    q0 = to_pin_q(model, q_ours)
    qd, qdd, tau = (np.asarray(x, dtype=float) for x in (qd, qdd, tau))
    nv = model.nv

    def rnea(q, v):
        pin.computeRNEADerivatives(model, data, q, v, qdd)
        return np.array(data.dtau_dq), np.array(data.dtau_dv), symmetrize_upper(pin.crba(model, data, q).copy())

    def aba(q, v):
        pin.computeABADerivatives(model, data, q, v, tau)
        minv = symmetrize_upper(pin.computeMinverse(model, data, q).copy())
        return np.array(data.ddq_dq), np.array(data.ddq_dv), minv

    out: dict[str, np.ndarray] = {}
    for name, fn, third in (("rnea", rnea, "dM_dq"), ("aba", aba, "dMinv_dq")):
        along_q = [np.stack([_stencil(lambda h, b=b: fn(pin.integrate(model, q0, h * np.eye(nv)[b]), qd)[k], step)
                             for b in range(nv)], axis=-1) for k in range(3)]
        along_v = np.stack([_stencil(lambda h, b=b: fn(q0, qd + h * np.eye(nv)[b])[1], step) for b in range(nv)],
                           axis=-1)
        out[f"{name}_dq2"] = along_q[0]
        out[f"{name}_dqdqd"] = along_q[1]
        out[f"{name}_dqd2"] = along_v
        out[f"{name}_{third}"] = along_q[2]
    return out


def kinematics(model, data, frames: list[tuple[str, int]], q_ours) -> dict[str, np.ndarray]:
    """Poses [NF, 3], [NF, 3, 3], [NF, 4] and Jacobians [NF, 6, NV] of the given frames, ours.

    Poses are data.oMf after pin.framesForwardKinematics; Jacobians pin.getFrameJacobian(...,
    LOCAL_WORLD_ALIGNED) after pin.computeJointJacobians, rows reordered.
    """
    pin = pinocchio()
    q = to_pin_q(model, q_ours)
    nf = len(frames)
    pin.framesForwardKinematics(model, data, q)
    poses = [frame_pose(data, fid) for _, fid in frames]
    pin.computeJointJacobians(model, data, q)
    return {
        "pos": np.array([p for p, _, _ in poses]).reshape(nf, 3),
        "rot": np.array([r for _, r, _ in poses]).reshape(nf, 3, 3),
        "quat": np.array([x for _, _, x in poses]).reshape(nf, 4),
        "jacobian": np.array([frame_jacobian(model, data, fid) for _, fid in frames]).reshape(
            nf, 6, model.nv),
    }
