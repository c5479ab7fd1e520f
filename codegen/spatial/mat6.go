package spatial

// Mat6 is a 6×6 spatial matrix, indexed [row][col]; used for articulated-body inertias, which are not
// rigid-body inertias and so have no 10-parameter form.
type Mat6 [6][6]float64

// MulMotion returns m·v as a force (articulated inertia times motion).
func (m *Mat6) MulMotion(v Motion) Force {
	var f Force
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			f[i] += m[i][j] * v[j]
		}
	}
	return f
}

// Mul returns m·n.
func (m *Mat6) Mul(n *Mat6) Mat6 {
	var p Mat6
	for i := 0; i < 6; i++ {
		for k := 0; k < 6; k++ {
			if m[i][k] == 0 {
				continue
			}
			for j := 0; j < 6; j++ {
				p[i][j] += m[i][k] * n[k][j]
			}
		}
	}
	return p
}

// T returns mᵀ.
func (m *Mat6) T() Mat6 {
	var p Mat6
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			p[i][j] = m[j][i]
		}
	}
	return p
}

// Add returns m + n.
func (m *Mat6) Add(n *Mat6) Mat6 {
	var p Mat6
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			p[i][j] = m[i][j] + n[i][j]
		}
	}
	return p
}

// ToParent returns Xᵀ m X for x: A→B, expressing an articulated inertia given in B coordinates in A.
func (m *Mat6) ToParent(x Transform) Mat6 {
	xm := x.Matrix()
	xt := xm.T()
	mx := m.Mul(&xm)
	return xt.Mul(&mx)
}
