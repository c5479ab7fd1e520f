"""The Pinocchio references: stored ones round-trip exactly, stale ones are refused, and in reference
mode (GRID_RBD_REFERENCE_DIR) Pinocchio is never imported."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import refdata


def _same(a: refdata.Reference, b: refdata.Reference) -> None:
    assert (a.nq, a.nv, a.joint_names, a.frame_names) == (b.nq, b.nv, b.joint_names, b.frame_names)
    for group in ("inputs", "outputs", "limits"):
        ga, gb = getattr(a, group), getattr(b, group)
        assert sorted(ga) == sorted(gb), group
        for k in ga:
            np.testing.assert_array_equal(ga[k], gb[k], err_msg=f"{group}[{k}]")


def test_reference_source(reference, tmp_path):
    """Reference mode: no Pinocchio in the process. Otherwise: a written reference loads back unchanged."""
    if refdata.reference_dir() is not None:
        for name in refdata.robot_names():
            reference(name)  # every stored reference loads and matches the roster
        assert "pinocchio" not in sys.modules, "Pinocchio was imported in reference mode"
        return
    for name in ("iiwa", "go2", "erd_panda"):
        ref = reference(name)
        refdata.save(ref, tmp_path / f"{name}.npz")
        _same(ref, refdata.load(ref.robot, tmp_path))
    assert "pinocchio" in sys.modules  # the live references came from it


@pytest.mark.parametrize("field", ["seed", "free_flyer", "urdf"])
def test_stale_reference_is_refused(field, reference, tmp_path):
    ref = reference("go2")
    refdata.save(ref, tmp_path / "go2.npz")
    change = {"seed": ref.robot.seed + 1, "free_flyer": not ref.robot.free_flyer, "urdf": "shared:other.urdf"}
    other = dataclasses.replace(ref.robot, **{field: change[field]})
    with pytest.raises(ValueError, match="stale"):
        refdata.load(other, tmp_path)


def test_missing_reference_names_the_fix(tmp_path):
    robot = refdata.robot_set()[0]
    with pytest.raises(FileNotFoundError, match="make_reference.py"):
        refdata.load(robot, tmp_path)
