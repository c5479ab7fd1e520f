package emit

// emitFDSVASO writes fdsva_so_inner and its ladder: the second-order derivatives of forward dynamics
// qdd = FD(q, qd, τ). Differentiating RNEA(q, qd, qdd(q, qd)) = τ twice, with F_x = ∂qdd/∂x (first order) and
// ID_ab the second-order RNEA derivatives at (q, qd, qdd):
//
//	∂_b∂_a qdd = −M⁻¹ (ID_ab + ∂M/∂θ_a · F_b + ∂M/∂x_b · F_a)
//
// where ∂M/∂θ_a enters only for a configuration direction a and ∂M/∂x_b only for a configuration direction
// b (M does not depend on qd). The derivative of ∂qdd/∂τ = M⁻¹ is ∂M⁻¹/∂θ_b = −M⁻¹ (∂M/∂θ_b) M⁻¹.
func emitFDSVASO(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	innerTemp := max(g.entryTemp("bias_forces"), g.entryTemp("minv"), g.entryTemp("inverse_dynamics_gradient"),
		g.entryTemp("idsva_so"), 2*nv*nv)
	var a arena
	sMinv := a.alloc("s_Minv", nv*nv, "M⁻¹")
	sU := a.alloc("s_u", nv, "bias forces, then τ − bias")
	sQdd := a.alloc("s_qdd", nv, "joint accelerations")
	sFq := a.alloc("s_Fq", nv*nv, "∂qdd/∂q")
	sFqd := a.alloc("s_Fqd", nv*nv, "∂qdd/∂qd")
	sInner := a.alloc("s_inner", innerTemp, "scratch of the inners called in turn")

	outs := []buffer{
		{name: "d2qdd_dq2", size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: "∂²qdd/∂q²: [i][a][b] = ∂(∂qdd_i/∂θ_a)/∂θ_b"},
		{name: "d2qdd_dqdqd", size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: "∂²qdd/∂qd∂q: [i][a][b] = ∂(∂qdd_i/∂qd_a)/∂θ_b"},
		{name: "d2qdd_dqd2", size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: "∂²qdd/∂qd²: [i][a][b] = ∂²qdd_i/∂qd_a∂qd_b"},
		{name: "dMinv_dq", size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: "∂²qdd/∂τ∂q = ∂M⁻¹/∂q: [i][j][b] = ∂M⁻¹_ij/∂θ_b"},
	}
	docs := []string{}
	for _, o := range outs {
		docs = append(docs, "  s_"+o.name+" out: [NV, NV, NV] "+o.doc)
	}
	g.innerDoc("Second-order derivatives of forward dynamics qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)).", a.size,
		append(docs,
			"  s_q   in:  [NQ] configuration",
			"  s_qd  in:  [NV] velocity",
			"  s_tau in:  [NV] joint efforts",
			"  gravity:   linear gravitational acceleration in world coordinates",
			"θ are tangent directions of q, as in idsva_so_inner; the outputs may be in global memory.")...)
	w.line("constexpr int FDSVA_SO_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void fdsva_so_inner(T* s_d2qdd_dq2, T* s_d2qdd_dqdqd, T* s_d2qdd_dqd2, T* s_dMinv_dq, const T* s_q, const T* s_qd, const T* s_tau, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		g.emitForwardDynamicsFirstOrder(fdFirstOrder{u: sU, qdd: sQdd, minv: sMinv, dq: sFq, dqd: sFqd, scratch: sInner})
		w.comment("second-order RNEA derivatives and ∂M/∂q at (q, qd, qdd), into the outputs")
		w.line("idsva_so_inner<T>(s_d2qdd_dq2, s_d2qdd_dqdqd, s_d2qdd_dqd2, s_dMinv_dq, s_q, s_qd, %s, %s, gravity);", sQdd, sInner)
		w.comment("add the ∂M terms: [i][a][b] += ∂M_ij/∂θ_a F_jb + ∂M_ij/∂θ_b F_ja (q, q) and ∂M_ij/∂θ_b Fqd_ja (qd, q)")
		w.blockStride("e", nv*nv*nv, func() {
			w.line("const int i = int(e) / (NV * NV);")
			w.line("const int ca = (int(e) / NV) %% NV;")
			w.line("const int cb = int(e) %% NV;")
			w.line("const T* dM = s_dMinv_dq + i * NV * NV;")
			w.line("T qq = T(0), vq = T(0);")
			w.block("for (int j = 0; j < NV; ++j)", func() {
				w.line("qq += dM[j * NV + ca] * %s[j * NV + cb] + dM[j * NV + cb] * %s[j * NV + ca];", sFq, sFq)
				w.line("vq += dM[j * NV + cb] * %s[j * NV + ca];", sFqd)
			})
			w.line("s_d2qdd_dq2[e] += qq;")
			w.line("s_d2qdd_dqdqd[e] += vq;")
		})
		w.sync()
		w.comment("columns: [·][a][b] ← −M⁻¹ [·][a][b] for the three second derivatives, M⁻¹ ∂M[·][j][b] for the last")
		w.blockStride("e", 4*nv*nv, func() {
			w.line("T* outs[4] = {s_d2qdd_dq2, s_d2qdd_dqdqd, s_d2qdd_dqd2, s_dMinv_dq};")
			w.line("T* out = outs[int(e) / (NV * NV)] + int(e) %% (NV * NV);")
			w.line("const T sign = int(e) < 3 * NV * NV ? T(-1) : T(1);")
			w.line("T col[NV];")
			w.line("for (int i = 0; i < NV; ++i) col[i] = out[i * NV * NV];")
			w.block("for (int i = 0; i < NV; ++i)", func() {
				w.line("T s = T(0);")
				w.line("for (int j = 0; j < NV; ++j) s += %s[i * NV + j] * col[j];", sMinv)
				w.line("out[i * NV * NV] = sign * s;")
			})
		})
		w.sync()
		w.comment("rows of the last: ∂M⁻¹[i][·][b] = −(M⁻¹ ∂M)[i][·][b] M⁻¹")
		w.blockStride("e", nv*nv, func() {
			w.line("const int i = int(e) / NV;")
			w.line("const int cb = int(e) %% NV;")
			w.line("T* out = s_dMinv_dq + i * NV * NV + cb;")
			w.line("T row[NV];")
			w.line("for (int j = 0; j < NV; ++j) row[j] = out[j * NV];")
			w.block("for (int j = 0; j < NV; ++j)", func() {
				w.line("T s = T(0);")
				w.line("for (int k = 0; k < NV; ++k) s += row[k] * %s[k * NV + j];", sMinv)
				w.line("out[j * NV] = -s;")
			})
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "fdsva_so",
		doc:     "Second-order derivatives of forward dynamics (d2qdd_dq2, d2qdd_dqdqd, d2qdd_dqd2) and dMinv_dq = d2qdd/dtau dq, NV x NV x NV each.",
		outputs: outs,
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: nv, doc: "velocity"},
			{name: "tau", size: nv, doc: "joint efforts"},
		},
		gravity:       true,
		inner:         "fdsva_so_inner<T>",
		temp:          a.size,
		globalOutputs: true,
	})
}
