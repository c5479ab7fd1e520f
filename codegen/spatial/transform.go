package spatial

import "math"

// Transform is the Plücker coordinate transform X = [E 0; -E[r]× E] from frame A to frame B, where E
// rotates A coordinates into B coordinates and r is B's origin expressed in A.
//
// For a child frame whose pose in its parent is (R, p) (R's columns are the child's axes in the parent),
// the parent-to-child transform is E = Rᵀ, r = p.
type Transform struct {
	E Mat3
	R Vec3
}

// IdentityTransform maps every frame onto itself.
var IdentityTransform = Transform{E: Identity3}

// FromPose returns the parent-to-child transform of a child posed at (rot, pos) in its parent.
func FromPose(rot Mat3, pos Vec3) Transform { return Transform{E: rot.T(), R: pos} }

// Pose returns the child's pose (rotation, position) in the parent, the inverse of FromPose.
func (x Transform) Pose() (Mat3, Vec3) { return x.E.T(), x.R }

// Then composes x (A→B) followed by y (B→C) into the A→C transform.
func (x Transform) Then(y Transform) Transform {
	return Transform{E: y.E.Mul(x.E), R: x.R.Add(x.E.TMulVec(y.R))}
}

// Inverse returns the B→A transform.
func (x Transform) Inverse() Transform {
	return Transform{E: x.E.T(), R: x.E.MulVec(x.R).Scale(-1)}
}

// ApplyMotion maps a motion from A to B coordinates: [Eω; E(v - r×ω)].
func (x Transform) ApplyMotion(m Motion) Motion {
	w, v := m.Ang(), m.Lin()
	return MakeMotion(x.E.MulVec(w), x.E.MulVec(v.Sub(x.R.Cross(w))))
}

// InvApplyMotion maps a motion from B to A coordinates: [Eᵀω; Eᵀv + r×Eᵀω].
func (x Transform) InvApplyMotion(m Motion) Motion {
	w := x.E.TMulVec(m.Ang())
	return MakeMotion(w, x.E.TMulVec(m.Lin()).Add(x.R.Cross(w)))
}

// ApplyForce maps a force from A to B coordinates: [E(n - r×f); Ef].
func (x Transform) ApplyForce(f Force) Force {
	n, l := f.Ang(), f.Lin()
	return MakeForce(x.E.MulVec(n.Sub(x.R.Cross(l))), x.E.MulVec(l))
}

// InvApplyForce maps a force from B to A coordinates (Xᵀ f): [Eᵀn + r×Eᵀf; Eᵀf].
func (x Transform) InvApplyForce(f Force) Force {
	l := x.E.TMulVec(f.Lin())
	return MakeForce(x.E.TMulVec(f.Ang()).Add(x.R.Cross(l)), l)
}

// Matrix returns X as a 6×6 matrix acting on motion vectors.
func (x Transform) Matrix() Mat6 {
	var m Mat6
	erx := x.E.Mul(x.R.Skew())
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i][j] = x.E[i][j]
			m[i+3][j+3] = x.E[i][j]
			m[i+3][j] = -erx[i][j]
		}
	}
	return m
}

// RotX, RotY and RotZ are the rotation matrices about the coordinate axes (columns: rotated axes).
func RotX(a float64) Mat3 {
	c, s := math.Cos(a), math.Sin(a)
	return Mat3{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

// RotY is the rotation by a about y.
func RotY(a float64) Mat3 {
	c, s := math.Cos(a), math.Sin(a)
	return Mat3{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}
}

// RotZ is the rotation by a about z.
func RotZ(a float64) Mat3 {
	c, s := math.Cos(a), math.Sin(a)
	return Mat3{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
}

// RPY returns the URDF fixed-axis roll-pitch-yaw rotation Rz(yaw)·Ry(pitch)·Rx(roll).
func RPY(rpy Vec3) Mat3 { return RotZ(rpy[2]).Mul(RotY(rpy[1])).Mul(RotX(rpy[0])) }

// AxisAngle returns the rotation by angle about the unit axis (Rodrigues).
func AxisAngle(axis Vec3, angle float64) Mat3 {
	k := axis.Skew()
	return Identity3.Add(k.Scale(math.Sin(angle))).Add(k.Mul(k).Scale(1 - math.Cos(angle)))
}

// QuatToMat returns the rotation of the Hamilton quaternion (x, y, z, w) scaled to unit norm: only its
// direction matters, so derivatives with respect to the raw quaternion are those of q/|q|.
func QuatToMat(x, y, z, w float64) Mat3 {
	s := 2 / (x*x + y*y + z*z + w*w)
	return Mat3{
		{1 - s*(y*y+z*z), s * (x*y - z*w), s * (x*z + y*w)},
		{s * (x*y + z*w), 1 - s*(x*x+z*z), s * (y*z - x*w)},
		{s * (x*z - y*w), s * (y*z + x*w), 1 - s*(x*x+y*y)},
	}
}

// MatToQuat returns the Hamilton unit quaternion (x, y, z, w) of a rotation, with w ≥ 0. The result is
// normalised: without that, a quaternion → matrix → quaternion round trip amplifies a norm error of ε by
// about 2 each time, and repeated integration steps blow up.
func MatToQuat(r Mat3) (x, y, z, w float64) {
	tr := r[0][0] + r[1][1] + r[2][2]
	switch {
	case tr > 0:
		s := 2 * math.Sqrt(tr+1)
		w, x, y, z = s/4, (r[2][1]-r[1][2])/s, (r[0][2]-r[2][0])/s, (r[1][0]-r[0][1])/s
	case r[0][0] > r[1][1] && r[0][0] > r[2][2]:
		s := 2 * math.Sqrt(1+r[0][0]-r[1][1]-r[2][2])
		w, x, y, z = (r[2][1]-r[1][2])/s, s/4, (r[0][1]+r[1][0])/s, (r[0][2]+r[2][0])/s
	case r[1][1] > r[2][2]:
		s := 2 * math.Sqrt(1+r[1][1]-r[0][0]-r[2][2])
		w, x, y, z = (r[0][2]-r[2][0])/s, (r[0][1]+r[1][0])/s, s/4, (r[1][2]+r[2][1])/s
	default:
		s := 2 * math.Sqrt(1+r[2][2]-r[0][0]-r[1][1])
		w, x, y, z = (r[1][0]-r[0][1])/s, (r[0][2]+r[2][0])/s, (r[1][2]+r[2][1])/s, s/4
	}
	n := math.Sqrt(x*x + y*y + z*z + w*w)
	if w < 0 {
		n = -n
	}
	return x / n, y / n, z / n, w / n
}

// ExpSO3 returns exp([w]×), the rotation by |w| about w.
func ExpSO3(w Vec3) Mat3 {
	th := w.Norm()
	if th < 1e-12 {
		return Identity3.Add(w.Skew())
	}
	return AxisAngle(w.Scale(1/th), th)
}

// LogSO3 returns the rotation vector w with ExpSO3(w) = r, for rotation angles below π.
func LogSO3(r Mat3) Vec3 {
	c := (r[0][0] + r[1][1] + r[2][2] - 1) / 2
	c = math.Max(-1, math.Min(1, c))
	th := math.Acos(c)
	v := Vec3{r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]}
	if th < 1e-12 {
		return v.Scale(0.5)
	}
	return v.Scale(th / (2 * math.Sin(th)))
}

// ExpSE3 returns the pose (rotation, translation) reached by following the body twist [ω; v] for unit time.
func ExpSE3(t Motion) (Mat3, Vec3) {
	w, v := t.Ang(), t.Lin()
	th := w.Norm()
	k := w.Skew()
	var a, b float64 // V = I + a[ω]× + b[ω]×²
	if th < 1e-8 {
		a, b = 0.5, 1.0/6
	} else {
		a, b = (1-math.Cos(th))/(th*th), (th-math.Sin(th))/(th*th*th)
	}
	vm := Identity3.Add(k.Scale(a)).Add(k.Mul(k).Scale(b))
	return ExpSO3(w), vm.MulVec(v)
}
