package spatial

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randVec(r *rand.Rand) Vec3 { return Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()} }

func randTransform(r *rand.Rand) Transform {
	return Transform{E: RPY(randVec(r)), R: randVec(r)}
}

func randMotion(r *rand.Rand) Motion { return MakeMotion(randVec(r), randVec(r)) }

func randInertia(r *rand.Rand) Inertia {
	a := randVec(r)
	ic := RPY(randVec(r))
	d := Mat3{{1 + math.Abs(a[0]), 0, 0}, {0, 1 + math.Abs(a[1]), 0}, {0, 0, 1 + math.Abs(a[2])}}
	return InertiaFromCOM(1+r.Float64(), randVec(r), ic.Mul(d).Mul(ic.T()))
}

func mulVec6(m Mat6, v [6]float64) [6]float64 {
	var o [6]float64
	for i := range 6 {
		for j := range 6 {
			o[i] += m[i][j] * v[j]
		}
	}
	return o
}

func inv6(x Transform) Mat6 { return x.Inverse().Matrix() }

func near6(t *testing.T, what string, got, want [6]float64) {
	t.Helper()
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

func nearMat6(t *testing.T, what string, got, want Mat6) {
	t.Helper()
	for i := range got {
		near6(t, what, got[i], want[i])
	}
}

// Each operation is checked against its definition as a 6×6 matrix product.
func TestOperationsMatchMatrixDefinitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		x, y := randTransform(r), randTransform(r)
		m, n := randMotion(r), randMotion(r)
		f := Force(randMotion(r))
		in := randInertia(r)
		xm := x.Matrix()
		xmT := xm.T()
		xinv := inv6(x)
		xinvT := xinv.T()

		near6(t, "ApplyMotion", x.ApplyMotion(m), mulVec6(xm, m))
		near6(t, "InvApplyMotion", x.InvApplyMotion(m), mulVec6(xinv, m))
		near6(t, "ApplyForce", x.ApplyForce(f), mulVec6(xinvT, f))
		near6(t, "InvApplyForce", x.InvApplyForce(f), mulVec6(xmT, f))
		ym := y.Matrix()
		nearMat6(t, "Then", x.Then(y).Matrix(), ym.Mul(&xm))
		id := x.Then(x.Inverse()).Matrix()
		nearMat6(t, "Inverse", id, IdentityTransform.Matrix())

		im := in.Matrix()
		near6(t, "MulMotion", in.MulMotion(m), mulVec6(im, m))
		nearMat6(t, "Inertia.ToParent", in.ToParent(x).Matrix(), im.ToParent(x))

		// crf(v) = -crm(v)ᵀ: the power identity (v×m)·f = -m·(v×*f).
		lhs := m.CrossMotion(n).Dot(f)
		rhs := -n.Dot(m.CrossForce(f))
		if math.Abs(lhs-rhs) > 1e-12*(1+math.Abs(lhs)) {
			t.Fatalf("cross products not dual: %g vs %g", lhs, rhs)
		}
	}
}

func TestRotations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		rot := RPY(randVec(r).Scale(2))
		x, y, z, w := MatToQuat(rot)
		if n := x*x + y*y + z*z + w*w; math.Abs(n-1) > 1e-12 {
			t.Fatalf("quaternion not unit: %g", n)
		}
		back := QuatToMat(x, y, z, w)
		for i := range 3 {
			for j := range 3 {
				if math.Abs(back[i][j]-rot[i][j]) > 1e-12 {
					t.Fatalf("quaternion round trip: %v vs %v", back, rot)
				}
			}
		}
		wv := randVec(r)
		if wv.Norm() < 3 {
			got := LogSO3(ExpSO3(wv))
			if got.Sub(wv).Norm() > 1e-9 {
				t.Fatalf("log(exp(%v)) = %v", wv, got)
			}
		}
	}
	// RPY is URDF's fixed-axis convention: roll about x first, then pitch about y, then yaw about z.
	got := RPY(Vec3{math.Pi / 2, 0, math.Pi / 2}).MulVec(Vec3{0, 1, 0})
	if got.Sub(Vec3{0, 0, 1}).Norm() > 1e-12 {
		t.Fatalf("RPY(π/2, 0, π/2)·ŷ = %v, want ẑ", got)
	}
}

// ExpSE3 of a twist agrees with integrating the body-frame motion in many small steps.
func TestExpSE3(t *testing.T) {
	tw := Motion{0.3, -0.7, 1.1, 0.5, 0.2, -0.4}
	rot, pos := Identity3, Vec3{}
	const steps = 200000
	h := 1.0 / steps
	for range steps {
		dr, dp := ExpSO3(tw.Ang().Scale(h)), tw.Lin().Scale(h)
		pos = pos.Add(rot.MulVec(dp))
		rot = rot.Mul(dr)
	}
	gotR, gotP := ExpSE3(tw)
	if gotP.Sub(pos).Norm() > 1e-5 || LogSO3(gotR.T().Mul(rot)).Norm() > 1e-9 {
		t.Fatalf("ExpSE3 = %v %v, integrated %v %v", gotR, gotP, rot, pos)
	}
}

// Converting back and forth must not amplify a quaternion's norm error (integrators do it every step).
func TestQuaternionRoundTripIsStable(t *testing.T) {
	// A norm slightly above one is the case that grows without renormalisation.
	n0 := math.Sqrt(0.36*0.36+0.58*0.58+0.24*0.24+0.69*0.69) / (1 + 1e-10)
	x, y, z, w := 0.36/n0, -0.58/n0, 0.24/n0, 0.69/n0
	for range 1000 {
		x, y, z, w = MatToQuat(QuatToMat(x, y, z, w))
	}
	if n := math.Sqrt(x*x + y*y + z*z + w*w); math.Abs(n-1) > 1e-12 || math.IsNaN(n) {
		t.Fatalf("norm after 1000 round trips: %.17g", n)
	}
}
