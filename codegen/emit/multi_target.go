package emit

// emitMultiTargetPosition writes multi_target_position, grid/algorithms/multi_target.cuh: the world position
// of every frame (frame_poses' frames and positions, without rotations). A horizon of T states is T samples.
func emitMultiTargetPosition(g *gen) {
	r := g.r
	nf := len(r.Frames)
	temp := 12 * len(r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	g.innerDoc("World positions of every frame at configuration s_q (one state of a horizon).", temp,
		"  s_pos  out: [NF, 3] frame origins in world coordinates",
		"  s_q    in:  [NQ] configuration",
		"The algorithm is grid/algorithms/multi_target.cuh on this robot's description.")
	e := &entry{
		name:          "multi_target_position",
		doc:           "World positions of every frame (each URDF link, fixed-joint links included); a horizon of states is a batch of samples.",
		outputs:       []buffer{{name: "pos", size: 3 * nf, shape: []int{nf, 3}, doc: "frame origins in world coordinates"}},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:          temp,
		algorithm:     "multi_target_position",
		shared:        "KinematicsState",
		directOutputs: true,
	}
	emitTemplateInner(g.w, e)
	g.add(e)
}

// emitMultiTargetPositionGradient writes multi_target_position_gradient, grid/algorithms/multi_target.cuh:
// the derivative of every frame position in tangent coordinates, the linear rows of the frame Jacobians of
// end_effector_pose_gradient.
func emitMultiTargetPositionGradient(g *gen) {
	r := g.r
	nf := len(r.Frames)
	temp := 12 * len(r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	g.innerDoc("Derivatives of every frame position at configuration s_q (one state of a horizon).", temp,
		"  s_dpos out: [NF, 3, NV] row-major: s_dpos[(f·3 + k)·NV + c] = ∂pos[f][k]/∂θ_c, θ the tangent of q",
		"             (free-flyer: its body-frame twist, as the velocity); zero outside the frame's ancestors",
		"  s_q    in:  [NQ] configuration",
		"The algorithm is grid/algorithms/multi_target.cuh on this robot's description.")
	e := &entry{
		name: "multi_target_position_gradient",
		doc:  "Derivatives of every frame position in tangent coordinates: the linear rows of the world-aligned frame Jacobians.",
		outputs: []buffer{{name: "dpos", size: nf * 3 * r.NV, shape: []int{nf, 3, r.NV},
			doc: "dpos[f][k][c] = d pos[f][k] / d theta_c"}},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:          temp,
		algorithm:     "multi_target_position_gradient",
		shared:        "KinematicsState",
		directOutputs: true,
	}
	emitTemplateInner(g.w, e)
	g.add(e)
}
