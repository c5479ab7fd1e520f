// Package cudatools finds the CUDA toolchain for tests that compile CUDA code (and, RuntimeIn, for the
// builds that compile against the CUDA runtime without nvcc).
package cudatools

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/build"
)

// repoRoot is the checkout's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// NVCC returns the CUDA compiler: $NVCC, nvcc on PATH, or the one the test environment installs from the
// nvidia-cuda-nvcc wheel (.venv, made by `go tool mage venv`). A missing compiler fails the test: the CUDA
// build check must not silently vanish.
func NVCC(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("NVCC"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p
	}
	matches, _ := filepath.Glob(filepath.Join(repoRoot(), ".venv", "lib", "python3*", "site-packages",
		"nvidia", "cu13", "bin", "nvcc"))
	if len(matches) == 0 {
		t.Fatal("no CUDA compiler: set NVCC, put nvcc on PATH, or run `go tool mage venv` (installs the nvidia-cuda-nvcc wheel)")
	}
	return matches[0]
}

// FFIInclude returns the folder holding xla/ffi/api/ffi.h for compiling XLA FFI handlers: $GRID_FFI_INCLUDE or
// the oldest supported jaxlib's headers that `go tool mage venv` extracts into .venv/ffi-include. Missing
// headers fail the test.
func FFIInclude(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("GRID_FFI_INCLUDE")
	if dir == "" {
		dir = filepath.Join(repoRoot(), ".venv", "ffi-include")
	}
	if _, err := os.Stat(filepath.Join(dir, "xla", "ffi", "api", "ffi.h")); err != nil {
		t.Fatalf("no XLA FFI headers in %s: set GRID_FFI_INCLUDE or run `go tool mage venv`", dir)
	}
	return dir
}

// HasGPU reports whether nvidia-smi lists a GPU, so compiled CUDA tests can also run.
func HasGPU() bool {
	out, err := exec.Command("nvidia-smi", "-L").Output()
	return err == nil && len(out) > 0
}

// Runtime returns the CUDA runtime's include folder (build.CUDARuntimeHeaders) and its shared library (libcudart), for
// host C++ code that calls the CUDA runtime without nvcc (GRID_RTC_HOST): those beside NVCC's compiler (a
// toolkit's include and lib64, or the nvidia-cuda-runtime wheel's include and lib). Missing ones fail the test.
func Runtime(t testing.TB) (include, library string) {
	t.Helper()
	root := filepath.Dir(filepath.Dir(NVCC(t)))
	include, library, ok := RuntimeIn(root)
	if !ok {
		t.Fatalf("no include/ with %v and lib64/ or lib/libcudart.so* under %s", build.CUDARuntimeHeaders, root)
	}
	return include, library
}

// RuntimeIn returns the CUDA runtime's include folder and shared library under root (a toolkit, or the
// nvidia-cuda-runtime wheel's cu13 folder): root/include with build.CUDARuntimeHeaders and root/lib64 or
// root/lib's libcudart.so*; ok is false where either is missing.
func RuntimeIn(root string) (include, library string, ok bool) {
	include = filepath.Join(root, "include")
	if !build.HasCUDARuntimeHeaders(include) {
		return "", "", false
	}
	for _, dir := range []string{"lib64", "lib"} {
		if m, _ := filepath.Glob(filepath.Join(root, dir, "libcudart.so*")); len(m) > 0 {
			return include, m[0], true
		}
	}
	return "", "", false
}

// CheckStaticRuntime fails the test where the shared library at path needs a shared CUDA runtime (libcudart):
// one linked with libcudart_static.a needs only the driver.
func CheckStaticRuntime(t testing.TB, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range needed {
		if strings.Contains(n, "cudart") {
			t.Errorf("%s needs %s; the static runtime should be linked in (needs %v)", filepath.Base(path), n, needed)
		}
	}
}
