package emit

// emitFrameJacobian writes frame_jacobian, grid/algorithms/jacobian.cuh: the world-aligned Jacobian of one
// frame, rows [ω; v] (the frame's angular velocity and the velocity of its origin, in world coordinates),
// one column per velocity coordinate.
func emitFrameJacobian(g *gen) {
	r, w := g.r, g.w
	temp := 12 * len(r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	g.innerDoc("World-aligned Jacobian of one frame at configuration s_q: J·qd = [ω; v], the frame's angular", temp,
		"velocity and the velocity of its origin, both in world coordinates.",
		"  s_J   out: [6, NV] row-major (row r, column c at r·NV + c); zero outside the frame's ancestors",
		"  s_q   in:  [NQ] configuration",
		"  frame:     frame index, 0 <= frame < NF; a frame attached to the world has J = 0",
		"The algorithm is grid/algorithms/jacobian.cuh on this robot's description.")
	e := &entry{
		name:          "frame_jacobian",
		doc:           "World-aligned frame Jacobian: rows [omega; v] of the frame's angular velocity and origin velocity in world coordinates.",
		outputs:       []buffer{{name: "J", size: 6 * r.NV, shape: []int{6, r.NV}, doc: "Jacobian, rows [omega; v]"}},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		frame:         true,
		temp:          temp,
		algorithm:     "frame_jacobian",
		shared:        "KinematicsState",
		directOutputs: true,
	}
	emitTemplateInner(w, e)
	g.add(e)
}

// emitEndEffectorPoseGradient writes end_effector_pose_gradient, grid/algorithms/jacobian.cuh: the
// world-aligned Jacobian of every frame, which is the derivative of every frame pose of frame_poses: with
// J = [J_ω; J_v] and a tangent direction δ, δpos = J_v·δ and δR = [J_ω·δ]× R.
func emitEndEffectorPoseGradient(g *gen) {
	r, w := g.r, g.w
	nf := len(r.Frames)
	temp := 12 * len(r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	g.innerDoc("Derivatives of every frame pose: the world-aligned Jacobian of each frame at s_q.", temp,
		"  s_J   out: [NF, 6, NV] row-major; frame f's rows [ω; v] (angular velocity and origin velocity in world",
		"             coordinates per unit of each tangent coordinate); zero outside the frame's ancestors",
		"  s_q   in:  [NQ] configuration",
		"The algorithm is grid/algorithms/jacobian.cuh on this robot's description.")
	e := &entry{
		name:          "end_effector_pose_gradient",
		doc:           "Derivatives of every frame pose: world-aligned Jacobians, rows [omega; v], of all frames.",
		outputs:       []buffer{{name: "J", size: nf * 6 * r.NV, shape: []int{nf, 6, r.NV}, doc: "Jacobians of all frames, rows [omega; v]"}},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:          temp,
		algorithm:     "end_effector_pose_gradient",
		shared:        "KinematicsState",
		directOutputs: true,
		// each body's frames are final once its pose is known (kinematics.cuh's report_frames_final)
		finalRows: rowsInOrder,
	}
	emitTemplateInner(w, e)
	g.add(e)
}

// emitEndEffectorPoseHessian writes end_effector_pose_hessian, grid/algorithms/jacobian.cuh: the derivative
// of one frame's world-aligned Jacobian along every tangent direction, the second-order kinematics of its
// pose. With J's columns [ω_c; v_c] taken at the frame origin, moving along column k turns the columns of
// its joint and the joints below by J_k × (a spatial cross product) and moves the origin by v_k, which
// leaves ∂J_c/∂θ_k = [ω_k × ω_c; ω_k × v_c] when k's joint is c's or one of its ancestors, and
// [0; ω_c × v_k] otherwise.
func emitEndEffectorPoseHessian(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	// sizeof(algorithms::JacobianDerivativeState) in elements, checked by a static_assert: the body poses
	// and the frame's Jacobian
	temp := 12*len(r.Joints) + 6*nv
	g.innerDoc("Derivative of one frame's world-aligned Jacobian along every tangent direction.", temp,
		"  s_H   out: [6, NV, NV] row-major: s_H[(r·NV + c)·NV + k] = ∂J[r][c]/∂θ_k, θ_k a tangent direction",
		"             of q (free-flyer: its body-frame twist, as the velocity)",
		"  s_q   in:  [NQ] configuration",
		"  frame:     frame index, 0 <= frame < NF",
		"The algorithm is grid/algorithms/jacobian.cuh on this robot's description.")
	e := &entry{
		name: "end_effector_pose_hessian",
		doc:  "Second-order kinematics of one frame: the derivative of its world-aligned Jacobian along every tangent direction.",
		outputs: []buffer{{name: "H", size: 6 * nv * nv, shape: []int{6, nv, nv},
			doc: "H[r][c][k] = dJ[r][c]/dtheta_k, J's rows [omega; v]"}},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		frame:         true,
		temp:          temp,
		algorithm:     "end_effector_pose_hessian",
		shared:        "JacobianDerivativeState",
		directOutputs: true,
	}
	emitTemplateInner(w, e)
	g.add(e)
}
