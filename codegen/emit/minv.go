package emit

import "fmt"

// levelParityLayout places per-body blocks of the given sizes (elements) so that the blocks of one BFS level
// never overlap the blocks of the adjacent levels: even levels share one buffer, odd levels another. A
// sweep that writes level l while reading level l ± 1 therefore has no conflicts, and the storage is the
// largest even level plus the largest odd level. Bodies of size 0 get offset -1.
func levelParityLayout(levels [][]int, sizes []int) (offsets []int, total int) {
	offsets = make([]int, len(sizes))
	var largest [2]int
	for l, level := range levels {
		n := 0
		for _, i := range level {
			n += sizes[i]
		}
		largest[l%2] = max(largest[l%2], n)
	}
	for l, level := range levels {
		off := 0
		if l%2 == 1 {
			off = largest[0]
		}
		for _, i := range level {
			if sizes[i] == 0 {
				offsets[i] = -1
				continue
			}
			offsets[i] = off
			off += sizes[i]
		}
	}
	return offsets, largest[0] + largest[1]
}

// minvItems lists the (body, column) work items of each level of a minv sweep, level by level, with each
// level's start in the list; cols gives a body's columns.
func minvItems(levels [][]int, cols func(i int) (lo, hi int)) (bodies, columns, start []int) {
	start = []int{0}
	for _, level := range levels {
		for _, i := range level {
			lo, hi := cols(i)
			for c := lo; c < hi; c++ {
				bodies = append(bodies, i)
				columns = append(columns, c)
			}
		}
		start = append(start, len(bodies))
	}
	return bodies, columns, start
}

// emitMinv writes minv_inner and its ladder: M(q)⁻¹ by the direct analytical algorithm (the articulated-body
// algorithm run on unit efforts at zero velocity and zero gravity, every column at once), without
// factorising M. One backward sweep computes articulated inertias, each body's rows of M⁻¹ over its
// subtree's columns and the force blocks F passed to the parents; one forward sweep adds the parents'
// accelerations P. Only the upper triangle (columns from the body's first coordinate on) is formed and
// then mirrored, so the output is exactly symmetric.
//
// Depth-first joint order makes a subtree's velocity columns contiguous, so F_i is stored only for the
// columns of i's descendants and P_i only for the columns from v_index[i] on, at literal offsets that keep
// adjacent levels apart; F (backward) and P (forward) share storage.
func emitMinv(g *gen) {
	r, w := g.r, g.w
	nb, nv := len(r.Joints), r.NV
	nlev := len(r.Levels)
	jnv := func(i int) int { return r.Joints[i].Type.NV() }
	nvSub := make([]int, nb)
	leaf := make([]bool, nb)
	dOff := make([]int, nb)
	fSize, pSize := make([]int, nb), make([]int, nb)
	d := 0
	for i := range r.Joints {
		for _, s := range r.Subtree[i] {
			nvSub[i] += jnv(s)
		}
		leaf[i] = len(r.Subtree[i]) == 1
		dOff[i] = d
		d += jnv(i) * jnv(i)
		fSize[i] = 6 * (nvSub[i] - jnv(i))
		if !leaf[i] {
			pSize[i] = 6 * (nv - r.Joints[i].V)
		}
	}
	iaSize := make([]int, nb)
	for i := range iaSize {
		iaSize[i] = 36
	}
	iaOff, iaTotal := levelParityLayout(r.Levels, iaSize)
	fOff, fTotal := levelParityLayout(r.Levels, fSize)
	pOff, pTotal := levelParityLayout(r.Levels, pSize)
	// Backward items: (child c, column in c's subtree) build F of c's parent; forward items: (body, column
	// from the body's first coordinate on).
	bwdChild, bwdCol, bwdStart := minvItems(r.Levels, func(c int) (int, int) {
		if r.Joints[c].Parent < 0 {
			return 0, 0
		}
		return r.Joints[c].V, r.Joints[c].V + nvSub[c]
	})
	fwdBody, fwdCol, fwdStart := minvItems(r.Levels, func(i int) (int, int) { return r.Joints[i].V, nv })

	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sIa := a.alloc("s_Ia", iaTotal, "articulated inertias (6×6 column-major) at minv_sched::ia_offset[i], then what each passes to its parent")
	sU := a.alloc("s_U", 6*nv, "U_i = Ia_i S_i (6 × nv_i column-major) at 6·v_index[i]")
	sD := a.alloc("s_Dinv", d, "D_i⁻¹ = (S_iᵀ U_i)⁻¹ (nv_i × nv_i column-major) at minv_sched::dinv_offset[i]")
	sFP := a.alloc("s_FP", max(fTotal, pTotal, 1), "F_i (6 × descendant columns, backward), then P_i (6 × columns from v_index[i], forward)")

	w.comment("Schedule of minv_inner: storage offsets per body and the (body, column) work items of each level.")
	w.namespace("minv_sched", func() {
		table := func(name, doc string, v []int) {
			if len(v) == 0 {
				v = []int{-1} // keep the array non-empty; no loop reads it
			}
			w.comment(doc)
			w.line("GRID_TABLE int %s[%d] = {%s};", name, len(v), intList(v))
		}
		table("ia_offset", "offset of Ia_i in s_Ia", iaOff)
		table("dinv_offset", "offset of D_i⁻¹ in s_Dinv", dOff)
		table("f_offset", "offset of F_i in s_FP (column v_index[i] + nv_i first); -1: no descendants", fOff)
		table("p_offset", "offset of P_i in s_FP (column v_index[i] first); -1: no children", pOff)
		table("backward_child", "backward items: child c ...", bwdChild)
		table("backward_column", "... and a column of c's subtree, level by level", bwdCol)
		table("forward_body", "forward items: body i ...", fwdBody)
		table("forward_column", "... and a column >= v_index[i], level by level", fwdCol)
	})
	w.blank()

	g.innerDoc("Inverse of the joint-space inertia matrix by the analytical algorithm: s_Minv = M(q)⁻¹, full and", a.size,
		"exactly symmetric. No factorisation of M: the articulated-body algorithm on unit efforts at qd = 0 and",
		"zero gravity, one backward and one forward sweep over all columns at once.",
		"  s_Minv out: [NV, NV] inverse mass matrix, row-major",
		"  s_q    in:  [NQ] configuration")
	w.line("constexpr int MINV_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void minv_inner(T* s_Minv, const T* s_q, T* s_temp)", func() {
		a.declare(w)
		w.comment("rows start at zero: columns past a body's subtree stay zero until the forward sweep (the",
			"transforms below end with the barrier)")
		w.blockStride("k", nv*nv, func() {
			w.line("s_Minv[k] = T(0);")
		})
		g.emitTransforms(sX, "s_q")

		// Phase writers; each emits one block-stride loop (no barrier).
		bodies := func(l int) {
			start, end := levelRange(r, l)
			w.comment(fmt.Sprintf("level %d bodies: Ia_i = I_i + Σ_c X_cᵀ Ia_c^A X_c; U_i, D_i⁻¹; M⁻¹[i, i] = D_i⁻¹; then", l),
				"Ia_i^A = Ia_i − U_i D_i⁻¹ U_iᵀ for the parent")
			w.blockStride("k", end-start, func() {
				w.line("const int i = robot::level_order[%d + k];", start)
				w.line("const int ni = joint_nv(robot::kind[i]);")
				w.line("const int vi = robot::v_index[i];")
				w.line("T* A = %s + minv_sched::ia_offset[i];", sIa)
				w.line("T* U = %s + 6 * vi;", sU)
				w.line("T* Dinv = %s + minv_sched::dinv_offset[i];", sD)
				w.line("glass::thread::spatial_inertia<T>(robot::inertia<T>() + 10 * i, A);")
				w.block("for (int e = robot::child_start[i]; e < robot::child_start[i + 1]; ++e)", func() {
					w.line("const int c = robot::children[e];")
					w.line("articulated_to_parent<T, true>(%s + 12 * c, %s + 12 * c + 9, %s + minv_sched::ia_offset[c], A);", sX, sX, sIa)
				})
				w.line("joint_articulated_terms<T>(robot::kind[i], robot::axis<T>() + 3 * i, A, U, Dinv);")
				w.block("for (int b = 0; b < ni; ++b)", func() {
					w.line("for (int a = 0; a < ni; ++a) s_Minv[(vi + a) * NV + vi + b] = Dinv[a + ni * b];")
				})
				w.line("if (robot::parent[i] >= 0) articulated_remove_joint<T>(ni, U, Dinv, A);")
			})
		}
		columns := func(l int) {
			start, end := bwdStart[l], bwdStart[l+1]
			if end == start {
				return
			}
			w.comment(fmt.Sprintf("level %d children, per column j of child c's subtree, for its parent i:", l),
				"F_i[:, j] = X_cᵀ (F_c[:, j] + U_c M⁻¹[c, j]);  M⁻¹[i, j] = −D_i⁻¹ S_iᵀ F_i[:, j]")
			w.blockStride("k", end-start, func() {
				w.line("const int c = minv_sched::backward_child[%d + k];", start)
				w.line("const int j = minv_sched::backward_column[%d + k];", start)
				w.line("const int i = robot::parent[c];")
				w.line("const int nc = joint_nv(robot::kind[c]);")
				w.line("const int vc = robot::v_index[c];")
				w.line("const int ni = joint_nv(robot::kind[i]);")
				w.line("const int vi = robot::v_index[i];")
				w.line("T t[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};")
				w.block("if (j >= vc + nc)", func() {
					w.line("const T* Fc = %s + minv_sched::f_offset[c] + 6 * (j - vc - nc);", sFP)
					w.line("for (int e = 0; e < 6; ++e) t[e] = Fc[e];")
				})
				w.block("for (int b = 0; b < nc; ++b)", func() {
					w.line("const T m = s_Minv[(vc + b) * NV + j];")
					w.line("for (int e = 0; e < 6; ++e) t[e] += %s[6 * (vc + b) + e] * m;", sU)
				})
				w.line("T* Fi = %s + minv_sched::f_offset[i] + 6 * (j - vi - ni);", sFP)
				w.line("glass::thread::force_transform_mul<T, true>(T(1), %s + 12 * c, %s + 12 * c + 9, t, T(0), Fi);", sX, sX)
				w.line("T sf[6];")
				w.line("joint_project<T>(robot::kind[i], robot::axis<T>() + 3 * i, Fi, sf);")
				w.line("const T* Dinv = %s + minv_sched::dinv_offset[i];", sD)
				w.block("for (int a = 0; a < ni; ++a)", func() {
					w.line("T s = T(0);")
					w.line("for (int b = 0; b < ni; ++b) s += Dinv[a + ni * b] * sf[b];")
					w.line("s_Minv[(vi + a) * NV + j] = -s;")
				})
			})
		}

		w.comment("backward sweep, deepest level first; level l's bodies run beside the columns of level l + 2's",
			"children, which need only what earlier steps wrote")
		for l := nlev - 1; l >= 0; l-- {
			if l+2 < nlev {
				columns(l + 2)
			}
			bodies(l)
			w.sync()
		}
		if nlev > 1 {
			columns(1)
			w.sync()
		}

		w.comment("forward sweep, root level first, per column j >= v_index[i]:",
			"a = X_i P_p[:, j];  M⁻¹[i, j] −= D_i⁻¹ U_iᵀ a;  P_i[:, j] = a + S_i M⁻¹[i, j] (bodies with children)")
		for l := 0; l < nlev; l++ {
			start, end := fwdStart[l], fwdStart[l+1]
			w.comment(fmt.Sprintf("level %d: %d item(s)", l, end-start))
			w.blockStride("k", end-start, func() {
				w.line("const int i = minv_sched::forward_body[%d + k];", start)
				w.line("const int j = minv_sched::forward_column[%d + k];", start)
				w.line("const int p = robot::parent[i];")
				w.line("const int ni = joint_nv(robot::kind[i]);")
				w.line("const int vi = robot::v_index[i];")
				w.line("T acc[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};")
				w.line("T x[6];")
				w.line("for (int a = 0; a < ni; ++a) x[a] = s_Minv[(vi + a) * NV + j];")
				w.block("if (p >= 0)", func() {
					w.line("const T* Pp = %s + minv_sched::p_offset[p] + 6 * (j - robot::v_index[p]);", sFP)
					w.line("glass::thread::motion_transform_mul<T>(T(1), %s + 12 * i, %s + 12 * i + 9, Pp, T(0), acc);", sX, sX)
					w.line("const T* U = %s + 6 * vi;", sU)
					w.line("const T* Dinv = %s + minv_sched::dinv_offset[i];", sD)
					w.line("T ua[6];")
					w.block("for (int b = 0; b < ni; ++b)", func() {
						w.line("T s = T(0);")
						w.line("for (int e = 0; e < 6; ++e) s += U[6 * b + e] * acc[e];")
						w.line("ua[b] = s;")
					})
					w.block("for (int a = 0; a < ni; ++a)", func() {
						w.line("T s = T(0);")
						w.line("for (int b = 0; b < ni; ++b) s += Dinv[a + ni * b] * ua[b];")
						w.line("x[a] -= s;")
						w.line("s_Minv[(vi + a) * NV + j] = x[a];")
					})
				})
				w.block("if (minv_sched::p_offset[i] >= 0)", func() {
					w.line("T* Pi = %s + minv_sched::p_offset[i] + 6 * (j - vi);", sFP)
					w.line("joint_motion<T, true>(robot::kind[i], robot::axis<T>() + 3 * i, x, acc);")
					w.line("for (int e = 0; e < 6; ++e) Pi[e] = acc[e];")
				})
			})
			w.sync()
		}
		w.comment("mirror the upper triangle into the lower one")
		w.blockStride("k", nv*nv, func() {
			w.line("const uint32_t row = k / NV, col = k %% NV;")
			w.line("if (row > col) s_Minv[k] = s_Minv[col * NV + row];")
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "minv",
		doc:     "Inverse joint-space inertia matrix M(q)⁻¹ (analytical algorithm, no factorisation), full and symmetric.",
		outputs: []buffer{{name: "Minv", size: nv * nv, shape: []int{nv, nv}, doc: "inverse mass matrix"}},
		inputs:  []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		inner:   "minv_inner<T>",
		temp:    a.size,
	})
}
