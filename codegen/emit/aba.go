package emit

// emitABA writes aba_inner, Featherstone's articulated-body algorithm, and its ladder: the forward dynamics
// qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)) in O(n), parallel across the bodies of each BFS level.
func emitABA(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sV := a.alloc("s_v", 6*nb, "body velocities, then velocity-product accelerations c, then body accelerations")
	sIA := a.alloc("s_IA", 36*nb, "articulated inertias (6×6, column-major), then with the joint removed")
	sPA := a.alloc("s_pA", 6*nb, "articulated bias forces, then as passed to the parent")
	sU := a.alloc("s_U", 6*r.NV, "U = IA·S per joint (6×nv at 6·v_index)")
	sD := a.alloc("s_Dinv", 6*r.NV, "D⁻¹ = (Sᵀ·IA·S)⁻¹ per joint (nv×nv at 6·v_index)")

	g.innerDoc("Articulated-body algorithm: s_qdd = M(q)⁻¹·(s_tau − C(q, qd)·qd − g(q)).", a.size,
		"  s_qdd out: [NV] joint accelerations (free-flyer: [a_lin; α] of the base, in the base frame);",
		"             also holds u = τ − Sᵀ·pA between the backward and the forward sweep",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts (free-flyer: [f; n] in the base frame)",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"A joint whose articulated inertia is not positive definite yields NaN accelerations.")
	w.line("constexpr int ABA_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void aba_inner(T* s_qdd, const T* s_q, const T* s_qd, const T* s_tau, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		g.emitTransforms(sX, "s_q")
		w.comment("forward sweep: v_i = X_i v_p + S_i qd_i;  IA_i = I_i;  pA_i = v_i ×* I_i v_i")
		g.forLevels(false, 0, func() {
			w.line("const int p = robot::parent[i];")
			w.line("const T* pi = robot::inertia<T>() + 10 * i;")
			w.line("T* v = %s + 6 * i;", sV)
			w.line("joint_motion<T>(robot::kind[i], robot::axis<T>() + 3 * i, s_qd + robot::v_index[i], v);")
			w.line("if (p >= 0) glass::thread::motion_transform_mul<T, false, true>(T(1), %s + 12 * i, %s + 12 * i + 9, %s + 6 * p, T(1), v);", sX, sX, sV)
			w.line("glass::thread::spatial_inertia<T>(pi, %s + 36 * i);", sIA)
			w.line("T h[6];")
			w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, v, T(0), h);")
			w.line("glass::thread::force_cross_mul<T>(T(1), v, h, T(0), %s + 6 * i);", sPA)
		})
		w.comment("backward sweep, deepest level first. Each body gathers its children's contributions",
			"(IA_p += X_cᵀ IA_cᴬ X_c, pA_p += X_cᵀ pA_cᴬ, both left by the previous level), then forms its own",
			"U = IA·S, D⁻¹, u = τ − Sᵀ pA and c = v × S qd, and, below the root, what it passes on:",
			"IAᴬ = IA − U D⁻¹ Uᵀ and pAᴬ = pA + IAᴬ c + U D⁻¹ u, in place.")
		g.forLevels(true, 0, func() {
			w.line("const int kind = robot::kind[i];")
			w.line("const T* axis = robot::axis<T>() + 3 * i;")
			w.line("const int vi = robot::v_index[i];")
			w.line("T* IA = %s + 36 * i;", sIA)
			w.line("T* pA = %s + 6 * i;", sPA)
			w.block("for (int c = robot::child_start[i]; c < robot::child_start[i + 1]; ++c)", func() {
				w.line("const int j = robot::children[c];")
				w.line("articulated_to_parent<T, true>(%s + 12 * j, %s + 12 * j + 9, %s + 36 * j, IA);", sX, sX, sIA)
				w.line("glass::thread::force_transform_mul<T, true, true>(T(1), %s + 12 * j, %s + 12 * j + 9, %s + 6 * j, T(1), pA);", sX, sX, sPA)
			})
			w.line("T* U = %s + 6 * vi;", sU)
			w.line("T* Dinv = %s + 6 * vi;", sD)
			w.line("T* u = s_qdd + vi;")
			w.line("joint_articulated_terms<T>(kind, axis, IA, U, Dinv);")
			w.line("articulated_joint_bias<T>(kind, axis, s_tau + vi, pA, u);")
			w.line("T vj[6];")
			w.line("joint_motion<T>(kind, axis, s_qd + vi, vj);")
			w.line("T* c = %s + 6 * i;", sV)
			w.line("glass::thread::motion_cross_mul<T>(T(1), c, vj, T(0), c);")
			w.block("if (robot::parent[i] >= 0)", func() {
				w.line("articulated_remove_joint<T>(joint_nv(kind), U, Dinv, IA);")
				w.line("articulated_bias_remove_joint<T>(joint_nv(kind), IA, c, U, Dinv, u, pA);")
			})
		})
		w.comment("forward sweep: a'_i = X_i a_p + c_i (a_0 = [0; -gravity]);  qdd_i = D⁻¹ (u_i − Uᵀ a'_i);",
			"a_i = a'_i + S_i qdd_i")
		g.forLevels(false, 0, func() {
			w.line("const int p = robot::parent[i];")
			w.line("const int vi = robot::v_index[i];")
			w.line("T* acc = %s + 6 * i;", sV)
			w.block("if (p < 0)", func() {
				w.line("const T a0[6] = {T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z};")
				w.line("glass::thread::motion_transform_mul<T, false, true>(T(1), %s + 12 * i, %s + 12 * i + 9, a0, T(1), acc);", sX, sX)
			}, " else {")
			w.indent++
			w.line("glass::thread::motion_transform_mul<T, false, true>(T(1), %s + 12 * i, %s + 12 * i + 9, %s + 6 * p, T(1), acc);", sX, sX, sV)
			w.indent--
			w.line("}")
			w.line("articulated_joint_acceleration<T>(robot::kind[i], robot::axis<T>() + 3 * i, %s + 6 * vi, %s + 6 * vi, s_qdd + vi, acc, s_qdd + vi);", sU, sD)
		})
	})
	w.blank()
	g.add(&entry{
		name:    "aba",
		doc:     "Forward dynamics by the articulated-body algorithm: qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)).",
		outputs: []buffer{{name: "qdd", size: r.NV, doc: "joint accelerations"}},
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: r.NV, doc: "velocity"},
			{name: "tau", size: r.NV, doc: "joint efforts"},
		},
		gravity: true,
		inner:   "aba_inner<T>",
		temp:    a.size,
	})
}
