package emit

// emitInverseDynamicsGradient writes inverse_dynamics_gradient, the exact derivatives ∂τ/∂q and ∂τ/∂qd of
// RNEA, analytically in world coordinates (grid/algorithms/rnea_gradient.cuh).
func emitInverseDynamicsGradient(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	// sizeof(algorithms::RneaGradientState) in elements, checked by a static_assert: per body a world pose,
	// velocity, acceleration, composite inertia, Coriolis operator and force; per column four 6-vectors.
	temp := 52*len(r.Joints) + 24*nv
	g.innerDoc("Derivatives of inverse dynamics: s_dtau_dq = ∂τ/∂q and s_dtau_dqd = ∂τ/∂qd of τ = RNEA(q, qd, qdd).", temp,
		"  s_dtau_dq  out: [NV×NV] row-major, row = τ index, column = tangent direction of q (free-flyer:",
		"                  its body-frame twist [v_lin; ω], as the velocity)",
		"  s_dtau_dqd out: [NV×NV] row-major, row = τ index, column = velocity coordinate",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_qdd in:  [NV] acceleration",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"The algorithm is grid/algorithms/rnea_gradient.cuh on this robot's description.")
	shape := []int{nv, nv}
	e := &entry{
		name: "inverse_dynamics_gradient",
		doc:  "Derivatives of inverse dynamics: dtau_dq = ∂τ/∂q and dtau_dqd = ∂τ/∂qd of τ = RNEA(q, qd, qdd).",
		outputs: []buffer{
			{name: "dtau_dq", size: nv * nv, shape: shape, doc: "∂τ/∂q, row = τ index, column = tangent direction"},
			{name: "dtau_dqd", size: nv * nv, shape: shape, doc: "∂τ/∂qd, row = τ index, column = velocity coordinate"},
		},
		inputs:    stateInputs(r),
		gravity:   true,
		temp:      temp,
		algorithm: "inverse_dynamics_gradient",
		shared:    "RneaGradientState",
		// every element is written once, straight from the template
		directOutputs: true,
		// the rows of both complete one body at a time (rnea_gradient.cuh's rows_final)
		finalRows: rowsLastFirst,
		limbs:     !g.rolled,
	}
	emitTemplateInner(w, e)
	g.add(e)
}
