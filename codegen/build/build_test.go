package build_test

import (
	"debug/elf"
	"encoding/json"
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
// second-order one included.
func TestCompileCPULinksSeparateUnits(t *testing.T) {
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
	tc := build.Toolchain{FFIInclude: include, Root: testrobots.RepoRoot(), Jobs: 2} // the split build on any machine
	if err := tc.CompileCPU(dir, r.Name); err != nil {
		t.Fatal(err)
	}
	m, err := emit.ParseMetadata(out.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range m.Algorithms {
		want = append(want, "grid_"+a.Name+"_cpu", "grid_"+a.Name+"_cpu_workspace_bytes")
	}
	for _, t := range m.Trajectories { // the fused rollout handlers, with no workspace
		want = append(want, "grid_"+t+"_cpu")
	}
	sort.Strings(want)
	exported, undefinedGrid := librarySymbols(t, filepath.Join(dir, build.CPULibrary), "grid_")
	if d := cmp.Diff(want, exported); d != "" {
		t.Errorf("exported handlers (-want +got):\n%s", d)
	}
	if len(undefinedGrid) > 0 {
		t.Errorf("grid symbols left undefined: %v", undefinedGrid)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu_objects")); !os.IsNotExist(err) {
		t.Errorf("the objects were not removed after the link: %v", err)
	}
}

// TestCompileCUDAWithSomeEntries: a CUDA library built from some entry points only still exports every
// handler and links with no grid symbol left undefined (the others' handlers never reference their kernels),
// and an entry point the header lacks is refused before anything compiles.
func TestCompileCUDAWithSomeEntries(t *testing.T) {
	t.Parallel()
	r, err := model.Load(testrobots.Own("branchy.urdf"), urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "robot")
	out, err := build.Generate(r, dir, emit.Options{Roll: emit.RollNever})
	if err != nil {
		t.Fatal(err)
	}
	tc := build.Toolchain{NVCC: cudatools.NVCC(t), FFIInclude: cudatools.FFIInclude(t), Arch: "sm_90",
		Root: testrobots.RepoRoot(), CUDAEntries: []string{"no_such_algorithm"}}
	if err := tc.CompileCUDA(dir, r.Name); err == nil || !strings.Contains(err.Error(), `no entry point "no_such_algorithm"`) {
		t.Fatalf("CompileCUDA with an unknown entry point: got %v", err)
	}
	tc.CUDAEntries = []string{"aba"}
	if err := tc.CompileCUDA(dir, r.Name); err != nil {
		t.Fatal(err)
	}
	m, err := emit.ParseMetadata(out.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range m.Algorithms {
		want = append(want, "grid_"+a.Name+"_cuda", "grid_"+a.Name+"_cuda_workspace_bytes")
	}
	for _, t := range m.Trajectories {
		want = append(want, "grid_"+t+"_cuda")
	}
	sort.Strings(want)
	exported, undefinedGrid := librarySymbols(t, filepath.Join(dir, build.CUDALibrary), "grid_")
	if d := cmp.Diff(want, exported); d != "" {
		t.Errorf("exported handlers (-want +got):\n%s", d)
	}
	if len(undefinedGrid) > 0 {
		t.Errorf("grid symbols left undefined: %v", undefinedGrid)
	}
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
