package emit

// secondOrderOutput is one NV×NV×NV output of a second-order entry point.
type secondOrderOutput struct{ name, doc string }

// emitSecondOrder writes a second-order entry point of grid/algorithms/second_order.cuh, whose state type is
// state (temp elements): the NV³ outputs are written straight to the caller's memory.
func emitSecondOrder(g *gen, name, doc, summary string, outputs []secondOrderOutput, inputs []buffer, state string, temp int) {
	r, w := g.r, g.w
	nv := r.NV
	var outs []buffer
	var docs []string
	for _, o := range outputs {
		outs = append(outs, buffer{name: o.name, size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: o.doc})
		docs = append(docs, "  s_"+o.name+" out: [NV, NV, NV] "+o.doc)
	}
	for _, in := range inputs {
		docs = append(docs, "  s_"+in.name+" in: ["+shapeString(in)+"] "+in.doc)
	}
	g.innerDoc(summary, temp, append(docs,
		"  gravity:   linear gravitational acceleration in world coordinates",
		"[i][a][b] differentiates the first derivative's entry [i][a] along b; q directions are tangent",
		"directions (a free-flyer's body-frame twist [v_lin; ω]). The outputs may be in global memory.",
		"The algorithm is grid/algorithms/second_order.cuh on this robot's description.")...)
	e := &entry{
		name:          name,
		doc:           doc,
		outputs:       outs,
		inputs:        inputs,
		gravity:       true,
		temp:          temp,
		globalOutputs: true,
		algorithm:     name,
		shared:        state,
		directOutputs: true,
		placement:     placement{param: "SCRATCH_IN_SMEM"}, // IDSVA_SO_SCRATCH_IN_SMEM, FDSVA_SO_SCRATCH_IN_SMEM
	}
	emitTemplateInner(w, e)
	g.add(e)
}

// emitIDSVASO writes idsva_so: ∂²τ/∂q², ∂(∂τ/∂qd)/∂q, ∂²τ/∂qd² and ∂M/∂q.
func emitIDSVASO(g *gen) {
	if g.omit("idsva_so") {
		return
	}
	r := g.r
	emitSecondOrder(g, "idsva_so",
		"Second-order derivatives of inverse dynamics (d2tau_dq2, d2tau_dqdqd, d2tau_dqd2) and the derivative of the mass matrix (dM_dq), NV x NV x NV each.",
		"Second-order derivatives of inverse dynamics τ = RNEA(q, qd, qdd) and the derivative of M(q).",
		[]secondOrderOutput{
			{"d2tau_dq2", "∂²τ/∂q²: [i][a][b] = ∂(∂τ_i/∂θ_a)/∂θ_b"},
			{"d2tau_dqdqd", "∂²τ/∂qd∂q: [i][a][b] = ∂(∂τ_i/∂qd_a)/∂θ_b"},
			{"d2tau_dqd2", "∂²τ/∂qd²: [i][a][b] = ∂²τ_i/∂qd_a∂qd_b"},
			{"dM_dq", "∂M/∂q: [i][j][b] = ∂M_ij/∂θ_b"},
		},
		stateInputs(r),
		// every direction runs in its thread's own memory: sizeof(SecondOrderState) is one element
		"SecondOrderState", 1)
}

// emitFDSVASO writes fdsva_so: ∂²qdd/∂q², ∂(∂qdd/∂qd)/∂q, ∂²qdd/∂qd² and ∂M⁻¹/∂q at fixed τ.
func emitFDSVASO(g *gen) {
	if g.omit("fdsva_so") {
		return
	}
	r := g.r
	emitSecondOrder(g, "fdsva_so",
		"Second-order derivatives of forward dynamics (d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2) and dMinv_dq = d2qdd/dtau dq, NV x NV x NV each.",
		"Second-order derivatives of forward dynamics qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)).",
		[]secondOrderOutput{
			{"d2qdd_dq2", "∂²qdd/∂q²: [i][a][b] = ∂(∂qdd_i/∂θ_a)/∂θ_b"},
			{"d2qdd_dqdqd", "∂²qdd/∂qd∂q: [i][a][b] = ∂(∂qdd_i/∂qd_a)/∂θ_b"},
			{"d2qdd_dqd2", "∂²qdd/∂qd²: [i][a][b] = ∂²qdd_i/∂qd_a∂qd_b"},
			{"dMinv_dq", "∂²qdd/∂τ∂q = ∂M⁻¹/∂q: [i][j][b] = ∂M⁻¹_ij/∂θ_b"},
		},
		[]buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: r.NV, doc: "velocity"},
			{name: "tau", size: r.NV, doc: "joint efforts"},
		},
		// FdsvaState: ∂qdd/∂q, ∂qdd/∂qd and M⁻¹, then forward_dynamics_gradient's state
		"FdsvaState", 3*r.NV*r.NV+g.entry("forward_dynamics_gradient").temp)
}
