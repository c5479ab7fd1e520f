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
		g.emitForwardDynamicsFirstOrder(fdFirstOrder{u: sU, qdd: sQdd, minv: "s_Minv", dq: "s_dqdd_dq", dqd: "s_dqdd_dqd", scratch: sInner})
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

// fdFirstOrder names the regions emitForwardDynamicsFirstOrder fills: u (NV, bias then τ − bias), qdd (NV),
// minv, dq and dqd (NV×NV each, ∂qdd/∂q and ∂qdd/∂qd), and scratch (at least the bias-force, M⁻¹ and RNEA
// gradient inners' scratch, and 2·NV²).
type fdFirstOrder struct{ u, qdd, minv, dq, dqd, scratch string }

// emitForwardDynamicsFirstOrder writes qdd = M⁻¹ (τ − bias) and the first-order derivatives
// ∂qdd/∂x = −M⁻¹ ∂τ/∂x, shared by forward_dynamics_gradient and fdsva_so. ∂τ is formed in dq and dqd
// themselves (a separate ∂τ buffer would double their shared memory on large robots), −M⁻¹ ∂τ in the
// scratch, then copied back. Ends with a barrier.
func (g *gen) emitForwardDynamicsFirstOrder(f fdFirstOrder) {
	w, nv := g.w, g.r.NV
	w.comment("qdd = M⁻¹ (τ − bias); each inner ends with a barrier")
	w.line("bias_forces_inner<T>(%s, s_q, s_qd, %s, gravity);", f.u, f.scratch)
	w.blockStride("k", nv, func() {
		w.line("%s[k] = s_tau[k] - %s[k];", f.u, f.u)
	})
	w.line("minv_inner<T>(%s, s_q, %s);", f.minv, f.scratch)
	w.blockStride("k", nv, func() {
		w.line("T s = T(0);")
		w.line("for (int j = 0; j < NV; ++j) s += %s[j * NV + k] * %s[j];", f.minv, f.u)
		w.line("%s[k] = s;", f.qdd)
	})
	w.sync()
	w.line("inverse_dynamics_gradient_inner<T>(%s, %s, s_q, s_qd, %s, %s, gravity);", f.dq, f.dqd, f.qdd, f.scratch)
	w.comment("∂qdd = −M⁻¹ ∂τ into the scratch, both blocks at once (entry (row, col) of block b), then copied back")
	w.blockStride("e", 2*nv*nv, func() {
		w.line("const int b = int(e) / (NV * NV);")
		w.line("const int row = (int(e) / NV) %% NV;")
		w.line("const int col = int(e) %% NV;")
		w.line("const T* dtau = b == 0 ? %s : %s;", f.dq, f.dqd)
		w.line("T s = T(0);")
		w.line("for (int j = 0; j < NV; ++j) s += %s[row * NV + j] * dtau[j * NV + col];", f.minv)
		w.line("%s[e] = -s;", f.scratch)
	})
	w.sync()
	w.blockStride("e", 2*nv*nv, func() {
		w.line("(e < NV * NV ? %s : %s - NV * NV)[e] = %s[e];", f.dq, f.dqd, f.scratch)
	})
	w.sync()
}
