package emit

import "fmt"

// gradientColumnScratch bounds the column scratch of inverse_dynamics_gradient_inner, in elements: the
// tangent columns are processed in chunks whose dv, da and df arrays fit in it.
const gradientColumnScratch = 12 * 1024

// gradientChunk returns how many tangent columns (of 2·nv) inverse_dynamics_gradient_inner processes at
// once, each column needing 18·nb elements of scratch: all of them when they fit, else as many as fit in
// gradientColumnScratch, at least one.
func gradientChunk(nb, nv int) int {
	cols := 2 * nv
	per := 18 * nb
	if cols*per <= gradientColumnScratch {
		return cols
	}
	return max(1, gradientColumnScratch/per)
}

// emitInverseDynamicsGradient writes inverse_dynamics_gradient_inner, the exact derivatives ∂τ/∂q and ∂τ/∂qd
// of RNEA by forward-mode differentiation of its recursion, and its ladder. One RNEA pass keeps each body's
// transform, S·qd, velocity, X·a_parent and subtree force; then every tangent column (a configuration or a
// velocity direction of one joint) is independent: one thread runs the differentiated forward and backward
// sweeps over all bodies for its column. A configuration direction s of joint k enters only through that
// joint's transform, dX_k = -(s ×m) X_k.
func emitInverseDynamicsGradient(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	nv := r.NV
	chunk := gradientChunk(nb, nv)
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sVJ := a.alloc("s_vj", 6*nb, "joint velocities S·qd")
	sV := a.alloc("s_v", 6*nb, "body velocities")
	sXA := a.alloc("s_xa", 6*nb, "parent accelerations in body coordinates, X·a_p (a_0 = -g)")
	sF := a.alloc("s_f", 6*nb, "body forces, then subtree forces")
	sCol := a.alloc("s_col", 18*nb*chunk, "per column of a chunk: dv, da, df (6·NB each); body accelerations during the RNEA pass")

	g.innerDoc("Derivatives of inverse dynamics: s_dtau_dq = ∂τ/∂q and s_dtau_dqd = ∂τ/∂qd of τ = RNEA(q, qd, qdd).", a.size,
		"  s_dtau_dq  out: [NV×NV] row-major, row = τ index, column = tangent direction of q (free-flyer:",
		"                  its body-frame twist [v_lin; ω], as the velocity)",
		"  s_dtau_dqd out: [NV×NV] row-major, row = τ index, column = velocity coordinate",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_qdd in:  [NV] acceleration",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"Exact forward-mode differentiation of the RNEA recursion, one thread per tangent column.")
	w.line("constexpr int INVERSE_DYNAMICS_GRADIENT_INNER_TEMP = %d;", a.size)
	w.line("/// Tangent columns (of 2·NV) that inverse_dynamics_gradient_inner processes per chunk.")
	w.line("constexpr int INVERSE_DYNAMICS_GRADIENT_CHUNK = %d;", chunk)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void inverse_dynamics_gradient_inner(T* s_dtau_dq, T* s_dtau_dqd, const T* s_q, const T* s_qd, const T* s_qdd, T* s_temp, Vec3<T> gravity)", func() {
		a.declare(w)
		w.comment("RNEA pass; the body accelerations live in the column scratch until the columns start")
		g.emitRNEASweeps(rneaSweeps{x: sX, v: sV, a: sCol, f: sF, vj: sVJ, xa: sXA, qdd: "true"})
		column := func(col, slot string) {
			w.line("const int col = int(%s);", col)
			w.line("const bool wrt_q = col < NV;")
			w.line("const int t = wrt_q ? col : col - NV;")
			w.line("T* dv = %s + %d * %s;", sCol, 18*nb, slot)
			w.line("T* da = dv + %d;", 6*nb)
			w.line("T* df = da + %d;", 6*nb)
			w.line("T* out = wrt_q ? s_dtau_dq : s_dtau_dqd;")
			w.comment("the joint that owns velocity coordinate t (v_index grows with the joint index)")
			w.line("int kj = 0;")
			w.line("for (int j = 1; j < NB; ++j) kj = robot::v_index[j] <= t ? j : kj;")
			w.line("T s[6];")
			w.line("joint_subspace_column<T>(robot::kind[kj], robot::axis<T>() + 3 * kj, t - robot::v_index[kj], s);")
			w.comment("differentiated forward sweep, parents first: dv_i = X_i dv_p (+ the direction's term at joint kj),",
				"da_i = X_i da_p (+ its term) + dv_i × S_i qd_i, df_i = I_i da_i + dv_i ×* I_i v_i + v_i ×* I_i dv_i")
			w.block("for (int i = 0; i < NB; ++i)", func() {
				w.line("const int p = robot::parent[i];")
				w.line("const T* E = %s + 12 * i;", sX)
				w.line("const T* rr = E + 9;")
				w.line("const T* v = %s + 6 * i;", sV)
				w.line("const T* vj = %s + 6 * i;", sVJ)
				w.line("const T* pi = robot::inertia<T>() + 10 * i;")
				w.line("T* dvi = dv + 6 * i;")
				w.line("T* dai = da + 6 * i;")
				w.line("T* dfi = df + 6 * i;")
				w.block("if (p < 0)", func() {
					w.line("for (int k = 0; k < 6; ++k) dvi[k] = dai[k] = T(0);")
				}, " else {")
				w.indent++
				w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, dv + 6 * p, T(0), dvi);")
				w.line("glass::thread::motion_transform_mul<T>(T(1), E, rr, da + 6 * p, T(0), dai);")
				w.indent--
				w.line("}")
				w.block("if (i == kj)", func() {
					w.block("if (wrt_q)", func() {
						w.comment("d(X v_p) = -s × (X v_p) with X v_p = v - S·qd; d(X a_p) = -s × (X a_p)")
						w.line("T u[6];")
						w.line("for (int k = 0; k < 6; ++k) u[k] = v[k] - vj[k];")
						w.line("glass::thread::motion_cross_mul<T, -1, true>(T(-1), s, u, T(1), dvi);")
						w.line("glass::thread::motion_cross_mul<T, -1, true>(T(-1), s, %s + 6 * i, T(1), dai);", sXA)
					}, " else {")
					w.indent++
					w.line("for (int k = 0; k < 6; ++k) dvi[k] += s[k];")
					w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), v, s, T(1), dai);")
					w.indent--
					w.line("}")
				})
				w.line("glass::thread::motion_cross_mul<T, -1, true>(T(1), dvi, vj, T(1), dai);")
				w.line("T h[6];")
				w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, v, T(0), h);")
				w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dai, T(0), dfi);")
				w.line("glass::thread::force_cross_mul<T, true>(T(1), dvi, h, T(1), dfi);")
				w.line("glass::thread::spatial_inertia_mul<T>(T(1), pi, dvi, T(0), h);")
				w.line("glass::thread::force_cross_mul<T, true>(T(1), v, h, T(1), dfi);")
			})
			w.comment("differentiated backward sweep, children first: dτ_i = S_iᵀ df_i; df_p += X_iᵀ df_i, plus",
				"X_kᵀ (s ×* f_k) at joint kj for a configuration direction")
			w.block("for (int i = NB - 1; i >= 0; --i)", func() {
				w.line("const int kind = robot::kind[i];")
				w.line("const int vi = robot::v_index[i];")
				w.line("T* dfi = df + 6 * i;")
				w.line("T dtau[6];")
				w.line("joint_project<T>(kind, robot::axis<T>() + 3 * i, dfi, dtau);")
				w.line("for (int k = 0; k < joint_nv(kind); ++k) out[(vi + k) * NV + t] = dtau[k];")
				w.line("const int p = robot::parent[i];")
				w.line("if (p < 0) continue;")
				w.line("if (wrt_q && i == kj) glass::thread::force_cross_mul<T, true>(T(1), s, %s + 6 * i, T(1), dfi);", sF)
				w.line("glass::thread::force_transform_mul<T, true, true>(T(1), %s + 12 * i, %s + 12 * i + 9, dfi, T(1), df + 6 * p);", sX, sX)
			})
		}
		if chunk >= 2*nv {
			w.comment(fmt.Sprintf("tangent columns: 0..NV-1 along q, NV..2·NV-1 along qd; all %d fit the scratch at once", 2*nv))
			w.blockStride("c", 2*nv, func() { column("c", "c") })
		} else {
			w.comment("tangent columns: 0..NV-1 along q, NV..2·NV-1 along qd, in chunks of INVERSE_DYNAMICS_GRADIENT_CHUNK.",
				"Slot k of a chunk always falls to the same thread and the columns are independent, so chunks",
				"need no barrier between them.")
			w.block(fmt.Sprintf("for (int c0 = 0; c0 < %d; c0 += INVERSE_DYNAMICS_GRADIENT_CHUNK)", 2*nv), func() {
				w.line("const uint32_t chunk_size = uint32_t(%d - c0 < INVERSE_DYNAMICS_GRADIENT_CHUNK ? %d - c0 : INVERSE_DYNAMICS_GRADIENT_CHUNK);", 2*nv, 2*nv)
				w.blockStride("k", "chunk_size", func() {
					column("c0 + int(k)", "k")
				})
			})
		}
		w.sync()
	})
	w.blank()
	shape := []int{nv, nv}
	g.add(&entry{
		name: "inverse_dynamics_gradient",
		doc:  "Derivatives of inverse dynamics: dtau_dq = ∂τ/∂q and dtau_dqd = ∂τ/∂qd of τ = RNEA(q, qd, qdd).",
		outputs: []buffer{
			{name: "dtau_dq", size: nv * nv, shape: shape, doc: "∂τ/∂q, row = τ index, column = tangent direction"},
			{name: "dtau_dqd", size: nv * nv, shape: shape, doc: "∂τ/∂qd, row = τ index, column = velocity coordinate"},
		},
		inputs: []buffer{
			{name: "q", size: r.NQ, doc: "configuration"},
			{name: "qd", size: nv, doc: "velocity"},
			{name: "qdd", size: nv, doc: "acceleration"},
		},
		gravity: true,
		inner:   "inverse_dynamics_gradient_inner<T>",
		temp:    a.size,
	})
}
