package build_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
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
