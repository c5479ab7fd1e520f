package emit

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
	"gonum.org/v1/gonum/mat"
)

// meta mirrors the parts of metadata.json the tests read.
type meta struct {
	NQ     int `json:"nq"`
	NV     int `json:"nv"`
	Frames []struct {
		Name string `json:"name"`
	} `json:"frames"`
	Algorithms []struct {
		Name    string `json:"name"`
		Frame   bool   `json:"frame"`
		Gravity bool   `json:"gravity"`
		Inputs  []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
		} `json:"inputs"`
		Outputs []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
		} `json:"outputs"`
	} `json:"algorithms"`
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// testGravity is deliberately not along -z, so that axis or sign mistakes in gravity show.
var testGravity = spatial.Vec3{0.3, -0.2, -9.81}

// driverSource writes a C++ program that runs every entry point's host wrapper on inputs read from a file,
// in double and then in float, and writes all outputs as doubles.
func driverSource(m *meta) string {
	var b strings.Builder
	b.WriteString(`#include "grid.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T>
static std::vector<T> read_values(FILE* in, size_t n) {
    std::vector<double> raw(n);
    if (fread(raw.data(), sizeof(double), n, in) != n) { fprintf(stderr, "short input\n"); exit(2); }
    return std::vector<T>(raw.begin(), raw.end());
}

template <typename T>
static void write_values(FILE* out, const std::vector<T>& v) {
    std::vector<double> raw(v.begin(), v.end());
    fwrite(raw.data(), sizeof(double), raw.size(), out);
}

static void check(grid::Status s, const char* what) {
    if (!s.is_ok()) { fprintf(stderr, "%s failed: %s\n", what, s.message); exit(3); }
}

template <typename T>
static void run_all(FILE* in, FILE* out, int n, grid::Vec3<T> gravity) {
    (void)gravity;
`)
	for _, a := range m.Algorithms {
		fmt.Fprintf(&b, "    {  // %s\n", a.Name)
		var args []string
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "        std::vector<T> %s(size_t(n) * %d);\n", o.Name, size(o.Shape))
			args = append(args, o.Name+".data()")
		}
		for _, i := range a.Inputs {
			fmt.Fprintf(&b, "        std::vector<T> %s = read_values<T>(in, size_t(n) * %d);\n", i.Name, size(i.Shape))
			args = append(args, i.Name+".data()")
		}
		frames := "1"
		if a.Frame {
			frames = "grid::NF"
			args = append(args, "f")
		}
		if a.Gravity {
			args = append(args, "gravity")
		}
		args = append(args, "n")
		fmt.Fprintf(&b, "        for (int f = 0; f < %s; ++f) {\n", frames)
		fmt.Fprintf(&b, "            check(grid::%s<T>(%s), %q);\n", a.Name, strings.Join(args, ", "), a.Name)
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "            write_values(out, %s);\n", o.Name)
		}
		b.WriteString("        }\n    }\n")
	}
	b.WriteString(`}

int main(int argc, char** argv) {
    if (argc != 3) { fprintf(stderr, "usage: driver IN OUT\n"); return 1; }
    FILE* in = fopen(argv[1], "rb");
    FILE* out = fopen(argv[2], "wb");
    if (!in || !out) { fprintf(stderr, "cannot open files\n"); return 1; }
    int n = 0;
    double g[3];
    if (fread(&n, sizeof(int), 1, in) != 1 || fread(g, sizeof(double), 3, in) != 3) return 2;
    const long start = ftell(in);
    run_all<double>(in, out, n, grid::Vec3<double>{g[0], g[1], g[2]});
    fseek(in, start, SEEK_SET);
    run_all<float>(in, out, n, grid::Vec3<float>{float(g[0]), float(g[1]), float(g[2])});
    fclose(out);
    return 0;
}
`)
	return b.String()
}

// hostBuild generates a robot's header and driver into dir and compiles them with the host compiler.
func hostBuild(t *testing.T, r *model.Robot, dir string) (*meta, string) {
	t.Helper()
	out, err := Generate(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := json.Unmarshal(out.Metadata, &m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grid.cuh"), []byte(out.Header), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "driver.cpp")
	if err := os.WriteFile(src, []byte(driverSource(&m)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "driver")
	kernels := filepath.Join(testrobots.RepoRoot(), "kernels")
	cmd := exec.Command("c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", kernels, "-I", dir, src, "-o", bin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("host build of %s failed: %v\n%s", r.Name, err, msg)
	}
	return &m, bin
}

type sample struct{ q, qd, qdd, tau []float64 }

func randomSamples(r *model.Robot, n int, seed uint64) []sample {
	rng := rand.New(rand.NewPCG(seed, 11))
	normals := func(scale float64) []float64 {
		v := make([]float64, r.NV)
		for i := range v {
			v[i] = scale * rng.NormFloat64()
		}
		return v
	}
	out := make([]sample, n)
	for k := range out {
		vscale := 1.0
		if k%2 == 1 {
			vscale = 10 // large velocities
		}
		out[k] = sample{r.RandomConfiguration(rng), normals(vscale), normals(3), normals(10)}
	}
	return out
}

func (s sample) input(name string) []float64 {
	switch name {
	case "q":
		return s.q
	case "qd":
		return s.qd
	case "qdd":
		return s.qdd
	case "tau":
		return s.tau
	}
	panic("unknown input " + name)
}

func rows(m mat.Matrix) []float64 {
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out = append(out, m.At(i, j))
		}
	}
	return out
}

// reference computes an entry point's outputs, concatenated, for one sample (and frame).
func reference(t *testing.T, r *model.Robot, algo string, s sample, frame int) [][]float64 {
	zero := make([]float64, r.NV)
	switch algo {
	case "frame_poses":
		var pos, rot, quat []float64
		for _, p := range ref.FramePoses(r, s.q) {
			pos = append(pos, p.Position[:]...)
			for i := 0; i < 3; i++ {
				rot = append(rot, p.Rotation[i][:]...)
			}
			x, y, z, w := spatial.MatToQuat(p.Rotation)
			quat = append(quat, x, y, z, w)
		}
		return [][]float64{pos, rot, quat}
	case "inverse_dynamics":
		return [][]float64{ref.RNEA(r, s.q, s.qd, s.qdd, true)}
	case "bias_forces":
		return [][]float64{ref.RNEA(r, s.q, s.qd, zero, true)}
	case "gravity_forces":
		return [][]float64{ref.RNEA(r, s.q, zero, zero, true)}
	case "mass_matrix":
		return [][]float64{rows(ref.CRBA(r, s.q))}
	case "minv":
		inv, err := ref.Minv(r, s.q)
		if err != nil {
			t.Fatal(err)
		}
		return [][]float64{rows(inv)}
	case "forward_dynamics", "aba":
		return [][]float64{ref.ABA(r, s.q, s.qd, s.tau)}
	case "frame_jacobian":
		return [][]float64{rows(mat.NewDense(6, r.NV, flattenRows(ref.FrameJacobian(r, s.q, frame))))}
	}
	t.Fatalf("no reference for entry point %q", algo)
	return nil
}

func flattenRows(m [][]float64) []float64 {
	var out []float64
	for _, r := range m {
		out = append(out, r...)
	}
	return out
}

// condM is the 2-norm condition number of the mass matrix at q.
func condM(r *model.Robot, q []float64) float64 {
	var svd mat.SVD
	if !svd.Factorize(ref.CRBA(r, q), mat.SVDNone) {
		return math.Inf(1)
	}
	return svd.Cond()
}

// hostErrors runs the host build of a robot and returns, per entry point and precision, the largest error
// relative to each output's largest magnitude (float errors of M⁻¹-based outputs divided by cond(M)).
func hostErrors(t *testing.T, r *model.Robot) (map[string][2]float64, float64) {
	dir := t.TempDir()
	m, bin := hostBuild(t, r, dir)
	const n = 4
	samples := randomSamples(r, n, 21)
	var in bytes.Buffer
	binary.Write(&in, binary.LittleEndian, int32(n))
	binary.Write(&in, binary.LittleEndian, testGravity[:])
	for _, a := range m.Algorithms {
		for _, inp := range a.Inputs {
			for _, s := range samples {
				binary.Write(&in, binary.LittleEndian, s.input(inp.Name))
			}
		}
	}
	inPath, outPath := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(bin, inPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, msg)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, len(raw)/8)
	binary.Read(bytes.NewReader(raw), binary.LittleEndian, got)

	cond := 0.0
	for _, s := range samples {
		cond = math.Max(cond, condM(r, s.q))
	}
	errs := map[string][2]float64{}
	pos := 0
	for prec := 0; prec < 2; prec++ {
		for _, a := range m.Algorithms {
			frames := 1
			if a.Frame {
				frames = len(m.Frames)
			}
			for f := 0; f < frames; f++ {
				wants := make([][][]float64, n)
				for k, s := range samples {
					wants[k] = reference(t, r, a.Name, s, f)
				}
				for o, out := range a.Outputs {
					sz := size(out.Shape)
					for k := 0; k < n; k++ {
						g := got[pos+k*sz : pos+(k+1)*sz]
						e := relErr(a.Name+"."+out.Name, g, wants[k][o])
						cur := errs[a.Name]
						cur[prec] = math.Max(cur[prec], e)
						errs[a.Name] = cur
					}
					pos += n * sz
				}
			}
		}
	}
	if pos != len(got) {
		t.Fatalf("driver wrote %d values, expected %d", len(got), pos)
	}
	return errs, cond
}

// relErr is max|got - want| / max|want|; NaN anywhere is an infinite error. Quaternions compare up to sign.
func relErr(what string, got, want []float64) float64 {
	if strings.HasSuffix(what, ".quat") {
		got = append([]float64(nil), got...)
		for i := 0; i+3 < len(got); i += 4 {
			if got[i]*want[i]+got[i+1]*want[i+1]+got[i+2]*want[i+2]+got[i+3]*want[i+3] < 0 {
				for k := 0; k < 4; k++ {
					got[i+k] = -got[i+k]
				}
			}
		}
	}
	d, scale := 0.0, 0.0
	for i := range want {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) {
			return math.Inf(1)
		}
		d = math.Max(d, math.Abs(got[i]-want[i]))
		scale = math.Max(scale, math.Abs(want[i]))
	}
	if scale == 0 {
		return d
	}
	return d / scale
}

// minvBased lists the outputs whose float32 error scales with cond(M).
var minvBased = map[string]bool{"minv": true, "forward_dynamics": true, "aba": true}

// TestHostBuildMatchesReference compiles every robot's generated header for the host and compares every
// entry point with codegen/ref: float64 to 1e-10 relative to the output's largest magnitude, float32 to
// 1e-4 (times cond(M) for M⁻¹-based outputs).
func TestHostBuildMatchesReference(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Fatal("a C++17 compiler (c++) is needed for the host build tests")
	}
	type result struct {
		errs map[string][2]float64
		cond float64
	}
	var mu sync.Mutex
	results := map[string]result{}
	t.Run("robots", func(t *testing.T) {
		for _, tr := range testrobots.WithExampleRobots(t) {
			t.Run(tr.Name, func(t *testing.T) {
				t.Parallel()
				r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
				if err != nil {
					t.Fatal(err)
				}
				r.Gravity = testGravity
				errs, cond := hostErrors(t, r)
				for algo, e := range errs {
					if e[0] > 1e-10 {
						t.Errorf("%s float64: relative error %.3g > 1e-10", algo, e[0])
					}
					tol := 1e-4
					if minvBased[algo] {
						tol *= cond
					}
					if e[1] > tol {
						t.Errorf("%s float32: relative error %.3g > %.3g", algo, e[1], tol)
					}
				}
				mu.Lock()
				results[tr.Name] = result{errs, cond}
				mu.Unlock()
			})
		}
	})
	// The measured float32 errors, for the record.
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "float32 relative errors (float64 in parentheses):\n")
	for _, n := range names {
		res := results[n]
		algos := make([]string, 0, len(res.errs))
		for a := range res.errs {
			algos = append(algos, a)
		}
		sort.Strings(algos)
		fmt.Fprintf(&b, "  %-20s cond(M) %9.3g:", n, res.cond)
		for _, a := range algos {
			fmt.Fprintf(&b, " %s %.2g (%.1g)", a, res.errs[a][1], res.errs[a][0])
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}
