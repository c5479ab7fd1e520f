package spatial

// Inertia is a rigid-body inertia about the body-frame origin: mass M, first moment H = M·c and the
// rotational inertia I about the origin (not the centre of mass).
type Inertia struct {
	M float64
	H Vec3
	I Mat3
}

// InertiaFromCOM builds the inertia of a body of mass m whose centre of mass is at c and whose rotational
// inertia about the centre of mass, in body axes, is ic.
func InertiaFromCOM(m float64, c Vec3, ic Mat3) Inertia {
	// parallel axis: I_o = I_c - m [c]×[c]×
	cx := c.Skew()
	return Inertia{M: m, H: c.Scale(m), I: ic.Add(cx.Mul(cx).Scale(-m))}
}

// Params returns the 10 parameters [m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz].
func (in Inertia) Params() [10]float64 {
	return [10]float64{in.M, in.H[0], in.H[1], in.H[2],
		in.I[0][0], in.I[0][1], in.I[0][2], in.I[1][1], in.I[1][2], in.I[2][2]}
}

// DynamicParameters returns Pinocchio's dynamic parameters [m, hx, hy, hz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]
// (the inertial-parameter layout of the joint-torque regressor).
func (in Inertia) DynamicParameters() [10]float64 {
	return [10]float64{in.M, in.H[0], in.H[1], in.H[2],
		in.I[0][0], in.I[0][1], in.I[1][1], in.I[0][2], in.I[1][2], in.I[2][2]}
}

// InertiaFromDynamicParameters is the inertia of Pinocchio's dynamic parameters p, the inverse of
// DynamicParameters; any ten numbers give one (physical or not), linearly.
func InertiaFromDynamicParameters(p [10]float64) Inertia {
	return Inertia{M: p[0], H: Vec3{p[1], p[2], p[3]},
		I: Mat3{{p[4], p[5], p[7]}, {p[5], p[6], p[8]}, {p[7], p[8], p[9]}}}
}

// Add returns the inertia of two bodies rigidly joined (both in the same coordinates).
func (in Inertia) Add(o Inertia) Inertia {
	return Inertia{M: in.M + o.M, H: in.H.Add(o.H), I: in.I.Add(o.I)}
}

// MulMotion returns the momentum I·v = [Īω + h×v; m v - h×ω].
func (in Inertia) MulMotion(v Motion) Force {
	w, l := v.Ang(), v.Lin()
	return MakeForce(in.I.MulVec(w).Add(in.H.Cross(l)), l.Scale(in.M).Sub(in.H.Cross(w)))
}

// ToParent expresses a body inertia given in B coordinates in A coordinates, Xᵀ I X for x: A→B.
func (in Inertia) ToParent(x Transform) Inertia {
	et := x.E.T()
	h := et.MulVec(in.H)
	ia := et.Mul(in.I).Mul(x.E)
	rx, hx := x.R.Skew(), h.Skew()
	hp := h.Add(x.R.Scale(in.M))
	// Ī_A = EᵀĪE - [r]×[Eᵀh]× - [Eᵀh + m r]×[r]×
	ia = ia.Add(rx.Mul(hx).Scale(-1)).Add(hp.Skew().Mul(rx).Scale(-1))
	return Inertia{M: in.M, H: hp, I: ia}
}

// Matrix returns the 6×6 spatial inertia [Ī [h]×; -[h]× m·1], acting on [ω; v].
func (in Inertia) Matrix() Mat6 {
	var m Mat6
	hx := in.H.Skew()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i][j] = in.I[i][j]
			m[i][j+3] = hx[i][j]
			m[i+3][j] = -hx[i][j]
		}
		m[i+3][i+3] = in.M
	}
	return m
}
