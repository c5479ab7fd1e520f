package emit

// emitMassMatrix writes mass_matrix_inner (the composite rigid-body algorithm, CRBA) and its ladder: the
// joint-space inertia matrix M(q), full and exactly symmetric.
func emitMassMatrix(g *gen) {
	r, w := g.r, g.w
	nb, nv := len(r.Joints), r.NV
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sIc := a.alloc("s_Ic", 10*nb, "composite inertias (10 parameters) in body coordinates")

	// The joint owning each velocity coordinate, for the column phase.
	owner := make([]int, 0, nv)
	for i, j := range r.Joints {
		for k := 0; k < j.Type.NV(); k++ {
			owner = append(owner, i)
		}
	}
	w.comment("Schedule of mass_matrix_inner: the joint that owns each velocity coordinate.")
	w.namespace("crba_sched", func() {
		w.line("GRID_TABLE int coordinate_joint[%d] = {%s};", nv, intList(owner))
	})
	w.blank()

	g.innerDoc("Joint-space inertia matrix (CRBA): s_M = M(q), full and exactly symmetric.", a.size,
		"  s_M out: [NV, NV] mass matrix, row-major",
		"  s_q in:  [NQ] configuration")
	w.line("constexpr int MASS_MATRIX_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void mass_matrix_inner(T* s_M, const T* s_q, T* s_temp)", func() {
		a.declare(w)
		w.comment("entries between joints that are not ancestor and descendant stay zero; composite inertias start",
			"from the body inertias (the transforms below end with the barrier)")
		w.blockStride("k", nv*nv, func() {
			w.line("s_M[k] = T(0);")
		})
		w.blockStride("k", 10*nb, func() {
			w.line("%s[k] = robot::inertia<T>()[k];", sIc)
		})
		g.emitTransforms(sX, "s_q")
		w.comment("composite inertias, deepest parents first: Ic_p += X_cᵀ Ic_c X_c over each parent's children")
		g.forLevels(true, 1, func() {
			w.block("for (int c = robot::child_start[i]; c < robot::child_start[i + 1]; ++c)", func() {
				w.line("const int j = robot::children[c];")
				w.line("glass::thread::spatial_inertia_transform<T, false, true>(%s + 12 * j, %s + 12 * j + 9, %s + 10 * j, %s + 10 * i);", sX, sX, sIc, sIc)
			})
		})
		w.comment("columns: for coordinate c of joint i, F = Ic_i S_i[:, c]; M[i, c] = S_iᵀ F (lower triangle of the",
			"diagonal block, mirrored); then up the ancestors j: F = X_jᵀ F, M[j, c] = M[c, j] = S_jᵀ F.",
			"Every entry has exactly one writer.")
		w.blockStride("c", nv, func() {
			w.line("int i = crba_sched::coordinate_joint[c];")
			w.line("const int vi = robot::v_index[i];")
			w.line("const int ni = joint_nv(robot::kind[i]);")
			w.line("T s[6], f[6], t[6];")
			w.line("joint_subspace_column<T>(robot::kind[i], robot::axis<T>() + 3 * i, int(c) - vi, s);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), %s + 10 * i, s, T(0), f);", sIc)
			w.line("joint_project<T>(robot::kind[i], robot::axis<T>() + 3 * i, f, t);")
			w.block("for (int k = int(c) - vi; k < ni; ++k)", func() {
				w.line("s_M[(vi + k) * NV + c] = t[k];")
				w.line("s_M[c * NV + vi + k] = t[k];")
			})
			w.block("for (int j = robot::parent[i]; j >= 0; i = j, j = robot::parent[j])", func() {
				w.line("glass::thread::force_transform_mul<T, true>(T(1), %s + 12 * i, %s + 12 * i + 9, f, T(0), f);", sX, sX)
				w.line("joint_project<T>(robot::kind[j], robot::axis<T>() + 3 * j, f, t);")
				w.line("const int vj = robot::v_index[j];")
				w.block("for (int k = 0; k < joint_nv(robot::kind[j]); ++k)", func() {
					w.line("s_M[(vj + k) * NV + c] = t[k];")
					w.line("s_M[c * NV + vj + k] = t[k];")
				})
			})
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "mass_matrix",
		doc:     "Joint-space inertia matrix M(q) (CRBA), full and symmetric.",
		outputs: []buffer{{name: "M", size: nv * nv, shape: []int{nv, nv}, doc: "mass matrix"}},
		inputs:  []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		inner:   "mass_matrix_inner<T>",
		temp:    a.size,
	})
}
