package emit

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenRobots are one serial fixed-base robot and one branched floating-base robot.
func goldenRobots(t *testing.T) []testrobots.Robot {
	return []testrobots.Robot{
		{Name: "iiwa", Path: testrobots.Shared(t, "iiwa.urdf")},
		{Name: "go2_floating", Path: testrobots.Shared(t, "go2.urdf"), FreeFlyer: true},
	}
}

// TestGolden compares the generated header and metadata with the committed copies; after an intended
// change, run `go test ./codegen/emit/ -run TestGolden -update` and review the diff.
func TestGolden(t *testing.T) {
	for _, tr := range goldenRobots(t) {
		t.Run(tr.Name, func(t *testing.T) {
			r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Generate(r, Options{Untuned: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct{ file, got string }{
				{tr.Name + ".grid.cuh.golden", out.Header},
				{tr.Name + ".metadata.json.golden", string(out.Metadata)},
				{tr.Name + ".grid_ffi.h.golden", out.FFI},
			} {
				path := filepath.Join("testdata", "golden", f.file)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(f.got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(f.got, "\n")); d != "" {
					t.Errorf("%s differs from the generator's output (-golden +generated); if intended, rerun with -update:\n%s", path, d)
				}
			}
		})
	}
}

// BenchmarkGenerate times code generation for every shared robot (parsing and tree building included).
func BenchmarkGenerate(b *testing.B) {
	for _, tr := range testrobots.All(b) {
		b.Run(tr.Name, func(b *testing.B) {
			for b.Loop() {
				r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Generate(r, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
