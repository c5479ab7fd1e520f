package emit

// emitMultiTargetPosition writes multi_target_position, grid/algorithms/multi_target.cuh: the world position
// of every frame (frame_poses' frames and positions, without rotations). A horizon of T states is T samples.
func emitMultiTargetPosition(g *gen) {
	nf := len(g.r.Frames)
	emitMultiTarget(g, &entry{
		name:    "multi_target_position",
		doc:     "World positions of every frame (each URDF link, fixed-joint links included); a horizon of states is a batch of samples.",
		outputs: []buffer{{name: "pos", size: 3 * nf, shape: []int{nf, 3}, doc: "frame origins in world coordinates"}},
	}, "World positions of every frame at configuration s_q (one state of a horizon).",
		"  s_pos  out: [NF, 3] frame origins in world coordinates")
}

// emitMultiTargetPositionGradient writes multi_target_position_gradient, grid/algorithms/multi_target.cuh:
// the derivative of every frame position in tangent coordinates, the linear rows of the frame Jacobians of
// end_effector_pose_gradient.
func emitMultiTargetPositionGradient(g *gen) {
	nf, nv := len(g.r.Frames), g.r.NV
	emitMultiTarget(g, &entry{
		name: "multi_target_position_gradient",
		doc:  "Derivatives of every frame position in tangent coordinates: the linear rows of the world-aligned frame Jacobians.",
		outputs: []buffer{{name: "dpos", size: nf * 3 * nv, shape: []int{nf, 3, nv},
			doc: "dpos[f][k][c] = d pos[f][k] / d theta_c"}},
	}, "Derivatives of every frame position at configuration s_q (one state of a horizon).",
		"  s_dpos out: [NF, 3, NV] row-major: s_dpos[(f·3 + k)·NV + c] = ∂pos[f][k]/∂θ_c, θ the tangent of q",
		"             (free-flyer: its body-frame twist, as the velocity); zero outside the frame's ancestors")
}

// emitMultiTarget completes and writes an entry of grid/algorithms/multi_target.cuh, whose template of the
// same name computes its one output from q over the body poses (KinematicsState).
func emitMultiTarget(g *gen, e *entry, summary string, outputDoc ...string) {
	e.inputs = []buffer{{name: "q", size: g.r.NQ, doc: "configuration"}}
	e.temp = 12 * len(g.r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	e.algorithm, e.shared = e.name, "KinematicsState"
	e.directOutputs = true
	lines := append(outputDoc, "  s_q    in:  [NQ] configuration",
		"The algorithm is grid/algorithms/multi_target.cuh on this robot's description.")
	g.innerDoc(summary, e.temp, lines...)
	emitTemplateInner(g.w, e)
	g.add(e)
}
