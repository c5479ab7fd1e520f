package equiv

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestCUDABuild compiles the CUDA equivalence driver, which instantiates every batched kernel in float and
// double, for sm_90 with warnings as errors, for a serial fixed-base and a branched floating-base robot.
func TestCUDABuild(t *testing.T) {
	nvcc := cudatools.NVCC(t)
	for _, tr := range []testrobots.Robot{
		{Name: "iiwa", Path: testrobots.Shared(t, "iiwa.urdf")},
		{Name: "go2_floating", Path: testrobots.Shared(t, "go2.urdf"), FreeFlyer: true},
	} {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := Prepare(r, dir, 2, 1); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(nvcc, "-arch=sm_90", "-std=c++17", "-O1", "-Werror", "all-warnings",
				"-Xcompiler", "-Wall,-Wextra,-Werror", "-I", filepath.Join(testrobots.RepoRoot(), "kernels"), "-I", dir,
				"-c", filepath.Join(dir, "driver.cu"), "-o", filepath.Join(dir, "driver.o"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("nvcc failed: %v\n%s", err, out)
			} else if len(out) > 0 {
				t.Logf("nvcc said:\n%s", out)
			}
		})
	}
}
