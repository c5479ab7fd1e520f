package emit_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/equiv"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/spatial"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// testGravity is deliberately not along -z, so that axis or sign mistakes in gravity show.
var testGravity = spatial.Vec3{0.3, -0.2, -9.81}

// groupChecked are the entry points whose sample-group code is not the one-thread code (a small group
// differentiates by directions, algorithms/directions.cuh; fdsva_so starts from forward dynamics'
// derivatives; minv and forward_dynamics split their scratch): the driver also runs their inner in a sample group (one thread on
// the host), its placement parameter false (the scratch, or M⁻¹'s F-region, in the global workspace, s_temp
// null where nothing is left for it), and the checks name its results
// "<entry point> (group)".
var groupChecked = map[string]bool{"inverse_dynamics_gradient": true, "forward_dynamics_gradient": true, "fdsva_so": true,
	"minv": true, "forward_dynamics": true}

const groupSuffix = " (group)"

// minimalSuffix names the results of every entry point's <algo>_device at TIER_MINIMAL (spill level 2: the
// inputs staged in s_mem, the scratch in the workspace, the outputs written straight to the caller's arrays),
// a sample group of one thread on the host.
const minimalSuffix = " (minimal)"

// entryName is the entry point a result name belongs to.
func entryName(result string) string {
	return strings.TrimSuffix(strings.TrimSuffix(result, groupSuffix), minimalSuffix)
}

// driverSource writes a C++ program that runs every entry point's host wrapper on inputs read from a file,
// in double and then in float, and writes all outputs as doubles; then, in a sample group of one thread, the
// inners of groupChecked and every entry point's _device at TIER_MINIMAL (minimalSuffix).
func driverSource(m *emit.Metadata) string {
	var b strings.Builder
	b.WriteString(`#include "grid.cuh"
#include <algorithm>
#include <cmath>
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
			fmt.Fprintf(&b, "        std::vector<T> %s(size_t(n) * %d);\n", o.Name, o.Size())
			args = append(args, o.Name+".data()")
		}
		for _, i := range a.Inputs {
			fmt.Fprintf(&b, "        std::vector<T> %s = read_values<T>(in, size_t(n) * %d);\n", i.Name, i.Size())
			args = append(args, i.Name+".data()")
		}
		frames := equiv.SelectorInitializer(a, len(m.Frames))
		if equiv.Selected(a) {
			args = append(args, "f")
		}
		if a.Gravity {
			args = append(args, "gravity")
		}
		args = append(args, "n")
		fmt.Fprintf(&b, "        for ([[maybe_unused]] int f : %s) {\n", frames)
		fmt.Fprintf(&b, "            check(grid::%s<T>(%s), %q);\n", a.Name, strings.Join(args, ", "), a.Name)
		for _, o := range a.Outputs {
			fmt.Fprintf(&b, "            write_values(out, %s);\n", o.Name)
		}
		if groupChecked[a.Name] {
			// the inner in a sample group (of one thread on the host), sample by sample, on NaN-poisoned outputs;
			// the placement parameter false: the scratch in the workspace, s_temp null unless the parameter moves
			// only part of it (minv's F_IN_SMEM): the inner must route it
			bufs, params := poisonedSampleArgs(&b, a)
			inner := append(append(bufs, "s_temp.empty() ? nullptr : s_temp.data()", "temp.data()"), params...)
			up := emit.InnerPrefix(a.Name)
			fmt.Fprintf(&b, "            std::vector<T> s_temp(grid::%s_INNER_SMEM_BYTES<T, false>() / sizeof(T));\n", up)
			fmt.Fprintf(&b, "            std::vector<T> temp(grid::%s_INNER_WORKSPACE_BYTES<T, false>() / sizeof(T));\n", up)
			fmt.Fprintf(&b, "            for (int k = 0; k < n; ++k) grid::%s_inner<T, false>(%s);\n", a.Name, strings.Join(inner, ", "))
			for _, o := range a.Outputs {
				fmt.Fprintf(&b, "            write_values(out, %s);\n", o.Name)
			}
		}
		// every entry point's _device at TIER_MINIMAL, sample by sample, on NaN-poisoned outputs
		up := strings.ToUpper(a.Name)
		bufs, params := poisonedSampleArgs(&b, a)
		dev := append(append(bufs, params...), "s_mem.data()", "ws.data()")
		fmt.Fprintf(&b, "            std::vector<T> s_mem(grid::%s_DEVICE_SMEM_BYTES<T, grid::TIER_MINIMAL>() / sizeof(T) + 1);\n", up)
		fmt.Fprintf(&b, "            std::vector<T> ws(grid::%s_DEVICE_WORKSPACE_BYTES<T, grid::TIER_MINIMAL>() / sizeof(T) + 1);\n", up)
		fmt.Fprintf(&b, "            for (int k = 0; k < n; ++k) grid::%s_device<T, grid::TIER_MINIMAL>(%s);\n", a.Name, strings.Join(dev, ", "))
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

// poisonedSampleArgs writes the NaN poisoning of a's outputs and returns the arguments of sample k of the
// driver's arrays: the output and input pointers, then the by-value parameters (frame, gravity).
func poisonedSampleArgs(b *strings.Builder, a emit.AlgorithmInfo) (bufs, params []string) {
	for _, o := range a.Outputs {
		fmt.Fprintf(b, "            std::fill(%s.begin(), %s.end(), T(NAN));\n", o.Name, o.Name)
		bufs = append(bufs, fmt.Sprintf("%s.data() + size_t(k) * %d", o.Name, o.Size()))
	}
	for _, i := range a.Inputs {
		bufs = append(bufs, fmt.Sprintf("%s.data() + size_t(k) * %d", i.Name, i.Size()))
	}
	if equiv.Selected(a) {
		params = append(params, "f")
	}
	if a.Gravity {
		params = append(params, "gravity")
	}
	return bufs, params
}

// hostBuild generates a robot's header and driver into dir and compiles them with the host compiler.
func hostBuild(t *testing.T, r *model.Robot, dir string, opt emit.Options) (*emit.Metadata, string) {
	t.Helper()
	m := writeHeader(t, r, dir, opt)
	src := filepath.Join(dir, "driver.cpp")
	if err := os.WriteFile(src, []byte(driverSource(m)), 0o644); err != nil {
		t.Fatal(err)
	}
	return m, compileHost(t, r.Name, dir, src)
}

// writeHeader generates a robot's grid.cuh into dir and returns its metadata.
func writeHeader(t *testing.T, r *model.Robot, dir string, opt emit.Options) *emit.Metadata {
	t.Helper()
	out, err := emit.Generate(r, opt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := emit.ParseMetadata(out.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "grid.cuh"), []byte(out.Header), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// compileHost compiles a program against the header in dir with the host compiler and returns the binary.
func compileHost(t *testing.T, name, dir, src string) string {
	t.Helper()
	bin := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	kernels := filepath.Join(testrobots.RepoRoot(), "kernels")
	// -O0: the optimiser would spend minutes folding the unrolled templates; the check needs the numbers only
	cmd := exec.Command("c++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-I", kernels, "-I", dir, src, "-o", bin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("host build of %s failed: %v\n%s", name, err, msg)
	}
	return bin
}

// runDriver runs a driver program on the input bytes (its first argument, a file) and returns the doubles
// it writes (to its second).
func runDriver(t *testing.T, dir, bin string, in []byte) []float64 {
	t.Helper()
	inPath, outPath := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
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
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, got); err != nil {
		t.Fatal(err)
	}
	return got
}

// hostErrors runs the host build of a robot and returns, per entry point and precision, the largest error
// relative to each output's largest magnitude (float errors of M⁻¹-based outputs divided by cond(M)).
func hostErrors(t *testing.T, r *model.Robot, opt emit.Options) (map[string][2]float64, float64, *emit.Metadata) {
	dir := t.TempDir()
	m, bin := hostBuild(t, r, dir, opt)
	const n = 4
	samples := equiv.RandomSamples(r, n, 21)
	var in bytes.Buffer
	binary.Write(&in, binary.LittleEndian, int32(n))
	binary.Write(&in, binary.LittleEndian, testGravity[:])
	for _, a := range m.Algorithms {
		for _, inp := range a.Inputs {
			for _, s := range samples {
				v, err := s.Input(inp.Name)
				if err != nil {
					t.Fatal(err)
				}
				binary.Write(&in, binary.LittleEndian, v)
			}
		}
	}
	got := runDriver(t, dir, bin, in.Bytes())

	cond := equiv.CondM(r, samples)
	errs := map[string][2]float64{}
	pos := 0
	for prec := 0; prec < 2; prec++ {
		for _, a := range m.Algorithms {
			for _, f := range equiv.Selectors(a, len(m.Frames)) {
				wants := make([][][]float64, n)
				for k, s := range samples {
					var err error
					if wants[k], err = equiv.Reference(r, a.Name, s, f); err != nil {
						t.Fatal(err)
					}
				}
				names := []string{a.Name}
				if groupChecked[a.Name] {
					names = append(names, a.Name+groupSuffix)
				}
				names = append(names, a.Name+minimalSuffix)
				for _, name := range names {
					for o, out := range a.Outputs {
						sz := out.Size()
						for k := 0; k < n; k++ {
							g := got[pos+k*sz : pos+(k+1)*sz]
							e := relErr(a.Name+"."+out.Name, g, wants[k][o])
							cur := errs[name]
							cur[prec] = math.Max(cur[prec], e)
							errs[name] = cur
						}
						pos += n * sz
					}
				}
			}
		}
	}
	if pos != len(got) {
		t.Fatalf("driver wrote %d values, expected %d", len(got), pos)
	}
	return errs, cond, m
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

// checkHostErrors applies the host build's tolerances: float64 to equiv.Float64Tolerance relative to the
// output's largest magnitude (1e-10 but where the reference is central differences, and the integrator),
// float32 to 1e-4 (times cond(M) for M⁻¹-based outputs).
func checkHostErrors(t *testing.T, errs map[string][2]float64, cond float64) {
	t.Helper()
	for name, e := range errs {
		algo := entryName(name)
		tol64 := equiv.Float64Tolerance(algo)
		if e[0] > tol64 {
			t.Errorf("%s float64: relative error %.3g > %.0e", name, e[0], tol64)
		}
		tol := 1e-4
		if equiv.ConditionedByM[algo] {
			tol *= cond
		}
		if e[1] > tol {
			t.Errorf("%s float32: relative error %.3g > %.3g", name, e[1], tol)
		}
	}
}

// TestHostBuildMatchesReference compiles every robot's generated header for the host and compares every
// entry point with codegen/ref (checkHostErrors).
// needCXX fails the test where no C++17 compiler (c++) is on PATH: the host build tests need one.
func needCXX(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("c++"); err != nil {
		t.Fatal("a C++17 compiler (c++) is needed for the host build tests")
	}
}

func TestHostBuildMatchesReference(t *testing.T) {
	needCXX(t)
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
				r := loadTestRobot(t, tr)
				if testrobots.IsLong(r.NV) {
					testrobots.SkipLong(t, tr.Name)
				}
				r.Gravity = testGravity
				errs, cond, _ := hostErrors(t, r, emit.Options{})
				checkHostErrors(t, errs, cond)
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

// TestRolledHostBuildMatchesReference generates every robot rolled (bodies iterated at run time over joint
// classes; compiles in seconds at any size, so the long robots are in) and holds it to the same
// tolerances; the second-order entry points, which need the unrolled description, are absent and named in
// the metadata.
func TestRolledHostBuildMatchesReference(t *testing.T) {
	needCXX(t)
	for _, tr := range append(testrobots.WithExampleRobots(t), testrobots.Large(t)...) {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			r := loadTestRobot(t, tr)
			r.Gravity = testGravity
			opt := emit.Options{Roll: emit.RollAlways}
			errs, cond, m := hostErrors(t, r, opt)
			checkHostErrors(t, errs, cond)
			t.Logf("cond(M) %.3g; forward_dynamics_gradient relative error float64 %.2g, float32 %.2g", cond,
				errs["forward_dynamics_gradient"][0], errs["forward_dynamics_gradient"][1])
			if !m.Rolled {
				t.Error("metadata does not say the robot is rolled")
			}
			for _, name := range []string{"idsva_so", "fdsva_so", "integrator_gradient"} {
				if _, ok := errs[name]; ok {
					t.Errorf("%s was generated for a rolled robot", name)
				}
				if m.Unavailable[name] == "" {
					t.Errorf("metadata does not name %s as unavailable", name)
				}
			}
			entries := 0
			for name := range errs {
				if entryName(name) == name {
					entries++
				}
			}
			if entries != 17 {
				t.Errorf("%d entry points checked, want the 16 first-order ones and the integrator", entries)
			}
		})
	}
}

// loadTestRobot loads a test robot as its roster entry says (fixed or floating base), failing the test if
// it cannot.
func loadTestRobot(t *testing.T, tr testrobots.Robot) *model.Robot {
	t.Helper()
	r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
