"""The README's main job, small: trajectory optimisation through differentiable rollouts lowers the loss."""

from __future__ import annotations

from grid_rbd import demo


def test_trajectory_optimisation_lowers_the_loss(capsys):
    code = demo.main(["--robot", "iiwa", "--batch", "2", "--horizon", "20", "--iterations", "10", "--plot", ""])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "mean loss" in out and "final distance to target" in out, out


def test_policy_learning_improves_held_out_tasks(capsys):
    """The second example: a feedback policy trained through rollouts with it as the controller."""
    from grid_rbd import policy

    code = policy.main(["--robot", "iiwa", "--batch", "4", "--horizon", "30", "--iterations", "15"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "held-out final error" in out, out
