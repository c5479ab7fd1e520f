package emit_test

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

// TestInlineTiersExample builds kernels/examples/inline_tiers.cu (an inline user's kernel running aba_inner
// and forward_dynamics_gradient_inner at every resource tier) for the host against a robot's header and runs
// it: every tier must agree with the one-thread entry points, and TIER_LITE and TIER_MINIMAL must fit the
// 48 KiB budget; g1_29dof's ∇FD scratch leaves shared memory at TIER_LITE in double. The example instantiates
// two entry points only, so even g1_29dof builds in seconds.
func TestInlineTiersExample(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Fatal("a C++17 compiler (c++) is needed for the host build tests")
	}
	for _, c := range []struct {
		name, file string
		floating   bool
		wantSpill  bool // TIER_LITE moves the ∇FD scratch to the workspace
	}{
		{name: "iiwa", file: "iiwa.urdf"},
		{name: "go2", file: "go2.urdf", floating: true},
		{name: "g1_29dof", file: "g1_29dof.urdf", floating: true, wantSpill: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := model.Load(testrobots.Shared(t, c.file), urdf.Options{}, model.Options{FreeFlyer: c.floating})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := build.Generate(r, dir, emit.Options{}); err != nil {
				t.Fatal(err)
			}
			root := testrobots.RepoRoot()
			bin := filepath.Join(dir, "inline_tiers")
			cmd := exec.Command("c++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-x", "c++", "-DGRID_SEPARATE_ENTRIES",
				"-I", filepath.Join(root, "kernels"), "-I", dir, filepath.Join(root, "kernels", "examples", "inline_tiers.cu"), "-o", bin)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("host build of the example failed: %v\n%s", err, msg)
			}
			got, err := exec.Command(bin).CombinedOutput()
			if err != nil {
				t.Fatalf("the example failed: %v\n%s", err, got)
			}
			text := string(got)
			if !strings.Contains(text, "all tiers agree") {
				t.Fatalf("unexpected output:\n%s", text)
			}
			lite := ""
			for _, l := range strings.Split(text, "\n") {
				if strings.HasPrefix(l, "TIER_LITE") {
					lite = l
				}
			}
			if spilled := strings.Contains(lite, "fdg scratch in workspace"); spilled != c.wantSpill {
				t.Errorf("TIER_LITE ∇FD scratch in the workspace: %v, want %v\n%s", spilled, c.wantSpill, text)
			}
			t.Logf("%s:\n%s", c.name, text)
		})
	}
}
