package emit

// emitIntegrator writes integrator: one time step of semi-implicit Euler or RK4 (the int method parameter,
// grid::algorithms::IntegratorMethod) from (q, qd) under efforts u held over the step dt, free-flyers moved on
// the manifold (grid/algorithms/integrator.cuh).
func emitIntegrator(g *gen) {
	r := g.r
	// sizeof(algorithms::IntegratorState): five NV arrays, the stage configuration, then the ABA state
	temp := 5*r.NV + r.NQ + g.entry("aba").temp
	g.innerDoc("One time step of forward dynamics: (s_q_next, s_qd_next) from (s_q, s_qd) under s_u held over s_dt[0].", temp,
		"  s_q_next  out: [NQ] configuration after the step",
		"  s_qd_next out: [NV] velocity after the step",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_u   in:  [NV] joint efforts, held over the step",
		"  s_dt  in:  [1] the time step",
		"  method:    0 semi-implicit Euler (qd₁ = qd + dt·qdd, q₁ = q ⊕ dt·qd₁), 1 classical RK4",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"q ⊕ v moves a free-flyer by the exponential of its body twist (Pinocchio's integrate).",
		"The algorithm is grid/algorithms/integrator.cuh on this robot's description.")
	e := &entry{
		name: "integrator",
		doc:  "One time step (semi-implicit Euler or RK4) of the forward dynamics under efforts held over the step.",
		outputs: []buffer{
			{name: "q_next", size: r.NQ, doc: "configuration after the step"},
			{name: "qd_next", size: r.NV, doc: "velocity after the step"},
		},
		inputs:    integratorInputs(g),
		method:    true,
		gravity:   true,
		temp:      temp,
		algorithm: "integrator",
		shared:    "IntegratorState",
	}
	emitTemplateInner(g.w, e)
	g.add(e)
}

// emitIntegratorGradient writes integrator_gradient: the step and its Jacobians in tangent coordinates, one
// dual-number run of the step per direction of (θ, qd, u).
func emitIntegratorGradient(g *gen) {
	if g.omit("integrator_gradient") {
		return
	}
	r := g.r
	nv, nx := r.NV, 2*r.NV
	const temp = 1 // sizeof(algorithms::IntegratorGradientState): each direction runs in its thread's registers
	g.innerDoc("One time step and its Jacobians in tangent coordinates x = (θ, qd), θ the tangent of q (q ⊕ θ).", temp,
		"  s_q_next    out: [NQ] configuration after the step",
		"  s_qd_next   out: [NV] velocity after the step",
		"  s_dxnext_dx out: [2NV×2NV] ∂(θ₁, qd₁)/∂(θ, qd), row-major; θ₁ is the tangent at q_next",
		"  s_dxnext_du out: [2NV×NV] ∂(θ₁, qd₁)/∂u",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_u   in:  [NV] joint efforts, held over the step",
		"  s_dt  in:  [1] the time step",
		"  method:    0 semi-implicit Euler, 1 classical RK4",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"Each of the 3·NV columns is one dual-number run of the step, a column per thread of the group.",
		"The algorithm is grid/algorithms/integrator.cuh on this robot's description.")
	e := &entry{
		name: "integrator_gradient",
		doc:  "One time step and its Jacobians in tangent coordinates: dxnext_dx = ∂(θ₁, qd₁)/∂(θ, qd), dxnext_du = ∂(θ₁, qd₁)/∂u.",
		outputs: []buffer{
			{name: "q_next", size: r.NQ, doc: "configuration after the step"},
			{name: "qd_next", size: nv, doc: "velocity after the step"},
			{name: "dxnext_dx", size: nx * nx, shape: []int{nx, nx}, doc: "∂(θ₁, qd₁)/∂(θ, qd), row = next-state tangent index, column = state tangent direction"},
			{name: "dxnext_du", size: nx * nv, shape: []int{nx, nv}, doc: "∂(θ₁, qd₁)/∂u, row = next-state tangent index, column = effort"},
		},
		inputs:        integratorInputs(g),
		method:        true,
		gravity:       true,
		temp:          temp,
		algorithm:     "integrator_gradient",
		shared:        "IntegratorGradientState",
		directOutputs: true,
	}
	emitTemplateInner(g.w, e)
	g.add(e)
}

func integratorInputs(g *gen) []buffer {
	return []buffer{
		{name: "q", size: g.r.NQ, doc: "configuration"},
		{name: "qd", size: g.r.NV, doc: "velocity"},
		{name: "u", size: g.r.NV, doc: "joint efforts, held over the step"},
		{name: "dt", size: 1, doc: "the time step"},
	}
}
