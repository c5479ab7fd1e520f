"""The inverse-kinematics solver on the GPU against the same solver on the CPU, for a floating-base robot.

Three steps, because the GPU machine has no Pinocchio and this one has no GPU:

    python tests/gpu/ik_devices.py targets URDF FRAME N TARGETS.npz     # here: foot poses of random configurations
    python tests/gpu/ik_devices.py solve BUILD_DIR TARGETS.npz OUT.npz   # there: grid_rbd.ik on "gpu" and "cpu"
    python tests/gpu/ik_devices.py verify URDF OUT.npz                   # here: Pinocchio checks both

The targets are frame poses of random joint configurations with the free-flyer base at a random pose, which is
also the solver's rest configuration (the base is not part of the chain, so it must stay there). ``verify``
recomputes every returned configuration's frame pose with Pinocchio's forward kinematics and fails when a
reported error disagrees with it by more than 1e-9, a configuration leaves the joint limits or moves the base,
or the two devices disagree on which targets are solved.
"""

from __future__ import annotations

import math
import sys

import numpy as np

POS_TOL, ANG_TOL = 1e-3, math.radians(1.0)
BASE_NQ = 7  # a free flyer's position and quaternion lead the configuration


def targets(urdf: str, frame: str, n: int, out: str) -> int:
    import pinocchio as pin

    model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    fid = model.getFrameId(frame)
    rng = np.random.default_rng(4109)
    turn = rng.normal(size=4)
    base = np.concatenate([[0.3, -0.2, 0.4], turn / np.linalg.norm(turn)])
    lower, upper = model.lowerPositionLimit[BASE_NQ:], model.upperPositionLimit[BASE_NQ:]
    pos, quat = [], []
    for _ in range(n):
        pin.framesForwardKinematics(model, data, np.concatenate([base, rng.uniform(lower, upper)]))
        pos.append(data.oMf[fid].translation.copy())
        quat.append(pin.Quaternion(data.oMf[fid].rotation).coeffs().copy())  # xyzw
    rest = np.concatenate([base, np.clip(0.0, lower, upper)])
    np.savez(out, frame=np.array(frame), pos=np.array(pos), quat=np.array(quat), q_rest=rest)
    print(f"{n} targets of {frame} written to {out}")
    return 0


def solve(build_dir: str, targets_npz: str, out: str) -> int:
    from grid_rbd import ik

    t = np.load(targets_npz)
    saved = {k: t[k] for k in t.files}
    for device in ("gpu", "cpu"):
        r = ik.solve(build_dir, t["pos"], t["quat"], frame=str(t["frame"]), num_solutions=4, seed=0,
                     q_rest=t["q_rest"], device=device)
        if r.device != device:
            raise SystemExit(f"asked for {device}, ran on {r.device}")
        saved.update({f"q_{device}": r.q, f"perr_{device}": r.position_error,
                      f"aerr_{device}": r.orientation_error})
        print(f"{device}: {int(r.solved()[:, 0].sum())}/{r.q.shape[0]} targets solved")
    np.savez_compressed(out, **saved)
    return 0


def verify(urdf: str, solved_npz: str) -> int:
    import pinocchio as pin

    model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    d = np.load(solved_npz)
    fid = model.getFrameId(str(d["frame"]))
    rest = d["q_rest"]
    worst, failures, solved = 0.0, [], {}
    for device in ("gpu", "cpu"):
        q, perr, aerr = d[f"q_{device}"], d[f"perr_{device}"], d[f"aerr_{device}"]
        ok = np.zeros(q.shape[0], bool)
        for g in range(q.shape[0]):
            target = pin.Quaternion(d["quat"][g, 3], *d["quat"][g, :3]).normalized().toRotationMatrix()
            for s in range(q.shape[1]):
                qi = q[g, s]
                if not np.all(np.isfinite(qi)):
                    continue
                if np.any(np.abs(qi[:BASE_NQ] - rest[:BASE_NQ]) > 1e-12):
                    failures.append(f"{device}: target {g} solution {s} moves the base")
                joints = qi[BASE_NQ:]
                if np.any(joints < model.lowerPositionLimit[BASE_NQ:] - 1e-12) or np.any(
                        joints > model.upperPositionLimit[BASE_NQ:] + 1e-12):
                    failures.append(f"{device}: target {g} solution {s} leaves the joint limits")
                pin.framesForwardKinematics(model, data, qi)
                pose = data.oMf[fid]
                p_err = float(np.linalg.norm(pose.translation - d["pos"][g]))
                a_err = float(np.linalg.norm(pin.log3(pose.rotation @ target.T)))
                worst = max(worst, abs(p_err - perr[g, s]), abs(a_err - aerr[g, s]))
                if s == 0:
                    ok[g] = p_err <= POS_TOL and a_err <= ANG_TOL
        solved[device] = ok
        print(f"{device}: best solution within 1 mm and 1 deg by Pinocchio for {int(ok.sum())}/{ok.size} targets")
    if not np.array_equal(solved["gpu"], solved["cpu"]):
        failures.append(f"the devices disagree on targets {np.flatnonzero(solved['gpu'] != solved['cpu'])}")
    same = np.all(np.abs(d["q_gpu"][:, 0] - d["q_cpu"][:, 0]) < 1e-6, axis=1)
    print(f"same best configuration on both devices (1e-6): {int(same.sum())}/{same.size}")
    print(f"largest difference between reported and Pinocchio errors: {worst:.3g}")
    if worst >= 1e-9:
        failures.append(f"reported errors differ from Pinocchio's by {worst:.3g}")
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    usage = __doc__.split("\n\n")[1]
    if argv[:1] == ["targets"] and len(argv) == 5:
        return targets(argv[1], argv[2], int(argv[3]), argv[4])
    if argv[:1] == ["solve"] and len(argv) == 4:
        return solve(*argv[1:])
    if argv[:1] == ["verify"] and len(argv) == 3:
        return verify(*argv[1:])
    raise SystemExit("usage:\n" + usage)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
