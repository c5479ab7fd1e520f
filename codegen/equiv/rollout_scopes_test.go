package equiv

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestRolloutAdjointScopesAgree builds testdata/rollout_adjoint_scopes.cc for the host against a small
// branched floating-base robot and runs it: the fused rollout's reverse mode by directions (the code the GPU
// runs one warp per sample) must agree with its one-thread form, which tests/python/test_rollout.py checks
// against Pinocchio, for both integrators.
func TestRolloutAdjointScopesAgree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("c++"); err != nil {
		t.Fatal("no C++17 compiler (c++) on PATH: the host build tests need one")
	}
	r, err := model.Load(smallFloatingRobot(t), urdf.Options{}, model.Options{FreeFlyer: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := build.Generate(r, dir, emit.Options{}); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rollout_adjoint_scopes")
	src, err := filepath.Abs(filepath.Join("testdata", "rollout_adjoint_scopes.cc"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DGRID_SEPARATE_ENTRIES",
		"-I", filepath.Join(testrobots.RepoRoot(), "kernels"), "-I", dir, src, "-o", bin)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("host build failed: %v\n%s", err, msg)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rollout adjoint scopes agree") {
		t.Fatalf("the scopes disagree (%v):\n%s", err, out)
	}
	t.Logf("\n%s", out)
}
