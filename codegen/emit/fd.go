package emit

// emitForwardDynamics writes forward_dynamics_inner and its ladder: qdd = M(q)⁻¹ (tau − C(q, qd) qd − g(q)),
// from the bias forces (RNEA with qdd = 0), the analytical inverse mass matrix and a matrix-vector product.
// It reuses bias_forces_inner and minv_inner, which run one after the other and so share one scratch region
// as large as the larger of their needs.
func emitForwardDynamics(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	// The inners' scratch sizes, as their emitters recorded them.
	rneaTemp, minvTemp := g.entryTemp("bias_forces"), g.entryTemp("minv")
	var a arena
	sMinv := a.alloc("s_Minv", nv*nv, "M⁻¹")
	sU := a.alloc("s_u", nv, "bias forces, then tau − bias")
	sInner := a.alloc("s_inner", max(rneaTemp, minvTemp), "scratch of bias_forces_inner, then of minv_inner")

	g.innerDoc("Forward dynamics: s_qdd = M(q)⁻¹ (s_tau − C(q, qd)·qd − g(q)).", a.size,
		"  s_qdd out: [NV] joint accelerations (free-flyer: [a_lin; α] in the base frame)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts",
		"  gravity:   linear gravitational acceleration in world coordinates")
	w.line("constexpr int FORWARD_DYNAMICS_INNER_TEMP = %d;", a.size)
	w.line("static_assert(INVERSE_DYNAMICS_INNER_TEMP <= %d && MINV_INNER_TEMP <= %d, \"forward_dynamics scratch\");", a.size-nv*nv-nv, a.size-nv*nv-nv)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void forward_dynamics_inner(T* s_qdd, const T* s_q, const T* s_qd, const T* s_tau, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		w.comment("bias forces (ends with a barrier)")
		w.line("bias_forces_inner<T>(%s, s_q, s_qd, %s, gravity);", sU, sInner)
		w.comment("u = tau − bias; minv_inner neither reads nor writes s_u, and its barriers order this loop before the",
			"product below")
		w.blockStride("k", nv, func() {
			w.line("%s[k] = s_tau[k] - %s[k];", sU, sU)
		})
		w.line("minv_inner<T>(%s, s_q, %s);", sMinv, sInner)
		w.comment("qdd = M⁻¹ u, reading column k of the exactly symmetric M⁻¹ for row k (adjacent threads read adjacent",
			"entries)")
		w.blockStride("k", nv, func() {
			w.line("T s = T(0);")
			w.line("for (int j = 0; j < NV; ++j) s += %s[j * NV + k] * %s[j];", sMinv, sU)
			w.line("s_qdd[k] = s;")
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "forward_dynamics",
		doc:     "Forward dynamics: qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)), through the analytical inverse mass matrix.",
		outputs: []buffer{{name: "qdd", size: nv, doc: "joint accelerations"}},
		inputs: []buffer{{name: "q", size: r.NQ, doc: "configuration"}, {name: "qd", size: nv, doc: "velocity"},
			{name: "tau", size: nv, doc: "joint efforts"}},
		gravity: true,
		inner:   "forward_dynamics_inner<T>",
		temp:    a.size,
	})
}

// entryTemp is the inner scratch size, in elements, of an entry point emitted earlier.
func (g *gen) entryTemp(name string) int {
	for _, e := range g.entries {
		if e.name == name {
			return e.temp
		}
	}
	panic("emit: entry point " + name + " is not emitted before its use")
}
