"""The committed Pinocchio reference vectors still match Pinocchio, and the joint-order rule holds.

Run from the repository root: ``python -m pytest tests/pinocchio -q``.
"""

import importlib.util
import json
import math
import sys
import types
from pathlib import Path

import numpy as np
import pytest

_SCRIPT = Path(__file__).resolve().with_name("make_ref_vectors.py")
_spec = importlib.util.spec_from_file_location("make_ref_vectors", _SCRIPT)
mrv = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mrv  # dataclasses look the module up while the class is created
_spec.loader.exec_module(mrv)

BRANCHY_ORDER = [
    "float_base",
    "mount_leg",
    "leg_knee",
    "b_leg_hip",
    "z_arm_roll",
    "arm_slide",
    "arm_wrist",
]


@pytest.mark.parametrize("robot", [r.name for r in mrv.ROBOTS])
def test_committed_vectors_match_pinocchio(robot):
    errors = mrv.check_robot(mrv.ROBOTS_BY_NAME[robot])
    assert not errors, "\n".join(
        errors + ["regenerate with 'python tests/pinocchio/make_ref_vectors.py' if intended"]
    )


def test_branchy_joint_order_from_urdf():
    branchy = mrv.ROBOTS_BY_NAME["branchy"]
    # a_mount (fixed) sorts before b_leg_hip, and mount_leg hangs under it
    assert mrv.urdf_joint_order(branchy.path()) == BRANCHY_ORDER


def test_branchy_joint_order_matches_pinocchio_and_file():
    branchy = mrv.ROBOTS_BY_NAME["branchy"]
    model = mrv.build_model(branchy)
    assert mrv.check_joint_order(branchy, model) == BRANCHY_ORDER
    doc = json.loads(mrv.out_path(branchy).read_text())
    assert doc["joint_names"] == BRANCHY_ORDER
    assert doc["free_flyer_added"] is False
    assert (doc["nq"], doc["nv"]) == (13, 12)  # free-flyer 7/6, two continuous joints 1/1 each


def test_joint_order_mismatch_is_reported():
    branchy = mrv.ROBOTS_BY_NAME["branchy"]
    fake = types.SimpleNamespace(names=["universe"] + list(reversed(BRANCHY_ORDER)))
    with pytest.raises(AssertionError, match="joint order differs"):
        mrv.check_joint_order(branchy, fake)


def test_added_free_flyer_is_first():
    go2 = mrv.ROBOTS_BY_NAME["go2"]
    assert mrv.expected_joint_names(go2)[0] == "root_joint"


def test_continuous_joint_maps_to_cos_sin():
    branchy = mrv.ROBOTS_BY_NAME["branchy"]
    model = mrv.build_model(branchy)
    ours = np.arange(1.0, 14.0) / 10.0  # 13 values: our nq
    ours[3:7] = [0.0, 0.0, 0.0, 1.0]
    q = mrv.to_pin_q(model, ours)
    assert q.shape == (model.nq,)
    np.testing.assert_array_equal(q[:7], ours[:7])  # free-flyer copied
    mount_leg = model.joints[model.getJointId("mount_leg")]
    assert mount_leg.nq == 2
    assert q[mount_leg.idx_q] == math.cos(ours[7])
    assert q[mount_leg.idx_q + 1] == math.sin(ours[7])
    arm_wrist = model.joints[model.getJointId("arm_wrist")]
    assert q[arm_wrist.idx_q] == math.cos(ours[12])
    assert q[arm_wrist.idx_q + 1] == math.sin(ours[12])


def test_check_names_robot_case_and_field(tmp_path, monkeypatch):
    iiwa = mrv.ROBOTS_BY_NAME["iiwa"]
    doc = json.loads(mrv.out_path(iiwa).read_text())
    doc["cases"][1]["minv"][2][3] *= 1.0 + 1e-6
    (tmp_path / "iiwa.json").write_text(json.dumps(doc))
    monkeypatch.setattr(mrv, "OUT_DIR", tmp_path)
    errors = mrv.check_robot(iiwa)
    assert len(errors) == 1
    assert errors[0].startswith("iiwa: case 1: minv:")


@pytest.mark.parametrize("robot", [r.name for r in mrv.ROBOTS])
def test_derivatives_are_nv_by_nv(robot):
    doc = json.loads(mrv.out_path(mrv.ROBOTS_BY_NAME[robot]).read_text())
    nv = doc["nv"]
    for case in doc["cases"]:
        for field in mrv.DERIVATIVE_FIELDS:
            assert np.asarray(case[field]).shape == (nv, nv), field


def test_check_reports_changed_derivative(tmp_path, monkeypatch):
    branchy = mrv.ROBOTS_BY_NAME["branchy"]
    doc = json.loads(mrv.out_path(branchy).read_text())
    doc["cases"][2]["aba_dq"][4][5] += 1e-6 * np.max(np.abs(doc["cases"][2]["aba_dq"]))
    (tmp_path / "branchy.json").write_text(json.dumps(doc))
    monkeypatch.setattr(mrv, "OUT_DIR", tmp_path)
    errors = mrv.check_robot(branchy)
    assert len(errors) == 1
    assert errors[0].startswith("branchy: case 2: aba_dq:")
