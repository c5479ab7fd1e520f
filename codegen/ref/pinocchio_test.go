package ref

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
	"gonum.org/v1/gonum/mat"
)

// pinocchioVectors is one file written by tests/pinocchio/make_ref_vectors.py.
type pinocchioVectors struct {
	Robot          string    `json:"robot"`
	URDF           string    `json:"urdf"`
	FreeFlyerAdded bool      `json:"free_flyer_added"`
	Gravity        []float64 `json:"gravity"`
	NQ             int       `json:"nq"`
	NV             int       `json:"nv"`
	JointNames     []string  `json:"joint_names"`
	FrameNames     []string  `json:"frame_names"`
	Cases          []struct {
		Q, QD, QDD, Tau []float64
		RNEA            []float64   `json:"rnea"`
		CRBA            [][]float64 `json:"crba"`
		Minv            [][]float64 `json:"minv"`
		ABA             []float64   `json:"aba"`
		RNEADq          [][]float64 `json:"rnea_dq"`
		RNEADqd         [][]float64 `json:"rnea_dqd"`
		ABADq           [][]float64 `json:"aba_dq"`
		ABADqd          [][]float64 `json:"aba_dqd"`
		Frames          map[string]struct {
			Position []float64   `json:"position"`
			Rotation [][]float64 `json:"rotation"`
		} `json:"frames"`
	} `json:"cases"`
}

func (v *pinocchioVectors) urdfPath(t *testing.T) string {
	kind, file, _ := strings.Cut(v.URDF, ":")
	switch kind {
	case "shared":
		return testrobots.Shared(t, file)
	case "repo":
		return filepath.Join(testrobots.RepoRoot(), file)
	}
	t.Fatalf("unknown urdf location %q", v.URDF)
	return ""
}

func flatten(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func denseRows(m *mat.Dense) []float64 {
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, m.RawRowView(i)...)
	}
	return out
}

func symRows(m *mat.SymDense) []float64 {
	n := m.SymmetricDim()
	out := make([]float64, 0, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out = append(out, m.At(i, j))
		}
	}
	return out
}

// TestAgreesWithPinocchio compares every reference algorithm with Pinocchio's values to 1e-9 relative
// to each output's largest magnitude, and the derivatives (RNEADerivatives with gravity, ABADerivatives)
// to 1e-8 relative to each matrix's largest magnitude.
func TestAgreesWithPinocchio(t *testing.T) {
	files, err := filepath.Glob("testdata/pinocchio/*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("want at least four Pinocchio vector files, found %v (%v)", files, err)
	}
	floating := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var v pinocchioVectors
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		t.Run(v.Robot, func(t *testing.T) {
			r, err := model.Load(v.urdfPath(t), urdf.Options{}, model.Options{FreeFlyer: v.FreeFlyerAdded})
			if err != nil {
				t.Fatal(err)
			}
			if r.FloatingBase() {
				floating++
			}
			var names []string
			for _, j := range r.Joints {
				names = append(names, j.Name)
			}
			if d := cmp.Diff(v.JointNames, names); d != "" {
				t.Fatalf("joint order (-pinocchio +ours):\n%s", d)
			}
			if r.NQ != v.NQ || r.NV != v.NV {
				t.Fatalf("nq, nv = %d, %d; Pinocchio (our convention) %d, %d", r.NQ, r.NV, v.NQ, v.NV)
			}
			const tol = 1e-9
			check := func(k int, what string, got, want []float64) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("case %d %s: length %d, want %d", k, what, len(got), len(want))
				}
				if e := relErr(got, want); e > tol {
					t.Errorf("case %d %s: relative error %.3g", k, what, e)
				}
			}
			const derivTol = 1e-8
			derivNames := []string{"rnea_dq", "rnea_dqd", "aba_dq", "aba_dqd"}
			maxDeriv := make(map[string]float64)
			checkMatrix := func(k int, what string, got *mat.Dense, want [][]float64) {
				t.Helper()
				if len(want) != r.NV {
					t.Fatalf("case %d %s: %d rows in the file, want %d", k, what, len(want), r.NV)
				}
				for i, row := range want {
					if len(row) != r.NV {
						t.Fatalf("case %d %s: row %d has %d entries in the file, want %d", k, what, i, len(row), r.NV)
					}
				}
				e := relErr(denseRows(got), flatten(want))
				if e > maxDeriv[what] {
					maxDeriv[what] = e
				}
				if e > derivTol {
					t.Errorf("case %d %s: relative error %.3g > %g", k, what, e, derivTol)
				}
			}
			for k, c := range v.Cases {
				dq, dqd := RNEADerivatives(r, c.Q, c.QD, c.QDD, true)
				checkMatrix(k, "rnea_dq", dq, c.RNEADq)
				checkMatrix(k, "rnea_dqd", dqd, c.RNEADqd)
				adq, adqd, _ := ABADerivatives(r, c.Q, c.QD, c.Tau)
				checkMatrix(k, "aba_dq", adq, c.ABADq)
				checkMatrix(k, "aba_dqd", adqd, c.ABADqd)
				check(k, "rnea", RNEA(r, c.Q, c.QD, c.QDD, true), c.RNEA)
				check(k, "crba", symRows(CRBA(r, c.Q)), flatten(c.CRBA))
				inv, err := Minv(r, c.Q)
				if err != nil {
					t.Fatal(err)
				}
				check(k, "minv", symRows(inv), flatten(c.Minv))
				check(k, "aba", ABA(r, c.Q, c.QD, c.Tau), c.ABA)
				poses := FramePoses(r, c.Q)
				if len(v.FrameNames) != len(r.Frames) {
					t.Errorf("Pinocchio has %d frames, we have %d", len(v.FrameNames), len(r.Frames))
				}
				for _, name := range v.FrameNames {
					f := r.FrameIndex(name)
					if f < 0 {
						t.Fatalf("frame %q missing", name)
					}
					want := c.Frames[name]
					p := poses[f]
					check(k, name+" position", p.Position[:], want.Position)
					rot := p.Rotation
					check(k, name+" rotation", append(append(rot[0][:], rot[1][:]...), rot[2][:]...), flatten(want.Rotation))
				}
			}
			for _, what := range derivNames {
				t.Logf("%s: max relative error over %d cases %.3g", what, len(v.Cases), maxDeriv[what])
			}
		})
	}
	if floating < 2 {
		t.Errorf("want at least two floating-base robots among the vectors, found %d", floating)
	}
}
