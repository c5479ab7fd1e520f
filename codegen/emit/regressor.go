package emit

// emitJointTorqueRegressor writes joint_torque_regressor, grid/algorithms/regressor.cuh: the matrix Y(q, qd,
// qdd) with τ = Y·π for the bodies' inertial parameters π (Pinocchio's computeJointTorqueRegressor).
func emitJointTorqueRegressor(g *gen) {
	r := g.r
	nv, np := r.NV, 10*len(r.Joints)
	temp := 27 * len(r.Joints) // sizeof(algorithms::RneaMotionState) in elements, checked by a static_assert
	g.innerDoc("Joint-torque regressor: s_Y with τ = s_Y·π, π the bodies' inertial parameters.", temp,
		"  s_Y   out: [NV, 10·NB] row-major; column 10·i + k is parameter k of body i, Pinocchio's",
		"             [m, m·cx, m·cy, m·cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] (inertia about the body origin)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_qdd in:  [NV] acceleration",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"The output may be in global memory.",
		"The algorithm is grid/algorithms/regressor.cuh on this robot's description.")
	e := &entry{
		name:    "joint_torque_regressor",
		doc:     "Joint-torque regressor Y(q, qd, qdd): tau = Y pi for the bodies' inertial parameters pi (10 per body).",
		outputs: []buffer{{name: "Y", size: nv * np, shape: []int{nv, np}, doc: "regressor, column 10 i + k: parameter k of body i"}},
		inputs:  stateInputs(r),
		gravity: true,
		temp:    temp,
		// NV·10·NB outputs, each written once and never read back: straight to the caller's memory
		globalOutputs: true,
		directOutputs: true,
		algorithm:     "joint_torque_regressor",
		shared:        "RneaMotionState",
	}
	emitTemplateInner(g.w, e)
	g.add(e)
}
