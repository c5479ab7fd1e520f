package emit_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/equiv"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/randomrobot"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// chainDriver runs ABA, inverse dynamics at ABA's acceleration and the mass matrix for one sample read from
// its first argument and writes qdd, τ and M to its second.
const chainDriver = `#include "grid.cuh"
#include <cstdio>
#include <vector>
int main(int argc, char** argv) {
    if (argc != 3) return 1;
    FILE* in = fopen(argv[1], "rb");
    std::vector<double> q(grid::NQ), qd(grid::NV), tau(grid::NV), qdd(grid::NV), tau2(grid::NV), M(grid::NV * grid::NV);
    if (!in || fread(q.data(), 8, q.size(), in) != q.size() || fread(qd.data(), 8, qd.size(), in) != qd.size() ||
        fread(tau.data(), 8, tau.size(), in) != tau.size()) return 2;
    const grid::Vec3<double> g = grid::default_gravity<double>();
    if (!grid::aba<double>(qdd.data(), q.data(), qd.data(), tau.data(), g, 1).is_ok()) return 3;
    if (!grid::inverse_dynamics<double>(tau2.data(), q.data(), qd.data(), qdd.data(), g, 1).is_ok()) return 3;
    if (!grid::mass_matrix<double>(M.data(), q.data(), 1).is_ok()) return 3;
    FILE* out = fopen(argv[2], "wb");
    fwrite(qdd.data(), 8, qdd.size(), out);
    fwrite(tau2.data(), 8, tau2.size(), out);
    fwrite(M.data(), 8, M.size(), out);
    return fclose(out) == 0 ? 0 : 4;
}
`

// TestThousandLinkChainBuilds generates a 1000-link chain (rolled by size), names the kernels it leaves
// out, builds it for the host and checks it: the inverse dynamics of ABA's acceleration give τ back, and
// the mass matrix matches the reference. The build takes seconds (docs/architecture.md, "Rolled robots").
func TestThousandLinkChainBuilds(t *testing.T) {
	needCXX(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "chain.urdf")
	if err := os.WriteFile(path, []byte(randomrobot.URDF(randomrobot.Chain, 1000, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := model.Load(path, urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Gravity = [3]float64{0, 0, -9.81}
	out, err := emit.Generate(r, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := emit.ParseMetadata(out.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Rolled || !strings.Contains(m.Unavailable["idsva_so"], "rolled") || !strings.Contains(m.Unavailable["fdsva_so"], "rolled") {
		t.Fatalf("a 1000-link chain: rolled %v, unavailable %v", m.Rolled, m.Unavailable)
	}
	for name, data := range map[string]string{"grid.cuh": out.Header, "driver.cpp": chainDriver} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "driver")
	kernels := filepath.Join(testrobots.RepoRoot(), "kernels")
	cmd := exec.Command("c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", kernels, "-I", dir,
		filepath.Join(dir, "driver.cpp"), "-o", bin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("host build of the 1000-link chain failed: %v\n%s", err, msg)
	}
	s := equiv.RandomSamples(r, 1, 5)[0]
	var in bytes.Buffer
	for _, v := range [][]float64{s.Q, s.QD, s.Tau} {
		binary.Write(&in, binary.LittleEndian, v)
	}
	got := runDriver(t, dir, bin, in.Bytes())
	nv := r.NV
	if len(got) != 2*nv+nv*nv {
		t.Fatalf("driver wrote %d values, want %d", len(got), 2*nv+nv*nv)
	}
	tauBack, M := got[nv:2*nv], got[2*nv:]
	want, err := equiv.Reference(r, "mass_matrix", s, 0)
	if err != nil {
		t.Fatal(err)
	}
	eTau, eM := relErr("tau", tauBack, s.Tau), relErr("mass_matrix", M, want[0])
	t.Logf("1000-link chain: τ from ID(ABA) relative error %.2g, M relative error %.2g", eTau, eM)
	if eTau > 1e-8 {
		t.Errorf("inverse dynamics of ABA's acceleration: relative error %.3g in τ", eTau)
	}
	if eM > 1e-12 {
		t.Errorf("mass matrix: relative error %.3g", eM)
	}
	if math.IsNaN(got[0]) {
		t.Error("ABA returned NaN")
	}
}
