package emit

// emitABA writes aba_inner, Featherstone's articulated-body algorithm, and its ladder: the forward dynamics
// qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)) in O(n), parallel across the bodies of each BFS level.
func emitABA(g *gen) {
	r, w := g.r, g.w
	temp := 68*len(r.Joints) + 21 // sizeof(algorithms::AbaState) in elements, checked by a static_assert
	g.innerDoc("Articulated-body algorithm: s_qdd = M(q)⁻¹·(s_tau − C(q, qd)·qd − g(q)).", temp,
		"  s_qdd out: [NV] joint accelerations (free-flyer: [a_lin; α] of the base, in the base frame)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts (free-flyer: [f; n] in the base frame)",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"A joint whose articulated inertia is not positive definite yields NaN accelerations.",
		"The algorithm is grid/algorithms/aba.cuh on this robot's description.")
	e := &entry{
		name:    "aba",
		doc:     "Forward dynamics by the articulated-body algorithm: qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)).",
		outputs: []buffer{{name: "qdd", size: r.NV, doc: "joint accelerations"}},
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: r.NV, doc: "velocity"},
			{name: "tau", size: r.NV, doc: "joint efforts"},
		},
		gravity:   true,
		temp:      temp,
		algorithm: "aba",
		shared:    "AbaState",
		limbs:     !g.rolled,
	}
	emitTemplateInner(w, e)
	g.add(e)
}
