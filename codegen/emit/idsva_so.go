package emit

// Second-order derivatives of inverse dynamics by second-order forward-mode differentiation of the RNEA
// recursion. A pair of directions (a, b) follows the first-order terms of each and their mixed term through
// the forward sweep and back; directions are tangent directions of q (a joint's subspace column s, moving
// its transform as X → exp(−θ s×)·X), velocity or acceleration coordinates. With X m the parent quantity
// seen in the body and A = s_a×, B = s_b× for configuration directions at the body's joint,
//
//	∂_a(X m)   = −A·X m + X ∂_a m
//	∂_b∂_a(X m) = A·B·X m − A·X ∂_b m − B·X ∂_a m + X ∂_ab m
//
// and the backward sweep's force transform gets the mirrored terms (s ×* f). ∂_b∂_a τ is the derivative
// of the tangent-space Jacobian column ∂τ/∂θ_a along θ_b; for one-coordinate joints it is symmetric in a
// and b, for a free-flyer's twist it is not.

// idsvaBlocks names the four pair blocks of idsva_so_inner, in output order: the kinds of directions a and
// b and the output each block fills.
var idsvaBlocks = []struct{ a, b, out, doc string }{
	{"Q", "Q", "d2tau_dq2", "∂²τ/∂q²: [i][a][b] = ∂(∂τ_i/∂θ_a)/∂θ_b"},
	{"QD", "Q", "d2tau_dqdqd", "∂²τ/∂qd∂q: [i][a][b] = ∂(∂τ_i/∂qd_a)/∂θ_b"},
	{"QD", "QD", "d2tau_dqd2", "∂²τ/∂qd²: [i][a][b] = ∂²τ_i/∂qd_a∂qd_b"},
	{"QDD", "Q", "dM_dq", "∂M/∂q: [i][j][b] = ∂M_ij/∂θ_b"},
}

// emitIDSVASO writes idsva_so_pair and idsva_so_inner, and the ladder of idsva_so: the second-order
// derivatives of inverse dynamics and the derivative of the mass matrix, NV³ each, written straight to
// global memory.
func emitIDSVASO(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	nv := r.NV
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sVJ := a.alloc("s_vj", 6*nb, "joint velocities S·qd")
	sV := a.alloc("s_v", 6*nb, "body velocities")
	sXA := a.alloc("s_xa", 6*nb, "parent accelerations in body coordinates, X·a_p (a_0 = −g)")
	sA := a.alloc("s_acc", 6*nb, "body accelerations")
	sF := a.alloc("s_f", 6*nb, "subtree forces")

	w.line("/// Direction kinds of idsva_so_pair.")
	w.line("enum SecondOrderDirection : int { DIR_Q = 0, DIR_QD = 1, DIR_QDD = 2 };")
	w.blank()
	w.line("/// One column of a second-order derivative of RNEA: out[i·NV·NV] = ∂_b∂_a τ_i for directions a (kind ka,")
	w.line("/// coordinate ca) and b (kind kb, coordinate cb), from the RNEA pass's per-body quantities. Thread scope;")
	w.line("/// its per-body first- and second-order terms live in the thread's own arrays.")
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void idsva_so_pair(T* out, int kind_a, int ca, int kind_b, int cb, const T* s_X, const T* s_vj, const T* s_v, const T* s_xa, const T* s_f)", func() {
		w.comment("the joints that own the two coordinates and their subspace columns")
		w.line("int ja = 0, jb = 0;")
		w.line("for (int j = 1; j < NB; ++j) { ja = robot::v_index[j] <= ca ? j : ja; jb = robot::v_index[j] <= cb ? j : jb; }")
		w.line("T sa[6], sb[6];")
		w.line("joint_subspace_column<T>(robot::kind[ja], robot::axis<T>() + 3 * ja, ca - robot::v_index[ja], sa);")
		w.line("joint_subspace_column<T>(robot::kind[jb], robot::axis<T>() + 3 * jb, cb - robot::v_index[jb], sb);")
		w.line("T dva[6 * NB], dvb[6 * NB], dvab[6 * NB], daa[6 * NB], dab[6 * NB], daab[6 * NB];")
		w.line("T dfa[6 * NB], dfb[6 * NB], dfab[6 * NB];")
		w.comment("forward sweep, parents first (joint order puts every parent before its children)")
		w.block("for (int i = 0; i < NB; ++i)", func() {
			w.line("const int p = robot::parent[i];")
			w.line("const T* E = s_X + 12 * i;")
			w.line("const T* rr = E + 9;")
			w.line("const T* v = s_v + 6 * i;")
			w.line("const T* vj = s_vj + 6 * i;")
			w.line("const T* xa = s_xa + 6 * i;")
			w.line("const bool qa = i == ja && kind_a == DIR_Q, qb = i == jb && kind_b == DIR_Q;")
			w.line("const bool va = i == ja && kind_a == DIR_QD, vb = i == jb && kind_b == DIR_QD;")
			w.comment("parent terms seen in the body: X·∂v_p, X·∂a_p (zero at the root)")
			w.line("T xva[6] = {}, xvb[6] = {}, xvab[6] = {}, xaa[6] = {}, xab[6] = {}, xaab[6] = {};")
			w.block("if (p >= 0)", func() {
				for _, pair := range [][2]string{{"xva", "dva"}, {"xvb", "dvb"}, {"xvab", "dvab"}, {"xaa", "daa"}, {"xab", "dab"}, {"xaab", "daab"}} {
					w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, %s + 6 * p, T(0), %s);", pair[1], pair[0])
				}
			})
			w.line("T u[6];")
			w.line("for (int k = 0; k < 6; ++k) u[k] = v[k] - vj[k];")
			w.line("T* dvai = dva + 6 * i; T* dvbi = dvb + 6 * i; T* dvabi = dvab + 6 * i;")
			w.line("T* daai = daa + 6 * i; T* dabi = dab + 6 * i; T* daabi = daab + 6 * i;")
			w.line("T t[6];")
			w.comment("velocities")
			w.line("for (int k = 0; k < 6; ++k) { dvai[k] = xva[k] + (va ? sa[k] : T(0)); dvbi[k] = xvb[k] + (vb ? sb[k] : T(0)); dvabi[k] = xvab[k]; }")
			w.line("if (qa) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sa, u, T(1), dvai);")
			w.line("if (qb) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sb, u, T(1), dvbi);")
			w.block("if (qa && qb)", func() {
				w.line("glass::thread::motion_cross_mul<T>(T(1), sb, u, T(0), t);")
				w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), sa, t, T(1), dvabi);")
			})
			w.line("if (qa) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sa, xvb, T(1), dvabi);")
			w.line("if (qb) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sb, xva, T(1), dvabi);")
			w.comment("accelerations")
			w.line("for (int k = 0; k < 6; ++k) { daai[k] = xaa[k] + (i == ja && kind_a == DIR_QDD ? sa[k] : T(0)); dabi[k] = xab[k]; daabi[k] = xaab[k]; }")
			w.line("if (qa) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sa, xa, T(1), daai);")
			w.line("if (qb) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sb, xa, T(1), dabi);")
			w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), dvai, vj, T(1), daai);")
			w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), dvbi, vj, T(1), dabi);")
			w.line("if (va) glass::thread::motion_cross_mul<T, -1, true>(T(1), v, sa, T(1), daai);")
			w.line("if (vb) glass::thread::motion_cross_mul<T, -1, true>(T(1), v, sb, T(1), dabi);")
			w.block("if (qa && qb)", func() {
				w.line("glass::thread::motion_cross_mul<T>(T(1), sb, xa, T(0), t);")
				w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), sa, t, T(1), daabi);")
			})
			w.line("if (qa) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sa, xab, T(1), daabi);")
			w.line("if (qb) glass::thread::motion_cross_mul<T, -1, true>(T(-1), sb, xaa, T(1), daabi);")
			w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), dvabi, vj, T(1), daabi);")
			w.line("if (vb) glass::thread::motion_cross_mul<T, -1, true>(T(1), dvai, sb, T(1), daabi);")
			w.line("if (va) glass::thread::motion_cross_mul<T, -1, true>(T(1), dvbi, sa, T(1), daabi);")
			w.comment("forces: ∂f = I ∂a + ∂v ×* I v + v ×* I ∂v, and the mixed term with both cross terms")
			w.line("const T* pi = robot::inertia<T>() + 10 * i;")
			w.line("T h[6], ha[6], hb[6], hab[6];")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, v, T(0), h);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dvai, T(0), ha);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dvbi, T(0), hb);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dvabi, T(0), hab);")
			w.line("T* dfai = dfa + 6 * i; T* dfbi = dfb + 6 * i; T* dfabi = dfab + 6 * i;")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, daai, T(0), dfai);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), dvai, h, T(1), dfai);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), v, ha, T(1), dfai);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dabi, T(0), dfbi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), dvbi, h, T(1), dfbi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), v, hb, T(1), dfbi);")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, daabi, T(0), dfabi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), dvabi, h, T(1), dfabi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), dvai, hb, T(1), dfabi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), dvbi, ha, T(1), dfabi);")
			w.line("glass::thread::force_cross_mul<T, true>(T(1), v, hab, T(1), dfabi);")
		})
		w.comment("backward sweep, children first: ∂τ_i = S_iᵀ ∂f_i, then the subtree terms pass to the parent",
			"through Xᵀ with the transform's own derivative terms (s ×* f)")
		w.block("for (int i = NB - 1; i >= 0; --i)", func() {
			w.line("const int kind = robot::kind[i];")
			w.line("const int vi = robot::v_index[i];")
			w.line("T* dfai = dfa + 6 * i; T* dfbi = dfb + 6 * i; T* dfabi = dfab + 6 * i;")
			w.line("T tau[6];")
			w.line("joint_project<T>(kind, robot::axis<T>() + 3 * i, dfabi, tau);")
			w.line("for (int k = 0; k < joint_nv(kind); ++k) out[(vi + k) * NV * NV] = tau[k];")
			w.line("const int p = robot::parent[i];")
			w.line("if (p < 0) continue;")
			w.line("const bool qa = i == ja && kind_a == DIR_Q, qb = i == jb && kind_b == DIR_Q;")
			w.line("const T* f = s_f + 6 * i;")
			w.block("if (qa && qb)", func() {
				w.line("T t[6];")
				w.line("glass::thread::force_cross_mul<T>(T(1), sa, f, T(0), t);")
				w.line("glass::thread::force_cross_mul<T, true>(T(1), sb, t, T(1), dfabi);")
			})
			w.line("if (qb) glass::thread::force_cross_mul<T, true>(T(1), sb, dfai, T(1), dfabi);")
			w.line("if (qa) glass::thread::force_cross_mul<T, true>(T(1), sa, dfbi, T(1), dfabi);")
			w.line("if (qa) glass::thread::force_cross_mul<T, true>(T(1), sa, f, T(1), dfai);")
			w.line("if (qb) glass::thread::force_cross_mul<T, true>(T(1), sb, f, T(1), dfbi);")
			w.line("const T* E = s_X + 12 * i;")
			for _, d := range []string{"dfa", "dfb", "dfab"} {
				w.line("glass::thread::force_transform_mul<T, true, true>(T(1), E, E + 9, %si, T(1), %s + 6 * p);", d, d)
			}
		})
	})
	w.blank()

	var outs []buffer
	var docs []string
	for _, blk := range idsvaBlocks {
		outs = append(outs, buffer{name: blk.out, size: nv * nv * nv, shape: []int{nv, nv, nv}, doc: blk.doc})
		docs = append(docs, "  s_"+blk.out+" out: [NV, NV, NV] "+blk.doc)
	}
	g.innerDoc("Second-order derivatives of inverse dynamics τ = RNEA(q, qd, qdd) and the derivative of M(q).", a.size,
		append(docs,
			"  s_q   in:  [NQ] configuration",
			"  s_qd  in:  [NV] velocity",
			"  s_qdd in:  [NV] acceleration",
			"  gravity:   linear gravitational acceleration in world coordinates",
			"θ are tangent directions of q (a free-flyer's body-frame twist, as the velocity). The outputs may be",
			"in global memory; each (a, b) pair is one thread's idsva_so_pair.")...)
	w.line("constexpr int IDSVA_SO_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void idsva_so_inner(T* s_d2tau_dq2, T* s_d2tau_dqdqd, T* s_d2tau_dqd2, T* s_dM_dq, const T* s_q, const T* s_qd, const T* s_qdd, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		g.emitRNEASweeps(rneaSweeps{x: sX, v: sV, a: sA, f: sF, vj: sVJ, xa: sXA, qdd: "true"})
		w.comment("one (a, b) pair per iteration: four blocks of NV·NV pairs")
		w.blockStride("e", 4*nv*nv, func() {
			w.line("const int block = int(e) / (NV * NV);")
			w.line("const int ca = (int(e) / NV) %% NV;")
			w.line("const int cb = int(e) %% NV;")
			w.line("T* outs[4] = {s_d2tau_dq2, s_d2tau_dqdqd, s_d2tau_dqd2, s_dM_dq};")
			w.line("const int kinds_a[4] = {DIR_Q, DIR_QD, DIR_QD, DIR_QDD};")
			w.line("const int kinds_b[4] = {DIR_Q, DIR_Q, DIR_QD, DIR_Q};")
			w.line("idsva_so_pair<T>(outs[block] + ca * NV + cb, kinds_a[block], ca, kinds_b[block], cb, %s, %s, %s, %s, %s);", sX, sVJ, sV, sXA, sF)
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "idsva_so",
		doc:     "Second-order derivatives of inverse dynamics (d2tau_dq2, d2tau_dqdqd, d2tau_dqd2) and the derivative of the mass matrix (dM_dq), NV x NV x NV each.",
		outputs: outs,
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: nv, doc: "velocity"},
			{name: "qdd", size: nv, doc: "acceleration"},
		},
		gravity:       true,
		inner:         "idsva_so_inner<T>",
		temp:          a.size,
		globalOutputs: true,
	})
}
