package emit

// emitInverseDynamics writes three entry points of grid/algorithms/rnea.cuh (RNEA): inverse_dynamics
// (τ = M qdd + C qd + g), bias_forces (qdd = 0: C qd + g) and gravity_forces (qd = qdd = 0: g).
func emitInverseDynamics(g *gen) {
	r, w := g.r, g.w
	temp := 39 * len(r.Joints) // sizeof(algorithms::RneaState) in elements, checked by a static_assert
	g.innerDoc("Recursive Newton-Euler inverse dynamics: s_tau = M(q)·qdd + C(q, qd)·qd + g(q).", temp,
		"  s_tau out: [NV] joint efforts (free-flyer: [f; n] in the base frame)",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_qdd in:  [NV] acceleration",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"bias_forces_inner (no qdd) and gravity_forces_inner (no qd, qdd) are the same with zeros.",
		"The algorithm is grid/algorithms/rnea.cuh on this robot's description.")
	in := []buffer{{name: "q", size: r.NQ, doc: "configuration"}, {name: "qd", size: r.NV, doc: "velocity"}}
	out := []buffer{{name: "tau", size: r.NV, doc: "joint efforts"}}
	for _, e := range []*entry{{
		name:    "inverse_dynamics",
		doc:     "Inverse dynamics (RNEA): tau = M(q) qdd + C(q, qd) qd + g(q).",
		outputs: out,
		inputs:  append(append([]buffer(nil), in...), buffer{name: "qdd", size: r.NV, doc: "acceleration"}),
	}, {
		name:    "bias_forces",
		doc:     "Bias forces (RNEA with qdd = 0): C(q, qd) qd + g(q).",
		outputs: out,
		inputs:  in,
	}, {
		name:    "gravity_forces",
		doc:     "Generalised gravity (RNEA with qd = qdd = 0): g(q).",
		outputs: out,
		inputs:  in[:1],
	}} {
		e.gravity = true
		e.inner = e.name + "_inner<T>"
		e.temp = temp
		e.algorithm = e.name
		e.shared = "RneaState"
		emitTemplateInner(w, e)
		g.add(e)
	}
}

// rneaSweeps names the scratch regions an RNEA pass fills and how its inputs are read.
type rneaSweeps struct {
	// x, v, a, f receive per body: the transform (12), velocity, acceleration and subtree force (6 each).
	x, v, a, f string
	// vj and xa, when set, also keep per body S·qd and the parent's acceleration in body coordinates,
	// X·a_p (a_0 = -g), which derivatives of the pass reuse.
	vj, xa string
	// qdNullable reads a null s_qd as zero velocity; qdd is the C++ condition under which s_qdd is added.
	qdNullable bool
	qdd        string
}

// emitRNEASweeps writes the RNEA pass: joint transforms, the forward sweep by levels, body forces and the
// backward sweep accumulating subtree forces, with barriers between the phases.
func (g *gen) emitRNEASweeps(s rneaSweeps) {
	w := g.w
	g.emitTransforms(s.x, "s_q")
	w.comment("forward sweep: v_i = X_i v_p + S_i qd_i;  a_i = X_i a_p + S_i qdd_i + v_i × S_i qd_i  (a_0 = -g)")
	g.forLevels(false, 0, func() {
		w.line("const int p = robot::parent[i];")
		w.line("const int kind = robot::kind[i];")
		w.line("const T* axis = robot::axis<T>() + 3 * i;")
		w.line("const T* E = %s + 12 * i;", s.x)
		w.line("const T* rr = E + 9;")
		w.line("T* v = %s + 6 * i;", s.v)
		w.line("T* acc = %s + 6 * i;", s.a)
		// xa is where X·a_p lands: its own region when kept, else straight into the acceleration.
		xa := "acc"
		if s.xa != "" {
			w.line("T* xa = %s + 6 * i;", s.xa)
			xa = "xa"
		}
		if s.vj != "" {
			w.line("T* vj = %s + 6 * i;", s.vj)
		} else {
			w.line("T vj[6];")
		}
		if s.qdNullable {
			w.line("for (int k = 0; k < 6; ++k) vj[k] = T(0);")
			w.line("if (s_qd != nullptr) joint_motion<T>(kind, axis, s_qd + robot::v_index[i], vj);")
		} else {
			w.line("joint_motion<T>(kind, axis, s_qd + robot::v_index[i], vj);")
		}
		w.block("if (p < 0)", func() {
			w.line("const T a0[6] = {T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z};")
			w.line("for (int k = 0; k < 6; ++k) v[k] = vj[k];")
			w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, a0, T(0), %s);", xa)
		}, " else {")
		w.indent++
		w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, %s + 6 * p, T(0), v);", s.v)
		w.line("for (int k = 0; k < 6; ++k) v[k] += vj[k];")
		w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, %s + 6 * p, T(0), %s);", s.a, xa)
		w.indent--
		w.line("}")
		if s.xa != "" {
			w.line("for (int k = 0; k < 6; ++k) acc[k] = xa[k];")
		}
		w.line("if (%s) joint_motion<T, true>(kind, axis, s_qdd + robot::v_index[i], acc);", s.qdd)
		w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), v, vj, T(1), acc);")
	})
	w.comment("body forces: f_i = I_i a_i + v_i ×* I_i v_i")
	w.blockStride("i", len(g.r.Joints), func() {
		w.line("const T* pi = robot::inertia<T>() + 10 * i;")
		w.line("T h[6];")
		w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, %s + 6 * i, T(0), h);", s.v)
		w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, %s + 6 * i, T(0), %s + 6 * i);", s.a, s.f)
		w.line("glass::thread::force_cross_mul<T, true>(T(1), %s + 6 * i, h, T(1), %s + 6 * i);", s.v, s.f)
	})
	w.sync()
	w.comment("backward sweep, deepest parents first: f_p += X_cᵀ f_c over each parent's children")
	g.forLevels(true, 1, func() {
		w.block("for (int c = robot::child_start[i]; c < robot::child_start[i + 1]; ++c)", func() {
			w.line("const int j = robot::children[c];")
			w.line("glass::thread::force_transform_mul<T, true, true>(T(1), %s + 12 * j, %s + 12 * j + 9, %s + 6 * j, T(1), %s + 6 * i);", s.x, s.x, s.f, s.f)
		})
	})
}
