package build_test

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestGenerateWritesTheBuildFolder: one call writes the header, metadata and FFI bindings the generator
// makes and the model JSON of the same parsed robot, for an unrolled and a rolled description.
func TestGenerateWritesTheBuildFolder(t *testing.T) {
	r, err := model.Load(testrobots.Own("branchy.urdf"), urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  emit.Options
	}{{"unrolled", emit.Options{}}, {"rolled", emit.Options{Roll: emit.RollAlways}}} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "robot")
			out, err := build.Generate(r, dir, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{build.HeaderFile: out.Header, build.MetadataFile: string(out.Metadata), emit.FFIFile: out.FFI}
			for name, text := range want {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(text, string(got)); d != "" {
					t.Errorf("%s differs from the generator's output:\n%s", name, d)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, build.ModelFile))
			if err != nil {
				t.Fatal(err)
			}
			var tree map[string]any
			if err := json.Unmarshal(data, &tree); err != nil {
				t.Fatalf("%s is not JSON: %v", build.ModelFile, err)
			}
			m, err := emit.ParseMetadata(out.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			if m.Rolled != (c.opt.Roll == emit.RollAlways) || m.Robot != r.Name {
				t.Errorf("metadata: robot %q rolled %v", m.Robot, m.Rolled)
			}
		})
	}
}

// TestCompileCPULinksSeparateUnits: the CPU library compiled from separate translation units exports a
// handler and a workspace query for every algorithm of the metadata, and its units left no host wrapper
// undefined (each is instantiated by one unit and linked in). The unrolled robot has every unit, the
// second-order one included; with eight jobs the first call's and the gradients' units are spread over four
// each.
func TestCompileCPULinksSeparateUnits(t *testing.T) {
	for _, jobs := range []int{2, 8} {
		t.Run(fmt.Sprintf("%d jobs", jobs), func(t *testing.T) {
			dir, tc, name, m := generateBranchy(t)
			tc.Jobs = jobs
			if err := tc.CompileCPU(dir, name); err != nil {
				t.Fatal(err)
			}
			checkExports(t, filepath.Join(dir, build.CPULibrary), handlerSymbols(m, "cpu", true, true))
			if _, err := os.Stat(filepath.Join(dir, "cpu_objects")); !os.IsNotExist(err) {
				t.Errorf("the objects were not removed after the link: %v", err)
			}
		})
	}
}

// TestCompileCPUDeferred: a run-time build's core library exports every algorithm's handler and lists the
// libraries in LibrariesFile, every handler once; two callers of CompileCPUDeferred at once (one compiles,
// the other waits for it) leave the deferred libraries, which export every algorithm's handler and the fused
// rollouts respectively, with no grid symbol undefined and no objects behind; an unknown library is refused.
func TestCompileCPUDeferred(t *testing.T) {
	dir, tc, name, m := generateBranchy(t)
	if err := tc.CompileCPUCore(dir, name); err != nil {
		t.Fatal(err)
	}
	checkExports(t, filepath.Join(dir, build.CPULibrary), handlerSymbols(m, "cpu", true, false))
	infos, err := build.ReadLibraries(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files, listed, want []string
	for _, l := range infos {
		files = append(files, l.File)
		listed = append(append(listed, l.Algorithms...), l.Trajectories...)
	}
	for _, a := range m.Algorithms {
		want = append(want, a.Name)
	}
	want = append(want, m.Trajectories...)
	sort.Strings(listed)
	sort.Strings(want)
	if d := cmp.Diff([]string{build.CPULibrary, build.DerivativesLibrary, build.SecondOrderLibrary, build.RolloutsLibrary}, files); d != "" {
		t.Errorf("%s lists (-want +got):\n%s", build.LibrariesFile, d)
	}
	if d := cmp.Diff(want, listed); d != "" {
		t.Errorf("%s's handlers (-want +got):\n%s", build.LibrariesFile, d)
	}
	if err := tc.CompileCPUDeferred(dir, []string{"libnothing.so"}); err == nil || !strings.Contains(err.Error(), `no deferred library "libnothing.so"`) {
		t.Errorf("CompileCPUDeferred of an unknown library: got %v", err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- tc.CompileCPUDeferred(dir, nil) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, lib := range []string{build.DerivativesLibrary, build.SecondOrderLibrary} {
		checkExports(t, filepath.Join(dir, lib), handlerSymbols(m, "cpu", true, false))
	}
	checkExports(t, filepath.Join(dir, build.RolloutsLibrary), handlerSymbols(m, "cpu", false, true))
	if _, err := os.Stat(filepath.Join(dir, "cpu_objects")); !os.IsNotExist(err) {
		t.Errorf("the objects were not removed after the link: %v", err)
	}
}

// generateBranchy generates the unrolled branchy robot into a temporary folder for a CPU build against the
// XLA FFI headers in .venv, skipping the test without them: the folder, the toolchain of a split build on any
// machine, the robot's name and its metadata.
func generateBranchy(t *testing.T) (string, build.Toolchain, string, *emit.Metadata) {
	t.Helper()
	include := filepath.Join(testrobots.RepoRoot(), ".venv", "ffi-include")
	if _, err := os.Stat(filepath.Join(include, "xla", "ffi", "api", "ffi.h")); err != nil {
		t.Skipf("no XLA FFI headers in %s (go tool mage venv): %v", include, err)
	}
	r, err := model.Load(testrobots.Own("branchy.urdf"), urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "robot")
	out, err := build.Generate(r, dir, emit.Options{Roll: emit.RollNever})
	if err != nil {
		t.Fatal(err)
	}
	m, err := emit.ParseMetadata(out.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	return dir, build.Toolchain{FFIInclude: include, Root: testrobots.RepoRoot(), Jobs: 2}, r.Name, m
}

// handlerSymbols are the handlers a library of the robot m exports on platform (cpu, cuda): every
// algorithm's and its workspace query, the fused rollouts' (no workspace), sorted.
func handlerSymbols(m *emit.Metadata, platform string, algorithms, rollouts bool) []string {
	var want []string
	for _, a := range m.Algorithms {
		if algorithms {
			want = append(want, "grid_"+a.Name+"_"+platform, "grid_"+a.Name+"_"+platform+"_workspace_bytes")
		}
	}
	for _, r := range m.Trajectories {
		if rollouts {
			want = append(want, "grid_"+r+"_"+platform)
		}
	}
	sort.Strings(want)
	return want
}

// checkExports compares the handlers a library exports with want and reports grid symbols left undefined.
func checkExports(t *testing.T, lib string, want []string) {
	t.Helper()
	exported, undefinedGrid := librarySymbols(t, lib, "grid_")
	if d := cmp.Diff(want, exported); d != "" {
		t.Errorf("%s: exported handlers (-want +got):\n%s", filepath.Base(lib), d)
	}
	if len(undefinedGrid) > 0 {
		t.Errorf("%s: grid symbols left undefined: %v", filepath.Base(lib), undefinedGrid)
	}
}

// TestCompileCUDAWithSomeEntries: a CUDA library built from some entry points only still exports every
// handler and links with no grid symbol left undefined (the others' handlers never reference their kernels),
// and an entry point the header lacks is refused before anything compiles.
func TestCompileCUDAWithSomeEntries(t *testing.T) {
	t.Parallel()
	dir, cpu, name, m := generateBranchy(t)
	tc := build.Toolchain{NVCC: cudatools.NVCC(t), FFIInclude: cpu.FFIInclude, Arch: "sm_90", Root: cpu.Root,
		CUDAEntries: []string{"no_such_algorithm"}}
	if err := tc.CompileCUDA(dir, name); err == nil || !strings.Contains(err.Error(), `no entry point "no_such_algorithm"`) {
		t.Fatalf("CompileCUDA with an unknown entry point: got %v", err)
	}
	tc.CUDAEntries = []string{"aba"}
	if err := tc.CompileCUDA(dir, name); err != nil {
		t.Fatal(err)
	}
	checkExports(t, filepath.Join(dir, build.CUDALibrary), handlerSymbols(m, "cuda", true, true))
}

// librarySymbols reads a shared library's dynamic symbols: those it defines with the prefix, sorted, and the
// undefined ones of namespace grid (a kernel or host wrapper the link did not find).
func librarySymbols(t *testing.T, path, prefix string) (exported, undefinedGrid []string) {
	t.Helper()
	lib, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	syms, err := lib.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		switch {
		case s.Section == elf.SHN_UNDEF && strings.HasPrefix(s.Name, "_ZN4grid"):
			undefinedGrid = append(undefinedGrid, s.Name)
		case s.Section != elf.SHN_UNDEF && strings.HasPrefix(s.Name, prefix):
			exported = append(exported, s.Name)
		}
	}
	sort.Strings(exported)
	return exported, undefinedGrid
}

// TestCompileCUDARTCStaticRuntime: the handler library of run-time kernels linked with the static CUDA
// runtime (as a wheel bundles it) needs no libcudart at run time and exports every handler and
// grid_rtc_load, with no grid symbol left undefined, whether its handlers compile as one unit or in parts.
func TestCompileCUDARTCStaticRuntime(t *testing.T) {
	t.Parallel()
	for _, jobs := range []int{1, 8} { // one unit; the handlers in four parts
		t.Run(fmt.Sprintf("%d jobs", jobs), func(t *testing.T) {
			dir, tc, name, m := generateBranchy(t)
			include, cudart := cudatools.Runtime(t)
			tc.CUDARuntime.Include = include
			tc.CUDARuntime.Library = filepath.Join(filepath.Dir(cudart), "libcudart_static.a")
			tc.Jobs = jobs
			if err := tc.CompileCUDARTC(dir, name); err != nil {
				t.Fatal(err)
			}
			lib := filepath.Join(dir, build.CUDARTCLibrary)
			want := append(handlerSymbols(m, "cuda", true, false), "grid_rtc_error", "grid_rtc_load")
			sort.Strings(want)
			checkExports(t, lib, want)
			cudatools.CheckStaticRuntime(t, lib)
			if _, err := os.Stat(filepath.Join(dir, "cuda_rtc_objects")); !os.IsNotExist(err) {
				t.Errorf("the objects were not removed after the link: %v", err)
			}
		})
	}
}
