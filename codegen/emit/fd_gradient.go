package emit

// emitForwardDynamicsGradient writes forward_dynamics_gradient: ∂qdd/∂q = −M⁻¹·∂τ/∂q, ∂qdd/∂qd = −M⁻¹·∂τ/∂qd
// and ∂qdd/∂τ = M⁻¹ at qdd from the articulated-body algorithm (grid/algorithms/fd_gradient.cuh).
func emitForwardDynamicsGradient(g *gen) {
	r, w := g.r, g.w
	nv := r.NV
	// sizeof(algorithms::FdGradientState): qdd, then the phases' states in one union
	temp := nv + max(g.entry("aba").temp, g.entry("minv").temp, g.entry("inverse_dynamics_gradient").temp)
	g.innerDoc("Derivatives of forward dynamics qdd = M(q)⁻¹ (τ − C(q, qd)·qd − g(q)).", temp,
		"  s_dqdd_dq  out: [NV×NV] ∂qdd/∂q, row-major, column = tangent direction of q (free-flyer: its",
		"                  body-frame twist [v_lin; ω], as the velocity)",
		"  s_dqdd_dqd out: [NV×NV] ∂qdd/∂qd",
		"  s_Minv     out: [NV×NV] ∂qdd/∂τ = M⁻¹",
		"  s_q   in:  [NQ] configuration",
		"  s_qd  in:  [NV] velocity",
		"  s_tau in:  [NV] joint efforts",
		"  gravity:   linear gravitational acceleration in world coordinates",
		"The algorithm is grid/algorithms/fd_gradient.cuh on this robot's description.")
	shape := []int{nv, nv}
	e := &entry{
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
		gravity:   true,
		temp:      temp,
		algorithm: "forward_dynamics_gradient",
		shared:    "FdGradientState",
		// the outputs are large; the template forms ∂τ in them and reads them back
		directOutputs: true,
		// Fused, one thread would hold every phase's state at once (ptxas: 255 registers, spills, 12.5%
		// occupancy for iiwa); as launches of their own, each phase runs at its own tuned shape and
		// register count. ABA's qdd waits in the M⁻¹ output until minv overwrites it.
		needs: []string{"aba", "inverse_dynamics_gradient", "minv"},
		// fused in the limb kernel: M⁻¹ on one team of limb warps beside ABA then ∇ID on the other, and the
		// column solve on the whole block
		limbs:      !g.rolled,
		limbTeams:  2,
		limbShared: "FdGradientTeamsState",
		phasedThreadLaunch: func(w *writer) {
			w.line("// the phases as separate launches, each at its own tuned shape")
			w.line("T* d_qdd = d_Minv;  // [num_samples, NV]: ABA's qdd, until minv writes M⁻¹ over it")
			w.line("cudaError_t err = aba_launch<T>(d_qdd, d_q, d_qd, d_tau, gravity, num_samples, stream);")
			w.line("if (err == cudaSuccess) err = inverse_dynamics_gradient_launch<T>(d_dqdd_dq, d_dqdd_dqd, d_q, d_qd, d_qdd, gravity, num_samples, stream);")
			w.line("if (err == cudaSuccess) err = minv_launch<T>(d_Minv, d_q, num_samples, stream);")
			w.line("if (err != cudaSuccess) return err;")
			w.line("const size_t columns = size_t(num_samples) * %d;", 2*nv)
			w.line("const unsigned blocks = unsigned(std::min<size_t>((columns + 255) / 256, MAX_GRID_BLOCKS));")
			w.line("#if defined(GRID_RTC_HOST)")
			w.line("static rtc::Kernel solve(rtc::robot_instance<T>(\"%s\"));", solveKernel("forward_dynamics_gradient"))
			w.line("return rtc::launch(solve, dim3(blocks), dim3(256), 0, stream, d_dqdd_dq, d_dqdd_dqd, d_Minv, num_samples);")
			w.line("#else")
			w.line("algorithms::forward_dynamics_gradient_solve_kernel<Robot, T><<<blocks, 256, 0, stream>>>(d_dqdd_dq, d_dqdd_dqd, d_Minv, num_samples);")
			w.line("return cudaGetLastError();")
			w.line("#endif")
		},
	}
	emitTemplateInner(w, e)
	g.add(e)
}
