#!/usr/bin/env python3
"""Reference dynamics vectors computed with Pinocchio.

Writes one JSON file per robot to ``codegen/ref/testdata/pinocchio/<name>.json``.
The Go tests of codegen/ref compare the reference dynamics against these files, so they need no
Pinocchio themselves.

Usage (from the repository root)::

    python tests/pinocchio/make_ref_vectors.py          # (re)write the files
    python tests/pinocchio/make_ref_vectors.py --check  # compare, exit 1 on mismatch

Mapping between our conventions and Pinocchio's
===============================================

Joint order, free-flyer, continuous joints as one angle against Pinocchio's (cos, sin), mimic
joints, gravity, axes, fixed joints, frames and frame Jacobians: see ``conventions.py`` beside this
script, the one module that maps our conventions to Pinocchio's (the pytest suite in
``tests/python`` uses it too). This script uses its URDF joint order (``urdf_joint_order``,
checked against ``model.names[1:]``), ``to_pin_q``, ``sample_q`` and ``symmetrize_upper``.

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
``rnea_dq``, ``rnea_dqd``
    ``pin.computeRNEADerivatives(q, qd, qdd)``: ``data.dtau_dq`` and
    ``data.dtau_dv`` (gravity included), nv rows each;
``aba_dq``, ``aba_dqd``
    ``pin.computeABADerivatives(q, qd, tau)``: ``data.ddq_dq`` and
    ``data.ddq_dv``, nv rows each. Columns of all four are tangent directions
    (free-flyer body twist, one angle per continuous joint), which is our
    convention too: see "Derivatives of the dynamics" in ``conventions.py``
    (``dynamics_derivatives``);
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
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import conventions  # noqa: E402
from conventions import (  # noqa: E402,F401  (re-exported for tests/pinocchio/test_ref_vectors.py)
    GRAVITY as _GRAVITY,
    KNOWN_TYPES,
    MOVABLE_TYPES,
    REPO_ROOT,
    Robot,
    body_frames,
    build_model,
    check_joint_order,
    expected_joint_names,
    joint_kind,
    our_nq,
    sample_q,
    symmetrize_upper,
    to_pin_q,
    urdf_joint_order,
    urdf_link_names,
)

OUT_DIR = REPO_ROOT / "codegen" / "ref" / "testdata" / "pinocchio"

GRAVITY = list(_GRAVITY)
NUM_CASES = 3
CHECK_RTOL = 1e-10
SANITY_RTOL = 1e-8


ROBOTS = [
    Robot("iiwa", "shared:iiwa.urdf", False, 1001),
    Robot("panda", "shared:panda.urdf", False, 1002),
    Robot("atlas", "shared:atlas.urdf", False, 1003),
    Robot("go2", "shared:go2.urdf", True, 1004),
    Robot("g1_29dof", "shared:g1_29dof.urdf", True, 1005),
    Robot("branchy", "repo:testdata/robots/branchy.urdf", False, 1006),
]
ROBOTS_BY_NAME = {r.name: r for r in ROBOTS}


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

    # derivatives; sanity: d aba / d(q, qd) = -Minv · d rnea / d(q, qd) at qdd = aba(q, qd, tau)
    der = conventions.dynamics_derivatives(model, data, inputs["q"], qd, qdd, tau)
    at_aba = conventions.dynamics_derivatives(model, data, inputs["q"], qd, aba, tau)
    for a, r in (("aba_dq", "rnea_dq"), ("aba_dqd", "rnea_dqd")):
        want = -Minv @ at_aba[r]
        scale = max(1.0, float(np.max(np.abs(want))))
        err = float(np.max(np.abs(der[a] - want)))
        assert err <= SANITY_RTOL * scale, f"{robot.name}: {a} differs from -Minv·{r} by {err:g}"

    pin.framesForwardKinematics(model, data, q)
    fr = {}
    for name, fid in frames:
        position, rotation, _ = conventions.frame_pose(data, fid)
        fr[name] = {
            "position": position.tolist(),
            "rotation": rotation.tolist(),
        }
    return {
        "rnea": rnea.tolist(),
        "crba": M.tolist(),
        "minv": Minv.tolist(),
        "aba": aba.tolist(),
        **{k: der[k].tolist() for k in DERIVATIVE_FIELDS},
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
DERIVATIVE_FIELDS = ("rnea_dq", "rnea_dqd", "aba_dq", "aba_dqd")
OUTPUT_FIELDS = ("rnea", "crba", "minv", "aba") + DERIVATIVE_FIELDS


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
