package emit

import "github.com/grid-rbd/grid-rbd/codegen/model"

// stateInputs are the inputs of the algorithms on a state and an acceleration (RNEA, the regressor, their
// derivatives): q, qd and qdd.
func stateInputs(r *model.Robot) []buffer {
	return []buffer{
		{name: "q", size: r.NQ, doc: "configuration"},
		{name: "qd", size: r.NV, doc: "velocity"},
		{name: "qdd", size: r.NV, doc: "acceleration"},
	}
}

// emitInverseDynamics writes three entry points of grid/algorithms/rnea.cuh (RNEA): inverse_dynamics
// (τ = M qdd + C qd + g), bias_forces (qdd = 0: C qd + g) and gravity_forces (qd = qdd = 0: g).
func emitInverseDynamics(g *gen) {
	r, w := g.r, g.w
	temp := 39 * len(r.Joints) // sizeof(algorithms::RneaState) in elements, checked by a static_assert
	g.innerDoc("Recursive Newton-Euler inverse dynamics: s_tau = M(q)·qdd + C(q, qd)·qd + g(q).", temp,
		"  s_tau out: [NV] joint efforts (free-flyer: [f; n] in the base frame)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_qdd in:  [NV] acceleration",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"bias_forces_inner (no qdd) and gravity_forces_inner (no qd, qdd) are the same with zeros.",
		"The algorithm is grid/algorithms/rnea.cuh on this robot's description.")
	in := stateInputs(r)
	out := []buffer{{name: "tau", size: r.NV, doc: "joint efforts"}}
	for _, e := range []*entry{{
		name:    "inverse_dynamics",
		doc:     "Inverse dynamics (RNEA): tau = M(q) qdd + C(q, qd) qd + g(q).",
		outputs: out,
		inputs:  in,
	}, {
		name:    "bias_forces",
		doc:     "Bias forces (RNEA with qdd = 0): C(q, qd) qd + g(q).",
		outputs: out,
		inputs:  in[:2],
	}, {
		name:    "gravity_forces",
		doc:     "Generalised gravity (RNEA with qd = qdd = 0): g(q).",
		outputs: out,
		inputs:  in[:1],
	}} {
		e.gravity = true
		e.temp = temp
		e.algorithm = e.name
		e.shared = "RneaState"
		emitTemplateInner(w, e)
		g.add(e)
	}
}
