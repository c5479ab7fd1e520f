package emit_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestOutputsReportedFinalRows checks the contract that the one-sample-per-thread kernels of the mass matrix,
// ∇ID, the frame poses and the frame Jacobians store by (rows_final of crba.cuh and rnea_gradient.cuh,
// report_frames_final of kinematics.cuh; launch.cuh's WarpStores::store_final_rows and
// store_final_leading_rows): the rows a template reports final come in its order (the last rows first, the
// first frames first) without gaps, cover the outputs, and hold their final values when reported
// (testdata/final_rows.cpp, host build). The robots
// cover a chain, a branched tree, a free-flyer with limbs and a rolled tree (one report at the end); the GPU
// equivalence check covers the stores.
func TestOutputsReportedFinalRows(t *testing.T) {
	needCXX(t)
	program, err := filepath.Abs(filepath.Join("testdata", "final_rows.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{"iiwa": true, "branchy": true, "go2": true, "g1_29dof": true, "random_tree_120": true}
	for _, tr := range append(testrobots.WithExampleRobots(t), testrobots.Large(t)...) {
		if !covered[tr.Name] {
			continue
		}
		delete(covered, tr.Name)
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeHeader(t, loadTestRobot(t, tr), dir, emit.Options{})
			bin := compileHost(t, tr.Name, dir, program)
			msg, err := exec.Command(bin).CombinedOutput()
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
