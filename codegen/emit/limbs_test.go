package emit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestLimbScopeMatchesThreadScope runs ABA, ∇ID, M⁻¹ and ∇FD in the limb scope of grid/schedule.cuh (a thread
// per limb of the tree, each limb's state its own but where other limbs read it, barriers between rounds) on
// the host, one std::thread per limb meeting at a barrier, against their one-thread forms on 333 samples:
// float64 within 1e-11 (∇FD, which multiplies ∇ID's rounding by M⁻¹: 1e-9), float32 within 1e-3 (∇FD: no
// worse than the one thread's error against float64) (bench/launch/limbs/probe.cu, whose GPU build times the
// same code). A limb's state
// read by the wrong thread would be that thread's own uninitialised copy (∇ID's descendants read their
// ancestors' columns across limbs: an error of 0.98 on atlas when those stay in the limb's registers). The probe also checks the limbs'
// structure (consecutive chains, rounds). The robots: one chain (one limb), a branched tree, a free-flyer with
// four legs, and a humanoid whose arms hang three rounds down.
func TestLimbScopeMatchesThreadScope(t *testing.T) {
	needCXX(t)
	probe := filepath.Join(testrobots.RepoRoot(), "bench", "launch")
	src, err := os.ReadFile(filepath.Join(probe, "limbs", "probe.cu"))
	if err != nil {
		t.Fatal(err)
	}
	helpers, err := os.ReadFile(filepath.Join(probe, "probe.h"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{"iiwa": true, "branchy": true, "go2": true, "g1_29dof": true}
	for _, tr := range testrobots.WithExampleRobots(t) {
		if !covered[tr.Name] {
			continue
		}
		delete(covered, tr.Name)
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeHeader(t, loadTestRobot(t, tr), dir, emit.Options{})
			program := filepath.Join(dir, "limbs.cpp") // the host compiler takes a .cpp as C++
			if err := os.WriteFile(program, src, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "probe.h"), helpers, 0o644); err != nil {
				t.Fatal(err)
			}
			bin := compileHost(t, tr.Name, dir, program)
			msg, err := exec.Command(bin, tr.Name).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, msg)
			}
			t.Logf("%s", msg)
		})
	}
	if len(covered) > 0 {
		t.Errorf("robots not in the test suite: %v", covered)
	}
}
