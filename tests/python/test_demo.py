"""The README's main job, small: trajectory optimisation through differentiable rollouts lowers the loss."""

from __future__ import annotations

import pytest

from grid_rbd import demo


def test_trajectory_optimisation_lowers_the_loss(capsys):
    code = demo.main(["--robot", "iiwa", "--batch", "2", "--horizon", "20", "--iterations", "10", "--plot", ""])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "mean loss" in out and "final distance to target" in out, out


def test_policy_learning_improves_held_out_tasks(capsys):
    """The second example: a feedback policy trained through fused rollouts, one per control interval."""
    from grid_rbd import policy

    code = policy.main(["--robot", "iiwa", "--batch", "4", "--horizon", "30", "--iterations", "15"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "held-out final error" in out, out


def test_policy_refuses_a_hold_that_does_not_divide_the_horizon(capsys):
    from grid_rbd import policy

    with pytest.raises(SystemExit):
        policy.main(["--robot", "iiwa", "--horizon", "30", "--hold", "7"])
    assert "--hold must be at least 1 and divide --horizon (30); got 7" in capsys.readouterr().err


def test_system_identification_recovers_the_masses(capsys):
    """The third example: perturbed link masses from simulated torques by least squares on the regressor."""
    from grid_rbd import sysid

    code = sysid.main(["--robot", "iiwa", "--samples", "8"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "worst relative mass error" in out, out


def test_system_identification_refuses_a_perturbation_that_could_zero_a_mass(capsys):
    from grid_rbd import sysid

    with pytest.raises(SystemExit):
        sysid.main(["--robot", "iiwa", "--perturbation", "1.5"])
    assert "--perturbation must be in [0, 1)" in capsys.readouterr().err
