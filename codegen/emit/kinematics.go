package emit

// emitKinematics writes frame_poses_inner and its ladder: the world pose of every frame (each URDF link)
// as a position, a rotation matrix and a quaternion.
func emitKinematics(g *gen) {
	r, w := g.r, g.w
	nb, nf := len(r.Joints), len(r.Frames)
	var a arena
	sX := a.alloc("s_X", 12*nb, "joint transforms (E, r), parent to body")
	sW := a.alloc("s_W", 12*nb, "body transforms (E, r), world to body")

	g.innerDoc("World poses of every frame at configuration s_q.", a.size,
		"  s_pos  out: [NF, 3] frame origins in world coordinates",
		"  s_rot  out: [NF, 3, 3] row-major rotations whose columns are the frame axes in world coordinates",
		"  s_quat out: [NF, 4] the same rotations as unit quaternions (x, y, z, w), w >= 0",
		"  s_q    in:  [NQ] configuration")
	w.line("constexpr int FRAME_POSES_INNER_TEMP = %d;", a.size)
	w.line("template <typename T>")
	w.block("GLASS_DEVICE void frame_poses_inner(T* s_pos, T* s_rot, T* s_quat, const T* s_q, T* s_temp)", func() {
		a.declare(w)
		g.emitTransforms(sX, "s_q")
		g.emitWorldTransforms(sX, sW)
		w.comment("frames: body pose composed with the frame's constant placement")
		w.blockStride("f", nf, func() {
			w.line("const int j = robot::frame_joint[f];")
			w.line("T E[9], rr[3];")
			w.block("if (j < 0)", func() {
				w.line("for (int k = 0; k < 9; ++k) E[k] = robot::frame_E<T>()[9 * f + k];")
				w.line("for (int k = 0; k < 3; ++k) rr[k] = robot::frame_r<T>()[3 * f + k];")
			}, " else {")
			w.indent++
			w.line("transform_compose<T>(%s + 12 * j, %s + 12 * j + 9, robot::frame_E<T>() + 9 * f, robot::frame_r<T>() + 3 * f, E, rr);", sW, sW)
			w.indent--
			w.line("}")
			w.line("transform_to_pose<T>(E, rr, s_pos + 3 * f, s_rot + 9 * f);")
			w.comment("E (column-major) is Rᵀ, so its quaternion is the conjugate of the frame's")
			w.line("glass::thread::rot_to_quat<T>(E, s_quat + 4 * f);")
			w.line("s_quat[4 * f] = -s_quat[4 * f];")
			w.line("s_quat[4 * f + 1] = -s_quat[4 * f + 1];")
			w.line("s_quat[4 * f + 2] = -s_quat[4 * f + 2];")
		})
	})
	w.blank()
	g.add(&entry{
		name: "frame_poses",
		doc:  "World poses of every frame (each URDF link, fixed-joint links included).",
		outputs: []buffer{
			{name: "pos", size: 3 * nf, shape: []int{nf, 3}, doc: "frame origins in world coordinates"},
			{name: "rot", size: 9 * nf, shape: []int{nf, 3, 3}, doc: "rotations, columns = frame axes in world"},
			{name: "quat", size: 4 * nf, shape: []int{nf, 4}, doc: "unit quaternions (x, y, z, w), w >= 0"},
		},
		inputs: []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		inner:  "frame_poses_inner<T>",
		temp:   a.size,
	})
}

// emitWorldTransforms writes the level-by-level phase composing joint transforms s_X into world-to-body
// transforms s_W.
func (g *gen) emitWorldTransforms(sX, sW string) {
	w := g.w
	w.comment("world-to-body transforms, root level first")
	g.forLevels(false, 0, func() {
		w.line("const int p = robot::parent[i];")
		w.block("if (p < 0)", func() {
			w.line("for (int k = 0; k < 12; ++k) %s[12 * i + k] = %s[12 * i + k];", sW, sX)
		}, " else {")
		w.indent++
		w.line("transform_compose<T>(%s + 12 * p, %s + 12 * p + 9, %s + 12 * i, %s + 12 * i + 9, %s + 12 * i, %s + 12 * i + 9);", sW, sW, sX, sX, sW, sW)
		w.indent--
		w.line("}")
	})
}
