package emit

// emitForwardDynamicsGradient writes forward_dynamics_gradient_inner and its ladder: the derivatives of
// qdd = FD(q, qd, τ). Differentiating M(q)·qdd + b(q, qd) = τ at the solution gives
// ∂qdd/∂q = −M⁻¹·∂τ/∂q and ∂qdd/∂qd = −M⁻¹·∂τ/∂qd, with ∂τ from inverse_dynamics_gradient_inner at
// (q, qd, qdd), and ∂qdd/∂τ = M⁻¹, which it returns too.
func emitForwardDynamicsGradient(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	rneaTemp, minvTemp, gradTemp := g.entryTemp("bias_forces"), g.entryTemp("minv"), g.entryTemp("inverse_dynamics_gradient")
	var a arena
	sU := a.alloc("s_u", nv, "bias forces, then tau − bias")
	sQdd := a.alloc("s_qdd", nv, "joint accelerations")
	sInner := a.alloc("s_inner", max(rneaTemp, minvTemp, gradTemp, 2*nv*nv),
		"scratch of the inners called in turn, then −M⁻¹·∂τ before it is copied to the outputs")

	g.innerDoc("Derivatives of forward dynamics qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)).", a.size,
		"  s_dqdd_dq  out: [NV×NV] ∂qdd/∂q, row-major, column = tangent direction of q (free-flyer: its",
		"                  body-frame twist [v_lin; ω], as the velocity)",
		"  s_dqdd_dqd out: [NV×NV] ∂qdd/∂qd",
		"  s_Minv     out: [NV×NV] ∂qdd/∂τ = M⁻¹",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts",
		"  gravity:   linear gravitational acceleration in world coordinates")
	w.line("constexpr int FORWARD_DYNAMICS_GRADIENT_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void forward_dynamics_gradient_inner(T* s_dqdd_dq, T* s_dqdd_dqd, T* s_Minv, const T* s_q, const T* s_qd, const T* s_tau, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		w.comment("qdd = M⁻¹ (τ − bias); each inner ends with a barrier")
		w.line("bias_forces_inner<T>(%s, s_q, s_qd, %s, gravity);", sU, sInner)
		w.blockStride("k", nv, func() {
			w.line("%s[k] = s_tau[k] - %s[k];", sU, sU)
		})
		w.line("minv_inner<T>(s_Minv, s_q, %s);", sInner)
		w.blockStride("k", nv, func() {
			w.line("T s = T(0);")
			w.line("for (int j = 0; j < NV; ++j) s += s_Minv[j * NV + k] * %s[j];", sU)
			w.line("%s[k] = s;", sQdd)
		})
		w.sync()
		w.comment("∂τ lands in the outputs, whose shared memory a separate ∂τ buffer would double on large robots")
		w.line("inverse_dynamics_gradient_inner<T>(s_dqdd_dq, s_dqdd_dqd, s_q, s_qd, %s, %s, gravity);", sQdd, sInner)
		w.comment("∂qdd = −M⁻¹ ∂τ into the scratch, both blocks at once (entry (row, col) of block b), then copied back")
		w.blockStride("e", 2*nv*nv, func() {
			w.line("const int b = int(e) / (NV * NV);")
			w.line("const int row = (int(e) / NV) %% NV;")
			w.line("const int col = int(e) %% NV;")
			w.line("const T* dtau = b == 0 ? s_dqdd_dq : s_dqdd_dqd;")
			w.line("T s = T(0);")
			w.line("for (int j = 0; j < NV; ++j) s += s_Minv[row * NV + j] * dtau[j * NV + col];")
			w.line("%s[e] = -s;", sInner)
		})
		w.sync()
		w.blockStride("e", 2*nv*nv, func() {
			w.line("(e < NV * NV ? s_dqdd_dq : s_dqdd_dqd - NV * NV)[e] = %s[e];", sInner)
		})
		w.sync()
	})
	w.blank()
	shape := []int{nv, nv}
	g.add(&entry{
		name: "forward_dynamics_gradient",
		doc:  "Derivatives of forward dynamics: dqdd_dq = ∂qdd/∂q, dqdd_dqd = ∂qdd/∂qd and Minv = ∂qdd/∂τ.",
		outputs: []buffer{
			{name: "dqdd_dq", size: nv * nv, shape: shape, doc: "∂qdd/∂q, row = qdd index, column = tangent direction"},
			{name: "dqdd_dqd", size: nv * nv, shape: shape, doc: "∂qdd/∂qd, row = qdd index, column = velocity coordinate"},
			{name: "Minv", size: nv * nv, shape: shape, doc: "∂qdd/∂τ = M⁻¹"},
		},
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: nv, doc: "velocity"},
			{name: "tau", size: nv, doc: "joint efforts"},
		},
		gravity: true,
		inner:   "forward_dynamics_gradient_inner<T>",
		temp:    a.size,
	})
}
