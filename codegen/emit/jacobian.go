package emit

// emitFrameJacobian writes frame_jacobian_inner and its ladder: the world-aligned Jacobian of one frame,
// rows [ω; v] (the frame's angular velocity and the velocity of its origin, in world coordinates), one
// column per velocity coordinate.
func emitFrameJacobian(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sW := a.alloc("s_W", 12*nb, "body transforms (E, r), world to body")

	g.innerDoc("World-aligned Jacobian of one frame at configuration s_q: J·qd = [ω; v], the frame's angular", a.size,
		"velocity and the velocity of its origin, both in world coordinates.",
		"  s_J   out: [6, NV] row-major (row r, column c at r·NV + c); zero outside the frame's ancestors",
		"  s_q   in:  [NQ] configuration",
		"  frame:     frame index, 0 <= frame < NF; a frame attached to the world has J = 0")
	w.line("constexpr int FRAME_JACOBIAN_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void frame_jacobian_inner(T* s_J, const T* s_q, T* s_temp, int frame)", func() {
		a.declare(w)
		g.emitTransforms(sX, "s_q")
		g.emitWorldTransforms(sX, sW)
		w.comment("columns: the coordinate's joint, if it is an ancestor of the frame's body, moves the frame with",
			"its subspace column in world coordinates, seen at the frame origin p (the transform from the",
			"world-aligned frame at p to the body has the body's rotation and origin r_W − p)")
		w.blockStride("c", r.NV, func() {
			g.emitJacobianColumn(sW, "frame", "int(c)", "s_J + c")
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "frame_jacobian",
		doc:     "World-aligned frame Jacobian: rows [omega; v] of the frame's angular velocity and origin velocity in world coordinates.",
		outputs: []buffer{{name: "J", size: 6 * r.NV, shape: []int{6, r.NV}, doc: "Jacobian, rows [omega; v]"}},
		inputs:  []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		frame:   true,
		inner:   "frame_jacobian_inner<T>",
		temp:    a.size,
	})
}

// emitJacobianColumn writes the statements that store column c of frame's world-aligned Jacobian at
// out[k·NV], k = 0..5 (rows [ω; v]): the coordinate's joint, if it is an ancestor of the frame's body,
// moves the frame with its subspace column in world coordinates, seen at the frame origin p (the transform
// from the world-aligned frame at p to the body has the body's rotation and origin r_W − p). sW holds the
// world-to-body transforms.
func (g *gen) emitJacobianColumn(sW, frame, c, out string) {
	w := g.w
	w.line("const int fj = robot::frame_joint[%s];", frame)
	w.line("T col[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};")
	w.block("if (fj >= 0)", func() {
		w.line("T p[3];")
		w.line("glass::spatial_detail::rot_apply_t(%s + 12 * fj, robot::frame_r<T>() + 3 * %s, p);", sW, frame)
		w.line("for (int k = 0; k < 3; ++k) p[k] += %s[12 * fj + 9 + k];", sW)
		w.block("for (int j = fj; j >= 0; j = robot::parent[j])", func() {
			w.line("const int kind = robot::kind[j];")
			w.line("const int first = robot::v_index[j];")
			w.line("if (%s < first || %s >= first + joint_nv(kind)) continue;", c, c)
			w.line("T s[6];")
			w.line("joint_subspace_column<T>(kind, robot::axis<T>() + 3 * j, %s - first, s);", c)
			w.line("const T rel[3] = {%s[12 * j + 9] - p[0], %s[12 * j + 10] - p[1], %s[12 * j + 11] - p[2]};", sW, sW, sW)
			w.line("glass::thread::motion_transform_mul<T, true>(T(1), %s + 12 * j, rel, s, T(0), col);", sW)
			w.line("break;")
		})
	})
	w.line("for (int k = 0; k < 6; ++k) (%s)[k * NV] = col[k];", out)
}

// emitEndEffectorPoseGradient writes end_effector_pose_gradient_inner and its ladder: the world-aligned
// Jacobian of every frame, which is the derivative of every frame pose of frame_poses: with J = [J_ω; J_v]
// and a tangent direction δ, δpos = J_v·δ and δR = [J_ω·δ]× R.
func emitEndEffectorPoseGradient(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	nf := len(r.Frames)
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sW := a.alloc("s_W", 12*nb, "body transforms (E, r), world to body")

	g.innerDoc("Derivatives of every frame pose: the world-aligned Jacobian of each frame at s_q.", a.size,
		"  s_J   out: [NF, 6, NV] row-major; frame f's rows [ω; v] (angular velocity and origin velocity in world",
		"             coordinates per unit of each tangent coordinate); zero outside the frame's ancestors",
		"  s_q   in:  [NQ] configuration")
	w.line("constexpr int END_EFFECTOR_POSE_GRADIENT_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void end_effector_pose_gradient_inner(T* s_J, const T* s_q, T* s_temp)", func() {
		a.declare(w)
		g.emitTransforms(sX, "s_q")
		g.emitWorldTransforms(sX, sW)
		w.comment("one (frame, column) pair per iteration")
		w.blockStride("e", nf*r.NV, func() {
			w.line("const int f = int(e) / NV;")
			w.line("const int c = int(e) %% NV;")
			g.emitJacobianColumn(sW, "f", "c", "s_J + f * 6 * NV + c")
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name:    "end_effector_pose_gradient",
		doc:     "Derivatives of every frame pose: world-aligned Jacobians, rows [omega; v], of all frames.",
		outputs: []buffer{{name: "J", size: nf * 6 * r.NV, shape: []int{nf, 6, r.NV}, doc: "Jacobians of all frames, rows [omega; v]"}},
		inputs:  []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		inner:   "end_effector_pose_gradient_inner<T>",
		temp:    a.size,
	})
}

// emitEndEffectorPoseHessian writes end_effector_pose_hessian_inner and its ladder: the derivative of one
// frame's world-aligned Jacobian along every tangent direction, the second-order kinematics of its pose.
// With J's columns [ω_c; v_c] taken at the frame origin, moving along column k turns the columns of its
// joint and the joints below by J_k × (a spatial cross product) and moves the origin by v_k, which leaves
// ∂J_c/∂θ_k = [ω_k × ω_c; ω_k × v_c] when k's joint is c's or one of its ancestors, and [0; ω_c × v_k]
// otherwise.
func emitEndEffectorPoseHessian(g *gen) {
	r, w := g.r, g.w
	nb := len(r.Joints)
	nv := r.NV
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sW := a.alloc("s_W", 12*nb, "body transforms (E, r), world to body")
	sJ := a.alloc("s_J", 6*nv, "the frame's Jacobian, rows [ω; v]")

	g.innerDoc("Derivative of one frame's world-aligned Jacobian along every tangent direction.", a.size,
		"  s_H   out: [6, NV, NV] row-major: s_H[(r·NV + c)·NV + k] = ∂J[r][c]/∂θ_k, θ_k a tangent direction",
		"             of q (free-flyer: its body-frame twist, as the velocity)",
		"  s_q   in:  [NQ] configuration",
		"  frame:     frame index, 0 <= frame < NF")
	w.line("constexpr int END_EFFECTOR_POSE_HESSIAN_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void end_effector_pose_hessian_inner(T* s_H, const T* s_q, T* s_temp, int frame)", func() {
		a.declare(w)
		g.emitTransforms(sX, "s_q")
		g.emitWorldTransforms(sX, sW)
		w.blockStride("c", nv, func() {
			g.emitJacobianColumn(sW, "frame", "int(c)", sJ+" + c")
		})
		w.sync()
		w.comment("one (column c, direction k) pair per iteration")
		w.blockStride("e", nv*nv, func() {
			w.line("const int c = int(e) / NV;")
			w.line("const int k = int(e) %% NV;")
			w.line("int jc = 0, jk = 0;")
			w.line("for (int j = 1; j < NB; ++j) { jc = robot::v_index[j] <= c ? j : jc; jk = robot::v_index[j] <= k ? j : jk; }")
			w.line("bool turns = false;")
			w.line("for (int x = jc; x >= 0 && !turns; x = robot::parent[x]) turns = x == jk;")
			w.line("const T wc[3] = {%s[c], %s[NV + c], %s[2 * NV + c]};", sJ, sJ, sJ)
			w.line("const T vc[3] = {%s[3 * NV + c], %s[4 * NV + c], %s[5 * NV + c]};", sJ, sJ, sJ)
			w.line("const T wk[3] = {%s[k], %s[NV + k], %s[2 * NV + k]};", sJ, sJ, sJ)
			w.line("const T vk[3] = {%s[3 * NV + k], %s[4 * NV + k], %s[5 * NV + k]};", sJ, sJ, sJ)
			w.line("T d[6];")
			w.block("if (turns)", func() {
				w.line("glass::spatial_detail::cross3(wk, wc, d);")
				w.line("glass::spatial_detail::cross3(wk, vc, d + 3);")
			}, " else {")
			w.indent++
			w.line("d[0] = d[1] = d[2] = T(0);")
			w.line("glass::spatial_detail::cross3(wc, vk, d + 3);")
			w.indent--
			w.line("}")
			w.line("for (int row = 0; row < 6; ++row) s_H[(row * NV + c) * NV + k] = d[row];")
		})
		w.sync()
	})
	w.blank()
	g.add(&entry{
		name: "end_effector_pose_hessian",
		doc:  "Second-order kinematics of one frame: the derivative of its world-aligned Jacobian along every tangent direction.",
		outputs: []buffer{{name: "H", size: 6 * nv * nv, shape: []int{6, nv, nv},
			doc: "H[r][c][k] = dJ[r][c]/dtheta_k, J's rows [omega; v]"}},
		inputs: []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		frame:  true,
		inner:  "end_effector_pose_hessian_inner<T>",
		temp:   a.size,
	})
}
