"""Large random trees and a chain (the roster's "large" robots: 120 and 200 links, built rolled) against Pinocchio.

Derivatives of forward dynamics are held to Pinocchio's own accuracy: both are compared with
X = -M⁻¹·∂τ/∂q (and -M⁻¹·∂τ/∂qd), formed from Pinocchio's M⁻¹ and its RNEA derivatives taken at Pinocchio's
ABA acceleration, and ours may differ from X by at most ten times what Pinocchio's computeABADerivatives
does (or 1e-12 relative, whichever is larger). The discrepancies and cond(M) are printed per sample. The
dynamics themselves (ID, M, M⁻¹, ABA) are checked to tolerances that scale with cond(M).
"""

from __future__ import annotations

import numpy as np
import pytest

import refdata
from conventions import build_model, pinocchio, sample_q, symmetrize_upper, to_pin_q

LARGE = refdata.large_robot_set()
SAMPLES = 3


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


@pytest.fixture(scope="module", params=LARGE, ids=[r.name for r in LARGE])
def case(request, numpy_handle):
    robot = request.param
    handle = numpy_handle(robot.name)
    model = build_model(robot)
    assert handle.nq == model.nq - sum(1 for j in model.joints[1:] if j.nq == 2 and j.nv == 1)
    assert handle.nv == model.nv
    rng = np.random.default_rng(robot.seed)
    states = []
    for _ in range(SAMPLES):
        q = sample_q(model, rng)
        states.append((q, rng.normal(0.0, 1.0, model.nv), rng.normal(0.0, 10.0, model.nv)))
    return robot, handle, model, states


def test_rolled_build_names_missing_kernels(case):
    _, handle, _, states = case
    q, qd, tau = states[0]
    with pytest.raises(NotImplementedError, match="rolled robot"):
        handle.forward_dynamics_second_derivatives(q, qd, tau)


def test_dynamics_match_pinocchio(case):
    _, handle, model, states = case
    pin = pinocchio()
    data = model.createData()
    for q, qd, tau in states:
        qp = to_pin_q(model, q)
        M = symmetrize_upper(pin.crba(model, data, qp).copy())
        cond = np.linalg.cond(M)
        qdd = pin.aba(model, data, qp, qd, tau).copy()
        assert _rel(handle.mass_matrix(q), M) < 1e-12
        assert _rel(handle.inverse_dynamics(q, qd, qdd), pin.rnea(model, data, qp, qd, qdd)) < 1e-11
        assert _rel(handle.minv(q), symmetrize_upper(pin.computeMinverse(model, data, qp).copy())) < 1e-13 * cond
        assert _rel(handle.forward_dynamics(q, qd, tau), qdd) < 1e-13 * cond


@pytest.mark.parametrize("wrt", ["q", "qd"])
def test_forward_dynamics_derivatives_as_accurate_as_pinocchio(case, wrt):
    robot, handle, model, states = case
    pin = pinocchio()
    data = model.createData()
    for s, (q, qd, tau) in enumerate(states):
        qp = to_pin_q(model, q)
        M = symmetrize_upper(pin.crba(model, data, qp).copy())
        minv = symmetrize_upper(pin.computeMinverse(model, data, qp).copy())
        qdd = pin.aba(model, data, qp, qd, tau).copy()
        pin.computeRNEADerivatives(model, data, qp, qd, qdd)
        dtau = (data.dtau_dq if wrt == "q" else data.dtau_dv).copy()
        x = -minv @ dtau
        pin.computeABADerivatives(model, data, qp, qd, tau)
        pin_d = (data.ddq_dq if wrt == "q" else data.ddq_dv).copy()
        dq, dqd, _ = handle.forward_dynamics_derivatives(q, qd, tau)
        ours = dq if wrt == "q" else dqd
        pin_err, our_err = _rel(pin_d, x), _rel(ours, x)
        print(f"{robot.name} sample {s}: cond(M) {np.linalg.cond(M):.3g}; d qdd/d {wrt} differs from "
              f"-M⁻¹·∂τ/∂{wrt} by {our_err:.3g} (Pinocchio's ABA derivatives: {pin_err:.3g})")
        assert our_err <= max(10 * pin_err, 1e-12), (
            f"sample {s}: {our_err:.3g} relative to -M⁻¹·∂τ/∂{wrt}, more than 10× Pinocchio's {pin_err:.3g}")
