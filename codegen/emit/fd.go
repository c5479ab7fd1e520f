package emit

// emitForwardDynamics writes forward_dynamics_inner and its ladder: qdd = M(q)⁻¹ (tau − C(q, qd) qd − g(q)),
// from the bias forces (RNEA with qdd = 0), the analytical inverse mass matrix and a matrix-vector product
// (grid/algorithms/fd.cuh).
func emitForwardDynamics(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	// sizeof(algorithms::ForwardDynamicsState): M⁻¹, u, one region for the RNEA state and M⁻¹'s per-body state,
	// which are live one after the other, then M⁻¹'s F-region.
	minv := g.entry("minv")
	fRegion := minv.placement.split.regionSize
	temp := nv*nv + nv + max(g.entry("bias_forces").temp, minv.temp-fRegion) + fRegion
	g.innerDoc("Forward dynamics: s_qdd = M(q)⁻¹ (s_tau − C(q, qd)·qd − g(q)).", temp,
		"  s_qdd out: [NV] joint accelerations (free-flyer: [a_lin; α] in the base frame)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"The algorithm is grid/algorithms/fd.cuh on this robot's description. Its placement parameter",
		"MINV_F_IN_SMEM places M⁻¹'s F-region only; the rest stays in s_temp.")
	e := &entry{
		name:    "forward_dynamics",
		doc:     "Forward dynamics: qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)), through the analytical inverse mass matrix.",
		outputs: []buffer{{name: "qdd", size: nv, doc: "joint accelerations"}},
		inputs: []buffer{{name: "q", size: r.NQ, doc: "configuration"}, {name: "qd", size: nv, doc: "velocity"},
			{name: "tau", size: nv, doc: "joint efforts"}},
		gravity:   true,
		temp:      temp,
		algorithm: "forward_dynamics",
		shared:    "ForwardDynamicsState",
		// the seed system's FD_INNER_*_BYTES<T, MINV_F_IN_SMEM> and FD_MINV_F_IN_SMEM<T, TIER>
		placement: placement{param: "MINV_F_IN_SMEM", split: &scratchSplit{
			bodies: "ForwardDynamicsBodies", region: "Spatial<T>", regionSize: fRegion}},
	}
	emitTemplateInner(w, e)
	g.add(e)
}

// entry is an entry point emitted earlier.
func (g *gen) entry(name string) *entry {
	for _, e := range g.entries {
		if e.name == name {
			return e
		}
	}
	panic("emit: entry point " + name + " is not emitted before its use")
}
