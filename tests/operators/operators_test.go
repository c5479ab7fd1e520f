// Package operators tests the operator library (kernels/glass): this Go test builds and runs its C++ tests
// (cpp/); the pytest suite beside it checks every operator through the harness (cpp/harness/).
package operators

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grid-rbd/grid-rbd/internal/cudatools"
)

// summaryLine is the last line every C++ test program prints.
var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// includeDir is the directory the headers are included relative to ("glass/spatial.cuh").
func includeDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "kernels"))
	if err != nil {
		t.Fatalf("resolving the kernels directory: %v", err)
	}
	return dir
}

// runTool runs name with args, failing the test with the combined output if it does not succeed.
func runTool(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// checkSummary fails unless output ends in "N passed, 0 failed" with N > 0.
func checkSummary(t *testing.T, output string) {
	t.Helper()
	m := summaryLine.FindAllStringSubmatch(output, -1)
	if len(m) == 0 {
		t.Fatalf("no %q summary line in the output:\n%s", "N passed, M failed", output)
	}
	last := m[len(m)-1]
	passed, _ := strconv.Atoi(last[1])
	failed, _ := strconv.Atoi(last[2])
	if failed != 0 || passed == 0 {
		t.Fatalf("%d passed, %d failed:\n%s", passed, failed, output)
	}
	t.Logf("%d passed, 0 failed", passed)
}

// TestGlassHost compiles each C++ test of the operator library with the host compiler, warnings as
// errors, and runs it.
func TestGlassHost(t *testing.T) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Fatalf("the host C++ compiler %q was not found (install a C++17 compiler or set CXX): %v", cxx, err)
	}
	inc := includeDir(t)
	tests := []struct {
		name   string
		source string
		flags  []string
	}{
		{name: "spatial", source: "cpp/spatial_test.cpp", flags: []string{"-O1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(t.TempDir(), "test")
			args := append([]string{"-std=c++17"}, tc.flags...)
			args = append(args, "-Wall", "-Wextra", "-Werror", "-I"+inc, tc.source, "-o", bin)
			runTool(t, 5*time.Minute, cxx, args...)
			checkSummary(t, runTool(t, 5*time.Minute, bin))
		})
	}
}

// TestGlassCUDA compiles the CUDA tests of the operator library for sm_90 with every warning an error (the
// proof that the headers build as __host__ __device__ code), and runs them when a GPU is present.
func TestGlassCUDA(t *testing.T) {
	nvcc := cudatools.NVCC(t)
	inc := includeDir(t)
	gpu := cudatools.HasGPU()
	if !gpu {
		t.Log("no GPU listed by nvidia-smi: the CUDA tests are compiled, not run")
	}
	tests := []struct {
		name   string
		source string
	}{
		{name: "spatial", source: "cpp/spatial_gpu_test.cu"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			common := []string{
				"-x", "cu", "-arch=sm_90", "-std=c++17", "-O3",
				"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror",
				"-I" + inc, tc.source,
			}
			runTool(t, 10*time.Minute, nvcc, append(common, "-c", "-o", filepath.Join(dir, "test.o"))...)
			if !gpu {
				return
			}
			bin := filepath.Join(dir, "test")
			runTool(t, 10*time.Minute, nvcc, append(common, "-o", bin)...)
			checkSummary(t, runTool(t, 10*time.Minute, bin))
		})
	}
}
