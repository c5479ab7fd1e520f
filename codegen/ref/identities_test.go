package ref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
	"gonum.org/v1/gonum/mat"
)

// state is one random test state.
type state struct {
	q, qd, qdd []float64
}

func normals(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// randomStates draws states with ordinary and with large velocities.
func randomStates(r *model.Robot, seed uint64) []state {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []state
	for _, vscale := range []float64{1, 1, 10, 30} {
		out = append(out, state{r.RandomConfiguration(rng), normals(rng, r.NV, vscale), normals(rng, r.NV, 3)})
	}
	return out
}

// testModels builds every test robot, both with its intended base and with the other one where that is
// well posed.
func testModels(t *testing.T) map[string]*model.Robot {
	t.Helper()
	out := map[string]*model.Robot{}
	for _, tr := range testrobots.All(t) {
		bases := []bool{false, true}
		for _, ff := range bases {
			name := tr.Name + map[bool]string{false: "/fixed", true: "/floating"}[ff]
			r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: ff})
			if err != nil {
				// branchy floats through its own URDF joint and refuses a second free-flyer.
				if tr.Name == "branchy" && ff {
					continue
				}
				t.Fatalf("%s: %v", name, err)
			}
			// A free-flyer on a massless root link with one revolute child is singular, and on a nearly
			// massless one (fetch's 1 g mount) ill-conditioned beyond float64 identities: skip those.
			if ff && r.Joints[0].Inertia.M < 0.01*r.TotalMass() {
				continue
			}
			out[name] = r
		}
	}
	return out
}

// maxAbs is the largest magnitude in v.
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// relErr is max|got - want| / max|want|.
func relErr(got, want []float64) float64 {
	d := 0.0
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
	}
	return d / math.Max(maxAbs(want), 1e-300)
}

func TestABAInvertsRNEA(t *testing.T) {
	for name, r := range testModels(t) {
		for k, s := range randomStates(r, 1) {
			tau := RNEA(r, s.q, s.qd, s.qdd, true)
			got := ABA(r, s.q, s.qd, tau)
			if e := relErr(got, s.qdd); e > 1e-10 {
				t.Errorf("%s state %d: ABA(RNEA(qdd)) differs from qdd by %.3g relative", name, k, e)
			}
		}
	}
}

func TestMassMatrix(t *testing.T) {
	for name, r := range testModels(t) {
		for k, s := range randomStates(r, 2) {
			m := CRBA(r, s.q)
			// Columns of M are RNEA with zero velocity and gravity and a unit acceleration.
			zero := make([]float64, r.NV)
			for c := 0; c < r.NV; c++ {
				e := make([]float64, r.NV)
				e[c] = 1
				col := RNEA(r, s.q, zero, e, false)
				want := mat.Col(nil, c, m)
				if err := relErr(col, want); err > 1e-12 {
					t.Fatalf("%s state %d: column %d of CRBA differs from RNEA by %.3g", name, k, c, err)
				}
			}
			// RNEA(q, qd, qdd) = M qdd + RNEA(q, qd, 0) ties the velocity and gravity terms to M.
			var mq mat.VecDense
			mq.MulVec(m, mat.NewVecDense(r.NV, s.qdd))
			bias := RNEA(r, s.q, s.qd, zero, true)
			full := RNEA(r, s.q, s.qd, s.qdd, true)
			for i := range full {
				bias[i] += mq.AtVec(i)
			}
			if err := relErr(bias, full); err > 1e-10 {
				t.Errorf("%s state %d: RNEA is not affine in qdd with slope M (%.3g)", name, k, err)
			}
			var eig mat.EigenSym
			if !eig.Factorize(m, false) {
				t.Fatalf("%s: eigen-decomposition failed", name)
			}
			if ev := eig.Values(nil); ev[0] <= 0 {
				t.Errorf("%s state %d: M is not positive definite (smallest eigenvalue %g)", name, k, ev[0])
			}
			inv, err := Minv(r, s.q)
			if err != nil {
				t.Fatal(err)
			}
			var prod mat.Dense
			prod.Mul(m, inv)
			for i := 0; i < r.NV; i++ {
				for j := 0; j < r.NV; j++ {
					want := 0.0
					if i == j {
						want = 1
					}
					if d := math.Abs(prod.At(i, j) - want); d > 1e-10 {
						t.Fatalf("%s state %d: (M·Minv)[%d,%d] = %.12g", name, k, i, j, prod.At(i, j))
					}
				}
			}
		}
	}
}

// Jacobian columns match central differences of forward kinematics along each tangent direction.
func TestJacobiansMatchFiniteDifferences(t *testing.T) {
	const h = 1e-6
	for name, r := range testModels(t) {
		q := randomStates(r, 3)[0].q
		for f := range r.Frames {
			jac := FrameJacobian(r, q, f)
			for c := 0; c < r.NV; c++ {
				e := make([]float64, r.NV)
				e[c] = 1
				plus := FramePoses(r, r.Integrate(q, e, h))[f]
				minus := FramePoses(r, r.Integrate(q, e, -h))[f]
				w := spatial.LogSO3(plus.Rotation.Mul(minus.Rotation.T())).Scale(1 / (2 * h))
				v := plus.Position.Sub(minus.Position).Scale(1 / (2 * h))
				for k := 0; k < 3; k++ {
					if d := math.Max(math.Abs(jac[k][c]-w[k]), math.Abs(jac[3+k][c]-v[k])); d > 1e-7 {
						t.Fatalf("%s frame %s column %d: Jacobian [%v; %v] vs finite differences [%v; %v]",
							name, r.Frames[f].Name, c, col3(jac, 0, c), col3(jac, 3, c), w, v)
					}
				}
			}
		}
	}
}

func col3(j [][]float64, row, c int) string {
	return fmt.Sprintf("%.6g %.6g %.6g", j[row][c], j[row+1][c], j[row+2][c])
}

func TestJacobianDerivativesMatchFiniteDifferences(t *testing.T) {
	const h = 1e-6
	for name, r := range testModels(t) {
		q := randomStates(r, 3)[0].q
		for f := range r.Frames {
			d := FrameJacobianDerivative(r, q, f)
			for k := 0; k < r.NV; k++ {
				e := make([]float64, r.NV)
				e[k] = 1
				plus := FrameJacobian(r, r.Integrate(q, e, h), f)
				minus := FrameJacobian(r, r.Integrate(q, e, -h), f)
				for row := 0; row < 6; row++ {
					for c := 0; c < r.NV; c++ {
						want := (plus[row][c] - minus[row][c]) / (2 * h)
						if diff := math.Abs(d[row][c][k] - want); diff > 1e-6*math.Max(1, math.Abs(want)) {
							t.Fatalf("%s frame %s: ∂J[%d][%d]/∂θ_%d = %.9g, finite differences %.9g", name,
								r.Frames[f].Name, row, c, k, d[row][c][k], want)
						}
					}
				}
			}
		}
	}
}
