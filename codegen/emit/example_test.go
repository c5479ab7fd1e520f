package emit_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestInlineTiersExample builds kernels/examples/inline_tiers.cu (an inline user's kernel running aba_inner
// and forward_dynamics_gradient_inner at every resource tier) for the host against a robot's header and runs
// it: every tier must agree with the one-thread entry points, and TIER_LITE and TIER_MINIMAL must fit the
// 48 KiB budget. ∇FD's spill level at TIER_LITE follows the robot's size in double: none for the small robots,
// the scratch in the workspace for g1_29dof, the outputs in global memory too for h1_2; TIER_MINIMAL is
// level 2 for every robot. The example instantiates
// two entry points only, so even the humanoids build in seconds.
func TestInlineTiersExample(t *testing.T) {
	needCXX(t)
	for _, c := range []struct {
		name, file string
		floating   bool
		liteLevel  int // ∇FD's spill level at TIER_LITE
	}{
		{name: "iiwa", file: "iiwa.urdf", liteLevel: 0},
		{name: "go2", file: "go2.urdf", floating: true, liteLevel: 0},
		{name: "g1_29dof", file: "g1_29dof.urdf", floating: true, liteLevel: 1},
		{name: "h1_2", file: "h1_2.urdf", floating: true, liteLevel: 2},
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
			levels := map[string]int{}
			for _, l := range strings.Split(text, "\n") {
				var tier string
				var aba, fdg int
				if _, err := fmt.Sscanf(l, "%s spill levels aba %d fdg %d", &tier, &aba, &fdg); err == nil {
					levels[tier] = fdg
				}
			}
			want := map[string]int{"TIER_SHARED": 0, "TIER_LITE": c.liteLevel, "TIER_MINIMAL": 2}
			if d := cmp.Diff(want, levels); d != "" {
				t.Errorf("∇FD spill level per tier (-want +got):\n%s\n%s", d, text)
			}
			t.Logf("%s:\n%s", c.name, text)
		})
	}
}
