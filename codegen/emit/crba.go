package emit

// emitMassMatrix writes mass_matrix_inner, the composite rigid-body algorithm (CRBA), and its ladder: the
// joint-space inertia matrix M(q), full and exactly symmetric.
func emitMassMatrix(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	temp := 42 * len(r.Joints) // sizeof(algorithms::CrbaState) in elements, checked by a static_assert
	g.innerDoc("Joint-space inertia matrix (CRBA): s_M = M(q), full and exactly symmetric.", temp,
		"  s_M out: [NV, NV] mass matrix, row-major",
		"  s_q in:  [NQ] configuration",
		"The algorithm is grid/algorithms/crba.cuh on this robot's description.")
	e := &entry{
		name:    "mass_matrix",
		doc:     "Joint-space inertia matrix M(q) (CRBA), full and symmetric.",
		outputs: []buffer{{name: "M", size: nv * nv, shape: []int{nv, nv}, doc: "mass matrix"}},
		inputs:  []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:    temp,
		// every element of M is written once and never read back
		directOutputs: true,
		// the rows of M complete one body at a time (crba.cuh's rows_final)
		finalRows: rowsLastFirst,
		algorithm: "mass_matrix",
		shared:    "CrbaState",
	}
	emitTemplateInner(w, e)
	g.add(e)
}
