"""The generated kernel behind each public method: the one place where the two vocabularies meet.

The kernels (grid.cuh's entry points, their XLA FFI targets ``grid_rbd.<robot>.<kernel>`` and the names in
metadata.json) keep the seed system's names, so that a CUDA programmer who includes grid.cuh finds them in
its documentation (``idsva_so``, ``end_effector_pose_gradient``, ``forward_dynamics_gradient``); the handles'
methods follow Pinocchio's and JAX's vocabulary (``inverse_dynamics_second_derivatives``,
``frame_jacobians``, ``forward_dynamics_derivatives``). Both handles and the derivative rules look kernels up
here, by method; ``JaxRobotHandle.kernel_call`` takes a kernel's own name.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["INTEGRATOR_NUMBER", "KERNEL_OF", "forward_dynamics_kernel"]

# public method -> kernel
KERNEL_OF: Mapping[str, str] = MappingProxyType({
    "inverse_dynamics": "inverse_dynamics",
    "bias_forces": "bias_forces",
    "gravity_forces": "gravity_forces",
    "mass_matrix": "mass_matrix",
    "minv": "minv",
    "forward_dynamics": "aba",  # method="aba"; method="minv" runs forward_dynamics (forward_dynamics_kernel)
    "frame_poses": "frame_poses",
    "end_effector_pose": "frame_poses",
    "frame_jacobian": "frame_jacobian",
    "inverse_dynamics_derivatives": "inverse_dynamics_gradient",
    "forward_dynamics_derivatives": "forward_dynamics_gradient",
    "inverse_dynamics_second_derivatives": "idsva_so",
    "forward_dynamics_second_derivatives": "fdsva_so",
    "frame_jacobians": "end_effector_pose_gradient",
    "frame_jacobian_derivatives": "end_effector_pose_hessian",
    "step_derivatives": "integrator_gradient",
    "multi_target_position": "multi_target_position",
    "multi_target_position_derivatives": "multi_target_position_gradient",
    "joint_torque_regressor": "joint_torque_regressor",
})

# integration scheme (JaxRobotHandle.step and .rollout's method=) -> the kernels' number for it
# (grid::algorithms::IntegratorMethod, the handlers' `method` attribute)
INTEGRATOR_NUMBER: Mapping[str, int] = MappingProxyType({"semi_implicit": 0, "rk4": 1})


def forward_dynamics_kernel(method: str) -> str:
    """The kernel of ``forward_dynamics(..., method=...)``: ABA, or M⁻¹ times the effort minus the bias.

    Raises:
      ValueError: an unknown method.
    """
    if method == "aba":
        return KERNEL_OF["forward_dynamics"]
    if method == "minv":
        return "forward_dynamics"
    raise ValueError(f"method must be 'aba' or 'minv'; got {method!r}")
