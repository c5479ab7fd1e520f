package emit

// emitKinematics writes frame_poses, grid/algorithms/kinematics.cuh: the world pose of every frame (each
// URDF link) as a position, a rotation matrix and a quaternion.
func emitKinematics(g *gen) {
	r, w := g.r, g.w
	nf := len(r.Frames)
	temp := 12 * len(r.Joints) // sizeof(algorithms::KinematicsState) in elements, checked by a static_assert
	g.innerDoc("World poses of every frame at configuration s_q.", temp,
		"  s_pos  out: [NF, 3] frame origins in world coordinates",
		"  s_rot  out: [NF, 3, 3] row-major rotations whose columns are the frame axes in world coordinates",
		"  s_quat out: [NF, 4] the same rotations as unit quaternions (x, y, z, w), w >= 0",
		"  s_q    in:  [NQ] configuration",
		"The algorithm is grid/algorithms/kinematics.cuh on this robot's description.")
	e := &entry{
		name: "frame_poses",
		doc:  "World poses of every frame (each URDF link, fixed-joint links included).",
		outputs: []buffer{
			{name: "pos", size: 3 * nf, shape: []int{nf, 3}, doc: "frame origins in world coordinates"},
			{name: "rot", size: 9 * nf, shape: []int{nf, 3, 3}, doc: "rotations, columns = frame axes in world"},
			{name: "quat", size: 4 * nf, shape: []int{nf, 4}, doc: "unit quaternions (x, y, z, w), w >= 0"},
		},
		inputs:        []buffer{{name: "q", size: r.NQ, doc: "configuration"}},
		temp:          temp,
		algorithm:     "frame_poses",
		shared:        "KinematicsState",
		directOutputs: true,
		// each body's frames are final once its pose is known (kinematics.cuh's report_frames_final)
		finalRows: rowsInOrder,
	}
	emitTemplateInner(w, e)
	g.add(e)
}
