#!/usr/bin/env python3
"""Reference dynamics vectors computed with Pinocchio.

Writes one JSON file per robot to ``codegen/ref/testdata/pinocchio/<name>.json``.
The Go tests of codegen/ref compare the reference dynamics against these files; this script is
the only place Pinocchio is needed.

Usage (from the repository root)::

    python tests/pinocchio/make_ref_vectors.py          # (re)write the files
    python tests/pinocchio/make_ref_vectors.py --check  # compare, exit 1 on mismatch

Mapping between our conventions and Pinocchio's
===============================================

Joint order
    Ours: depth-first pre-order traversal from the URDF root link over ALL joints
    (fixed ones included); the child joints of a link are visited sorted by joint
    name; the movable joints (revolute, continuous, prismatic, floating) are kept
    in the order they are visited. Fixed joints only decide where their subtree is
    visited (a fixed joint named ``a_mount`` is visited, with everything below
    it, before a sibling ``b_leg_hip``).
    Pinocchio's URDF parser visits the tree the same way, so ``model.names[1:]``
    (index 0 is Pinocchio's "universe") must equal our order. The script computes
    our order independently from the URDF XML (``xml.etree`` plus an explicit
    DFS) and stops with an error when the two differ. The order is stored as
    ``joint_names``; when a free-flyer is added to a fixed-base URDF, Pinocchio
    names it ``root_joint`` and it comes first.

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
    Our q is converted to Pinocchio's joint by joint: walking the joints in
    order with a running offset into our q, joint ``j`` writes
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

File contents
=============

``robot``, ``urdf`` ("shared:<file>" for ../shared/robots, "repo:<path>" for a
file of this repository), ``free_flyer_added``, ``pinocchio_version``,
``gravity``, ``nq`` (OUR nq), ``nv``, ``joint_names``, ``frame_names`` and
``cases``; each case holds, in our conventions:

``q`` (our nq), ``qd``, ``qdd``, ``tau`` (nv each)
    the inputs;
``rnea``
    ``pin.rnea(q, qd, qdd)``: inverse dynamics, gravity included;
``crba``
    the joint-space mass matrix as nv rows (``pin.crba`` fills only the upper
    triangle; the file holds the full symmetric matrix);
``minv``
    its inverse from ``pin.computeMinverse`` (same remark), as nv rows;
``aba``
    ``pin.aba(q, qd, tau)``: forward dynamics, gravity included;
``frames``
    after ``pin.framesForwardKinematics(q)``, for every URDF link that has a
    Pinocchio BODY frame: ``position`` (3) and ``rotation`` (3 rows of the 3x3
    matrix whose columns are the link frame's axes in world coordinates, i.e.
    ``data.oMf[id].rotation``). ``frame_names`` lists these links in the order
    they appear in the URDF.

Inputs
======

Three cases per robot, drawn from ``numpy.random.default_rng(seed)`` with a fixed
seed per robot, in this order per case: q (joint by joint), qd, qdd, tau.

* revolute / prismatic q: uniform in [lower, upper] of Pinocchio's position
  limits when both are finite and ``upper - lower <= 2π`` (not wider than
  [-π, π]); otherwise uniform in [-π, π];
* continuous q: angle uniform in [-π, π];
* free-flyer q: position uniform in [-1, 1]^3, quaternion = normalised sample
  of a 4-D standard normal (random unit quaternion, [qx qy qz qw]);
* qd ~ N(0, 1) in cases 0 and 1, N(0, 10^2) in case 2 (large velocities);
* qdd ~ N(0, 3^2); tau ~ N(0, 10^2).

Checks
======

Generation asserts ``aba(q, qd, rnea(q, qd, qdd)) ≈ qdd`` (1e-8 relative to
max|qdd|) and ``M @ Minv ≈ I`` (1e-8).

``--check`` compares the committed files with a fresh computation: metadata,
names and counts must match exactly (``pinocchio_version`` is informational and
not compared); every array must satisfy max|computed - file| <= 1e-10 * max
(max|computed|, max|file|), per array. The inputs are regenerated from the seed
and compared; when they match, the outputs are recomputed from the committed
inputs, so a mismatch in an output points at Pinocchio and one in an input at
the random generator (otherwise outputs are compared with those of the
regenerated inputs).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_ROBOTS = REPO_ROOT.parent / "shared" / "robots"
OUT_DIR = REPO_ROOT / "codegen" / "ref" / "testdata" / "pinocchio"

GRAVITY = [0.0, 0.0, -9.81]
NUM_CASES = 3
CHECK_RTOL = 1e-10
SANITY_RTOL = 1e-8

MOVABLE_TYPES = {"revolute", "continuous", "prismatic", "floating"}
KNOWN_TYPES = MOVABLE_TYPES | {"fixed"}


@dataclass(frozen=True)
class Robot:
    name: str
    urdf: str  # "shared:<file>" or "repo:<path relative to the repository root>"
    free_flyer: bool  # add Pinocchio's free-flyer above the URDF root link
    seed: int

    def path(self) -> Path:
        kind, rel = self.urdf.split(":", 1)
        if kind == "shared":
            return SHARED_ROBOTS / rel
        if kind == "repo":
            return REPO_ROOT / rel
        raise ValueError(f"{self.name}: bad urdf reference {self.urdf!r}")


ROBOTS = [
    Robot("iiwa", "shared:iiwa.urdf", False, 1001),
    Robot("panda", "shared:panda.urdf", False, 1002),
    Robot("atlas", "shared:atlas.urdf", False, 1003),
    Robot("go2", "shared:go2.urdf", True, 1004),
    Robot("g1_29dof", "shared:g1_29dof.urdf", True, 1005),
    Robot("branchy", "repo:testdata/robots/branchy.urdf", False, 1006),
]
ROBOTS_BY_NAME = {r.name: r for r in ROBOTS}


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
# Model and convention mapping


def build_model(robot: Robot) -> pin.Model:
    path = str(robot.path())
    if robot.free_flyer:
        return pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer(), mimic=False)
    return pin.buildModelFromUrdf(path, mimic=False)


def joint_kind(j) -> str:
    if j.nq == 7 and j.nv == 6:
        return "free_flyer"
    if j.nq == 2 and j.nv == 1:
        return "continuous"
    if j.nq == 1 and j.nv == 1:
        return "single"
    raise ValueError(f"unsupported Pinocchio joint {j.shortname()} (nq={j.nq}, nv={j.nv})")


def our_nq(model: pin.Model) -> int:
    return sum(7 if joint_kind(j) == "free_flyer" else 1 for j in model.joints[1:])


def expected_joint_names(robot: Robot) -> list[str]:
    names = urdf_joint_order(robot.path())
    return (["root_joint"] if robot.free_flyer else []) + names


def check_joint_order(robot: Robot, model: pin.Model) -> list[str]:
    ours = expected_joint_names(robot)
    theirs = list(model.names)[1:]
    if ours != theirs:
        raise AssertionError(
            f"{robot.name}: joint order differs from Pinocchio's\n"
            f"  ours (DFS over all joints, siblings by name): {ours}\n"
            f"  Pinocchio model.names[1:]:                    {theirs}"
        )
    return ours


def to_pin_q(model: pin.Model, q_ours: np.ndarray) -> np.ndarray:
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


def sample_q(model: pin.Model, rng: np.random.Generator) -> np.ndarray:
    """A random configuration in our convention."""
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


def sample_inputs(robot: Robot, model: pin.Model) -> list[dict]:
    rng = np.random.default_rng(robot.seed)
    nv = model.nv
    cases = []
    for c in range(NUM_CASES):
        q = sample_q(model, rng)
        qd = rng.normal(0.0, 10.0 if c == 2 else 1.0, nv)
        qdd = rng.normal(0.0, 3.0, nv)
        tau = rng.normal(0.0, 10.0, nv)
        cases.append({"q": q, "qd": qd, "qdd": qdd, "tau": tau})
    return cases


def symmetrize_upper(a: np.ndarray) -> np.ndarray:
    return np.triu(a) + np.triu(a, 1).T


def body_frames(model: pin.Model, links: list[str]) -> list[tuple[str, int]]:
    out = []
    for name in links:
        if model.existFrame(name, pin.BODY):
            out.append((name, model.getFrameId(name, pin.BODY)))
    return out


def compute_outputs(
    robot: Robot, model: pin.Model, frames: list[tuple[str, int]], inputs: dict
) -> dict:
    data = model.createData()
    q = to_pin_q(model, inputs["q"])
    qd = np.asarray(inputs["qd"], dtype=float)
    qdd = np.asarray(inputs["qdd"], dtype=float)
    tau = np.asarray(inputs["tau"], dtype=float)

    rnea = pin.rnea(model, data, q, qd, qdd).copy()
    M = symmetrize_upper(pin.crba(model, data, q).copy())
    Minv = symmetrize_upper(pin.computeMinverse(model, data, q).copy())
    aba = pin.aba(model, data, q, qd, tau).copy()

    # sanity: forward dynamics inverts inverse dynamics, Minv inverts M
    back = pin.aba(model, data, q, qd, rnea)
    scale = max(1.0, float(np.max(np.abs(qdd))))
    err = float(np.max(np.abs(back - qdd)))
    assert err <= SANITY_RTOL * scale, f"{robot.name}: aba(rnea(qdd)) differs from qdd by {err:g}"
    err = float(np.max(np.abs(M @ Minv - np.eye(model.nv))))
    assert err <= SANITY_RTOL, f"{robot.name}: M @ Minv differs from I by {err:g}"

    pin.framesForwardKinematics(model, data, q)
    fr = {}
    for name, fid in frames:
        oMf = data.oMf[fid]
        fr[name] = {
            "position": oMf.translation.tolist(),
            "rotation": oMf.rotation.tolist(),
        }
    return {
        "rnea": rnea.tolist(),
        "crba": M.tolist(),
        "minv": Minv.tolist(),
        "aba": aba.tolist(),
        "frames": fr,
    }


def make_document(robot: Robot, inputs_override: list[dict] | None = None) -> dict:
    """The JSON document for a robot; outputs from inputs_override when given."""
    model = build_model(robot)
    model.gravity.linear = np.array(GRAVITY)
    joint_names = check_joint_order(robot, model)
    frames = body_frames(model, urdf_link_names(robot.path()))
    generated = sample_inputs(robot, model)
    source = inputs_override if inputs_override is not None else generated
    cases = []
    for gen, src in zip(generated, source):
        case = {k: np.asarray(gen[k]).tolist() for k in ("q", "qd", "qdd", "tau")}
        case.update(compute_outputs(robot, model, frames, src))
        cases.append(case)
    return {
        "robot": robot.name,
        "urdf": robot.urdf,
        "free_flyer_added": robot.free_flyer,
        "pinocchio_version": pin.__version__,
        "gravity": GRAVITY,
        "nq": our_nq(model),
        "nv": model.nv,
        "joint_names": joint_names,
        "frame_names": [n for n, _ in frames],
        "cases": cases,
    }


# ---------------------------------------------------------------------------
# JSON output: nested containers indented, lists of numbers on one line


def _is_flat(v) -> bool:
    return isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v)


def to_json(v, indent: int = 0) -> str:
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {to_json(x, indent + 1)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(v, list) and not _is_flat(v):
        items = [pad + to_json(x, indent + 1) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + end + "]"
    return json.dumps(v, allow_nan=False)


def out_path(robot: Robot) -> Path:
    return OUT_DIR / f"{robot.name}.json"


def write(robot: Robot) -> dict:
    doc = make_document(robot)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out_path(robot).write_text(to_json(doc) + "\n")
    return doc


# ---------------------------------------------------------------------------
# --check


def _compare_array(where: str, want, got, errors: list[str]) -> None:
    a = np.asarray(want, dtype=float)
    try:
        b = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        errors.append(f"{where}: not a numeric array in the file")
        return
    if a.shape != b.shape:
        errors.append(f"{where}: shape {b.shape} in file, {a.shape} computed")
        return
    if a.size == 0:
        return
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))), np.finfo(float).tiny)
    diff = float(np.max(np.abs(a - b)))
    if not diff <= CHECK_RTOL * scale:
        i = np.unravel_index(int(np.argmax(np.abs(a - b))), a.shape)
        errors.append(
            f"{where}: max |diff| {diff:.3e} > {CHECK_RTOL:g} * {scale:.3e} "
            f"(at {list(map(int, i))}: file {float(b[i])!r}, computed {float(a[i])!r})"
        )


INPUT_FIELDS = ("q", "qd", "qdd", "tau")
OUTPUT_FIELDS = ("rnea", "crba", "minv", "aba")


def check_robot(robot: Robot) -> list[str]:
    """Mismatches between the committed file and a fresh computation (empty: all good)."""
    path = out_path(robot)
    if not path.exists():
        return [f"{robot.name}: {path.relative_to(REPO_ROOT)} is missing"]
    committed = json.loads(path.read_text())
    ccases = committed.get("cases")
    if not isinstance(ccases, list) or len(ccases) != NUM_CASES:
        return [f"{robot.name}: expected {NUM_CASES} cases in the file"]
    try:
        fresh = make_document(robot)
    except AssertionError as e:  # joint order or sanity check
        return [str(e)]
    errors: list[str] = []

    # pinocchio_version is informational: another version that gives the same numbers passes
    for key in ("robot", "urdf", "free_flyer_added", "nq", "nv", "joint_names", "frame_names"):
        if committed.get(key) != fresh[key]:
            errors.append(f"{robot.name}: {key}: file {committed.get(key)!r}, computed {fresh[key]!r}")
    _compare_array(f"{robot.name}: gravity", fresh["gravity"], committed.get("gravity"), errors)

    want_fields = set(fresh["cases"][0])
    for c, got in enumerate(ccases):
        if not isinstance(got, dict) or set(got) != want_fields:
            have = sorted(got) if isinstance(got, dict) else type(got).__name__
            return errors + [
                f"{robot.name}: case {c}: fields {have} in file, expected {sorted(want_fields)}"]

    # inputs: regenerated from the seed
    input_errors: list[str] = []
    for c, (want, got) in enumerate(zip(fresh["cases"], ccases)):
        for field in INPUT_FIELDS:
            _compare_array(f"{robot.name}: case {c}: {field}", want[field], got[field], input_errors)
    errors += input_errors

    # outputs: recomputed from the committed inputs when these are intact, so that a mismatch
    # points at Pinocchio; otherwise compared with the outputs of the regenerated inputs
    if not input_errors:
        try:
            fresh = make_document(robot, inputs_override=ccases)
        except AssertionError as e:
            return errors + [f"{robot.name}: cannot recompute from the committed inputs: {e}"]
    for c, (want, got) in enumerate(zip(fresh["cases"], ccases)):
        where = f"{robot.name}: case {c}"
        for field in OUTPUT_FIELDS:
            _compare_array(f"{where}: {field}", want[field], got[field], errors)
        gf = got["frames"]
        if not isinstance(gf, dict) or list(gf) != list(want["frames"]):
            have = list(gf) if isinstance(gf, dict) else type(gf).__name__
            errors.append(f"{where}: frames: names {have} in file, computed {list(want['frames'])}")
            continue
        for name, w in want["frames"].items():
            for field in ("position", "rotation"):
                g = gf[name].get(field) if isinstance(gf[name], dict) else None
                _compare_array(f"{where}: frames[{name}].{field}", w[field], g, errors)
    return errors


def summary(doc: dict) -> str:
    return (f"{doc['robot']}: nq={doc['nq']} nv={doc['nv']} joints={len(doc['joint_names'])} "
            f"frames={len(doc['frame_names'])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare the committed files with a fresh computation instead of writing")
    ap.add_argument("robots", nargs="*", metavar="ROBOT",
                    help=f"robots to process (default: all of {', '.join(ROBOTS_BY_NAME)})")
    args = ap.parse_args(argv)
    unknown = [r for r in args.robots if r not in ROBOTS_BY_NAME]
    if unknown:
        ap.error(f"unknown robot(s): {', '.join(unknown)}")
    robots = [ROBOTS_BY_NAME[r] for r in args.robots] if args.robots else ROBOTS

    failed = 0
    for robot in robots:
        if args.check:
            errors = check_robot(robot)
            if errors:
                failed += 1
                print(f"{robot.name}: MISMATCH ({len(errors)} problem(s))")
                for e in errors:
                    print(f"  {e}")
            else:
                print(f"{robot.name}: ok ({out_path(robot).relative_to(REPO_ROOT)})")
        else:
            doc = write(robot)
            print(f"{summary(doc)} -> {out_path(robot).relative_to(REPO_ROOT)}")
    if failed:
        print(f"{failed} robot(s) do not match; regenerate with "
              f"'python tests/pinocchio/make_ref_vectors.py' if the change is intended")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
