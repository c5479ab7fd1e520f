package build

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestSelectEntries: GRID_CUDA_ENTRIES keeps the entry points asked for and those their launches call (read
// from the generated header's "needs" lines), leaves out the rest, and refuses a name the header lacks.
func TestSelectEntries(t *testing.T) {
	r, err := model.Load(testrobots.Own("branchy.urdf"), urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "robot")
	if _, err := Generate(r, dir, emit.Options{Roll: emit.RollNever}); err != nil {
		t.Fatal(err)
	}
	all, err := headerEntries(dir)
	if err != nil {
		t.Fatal(err)
	}
	needs, err := headerNeeds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string][]string{"FORWARD_DYNAMICS_GRADIENT": {"ABA", "INVERSE_DYNAMICS_GRADIENT", "MINV"}}, needs); d != "" {
		t.Errorf("needs lines (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		name        string
		wanted      []string
		keep, added []string
	}{
		{name: "all by default", keep: all},
		{name: "one without needs", wanted: []string{"aba"}, keep: []string{"ABA"}},
		{name: "with needs", wanted: []string{"forward_dynamics_gradient", "MASS_MATRIX"},
			keep:  []string{"ABA", "FORWARD_DYNAMICS_GRADIENT", "INVERSE_DYNAMICS_GRADIENT", "MASS_MATRIX", "MINV"},
			added: []string{"ABA", "INVERSE_DYNAMICS_GRADIENT", "MINV"}},
		{name: "a need also asked for", wanted: []string{"forward_dynamics_gradient", "minv"},
			keep:  []string{"ABA", "FORWARD_DYNAMICS_GRADIENT", "INVERSE_DYNAMICS_GRADIENT", "MINV"},
			added: []string{"ABA", "INVERSE_DYNAMICS_GRADIENT"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			keep, skip, added, err := selectEntries(all, c.wanted, needs)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.keep, keep); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.added, added); d != "" {
				t.Errorf("added (-want +got):\n%s", d)
			}
			if len(keep)+len(skip) != len(all) {
				t.Errorf("kept %d and left out %d of %d entry points", len(keep), len(skip), len(all))
			}
		})
	}
	if _, _, _, err := selectEntries(all, []string{"no_such_algorithm"}, needs); err == nil ||
		!strings.Contains(err.Error(), `no entry point "no_such_algorithm"`) {
		t.Errorf("an unknown entry point: got %v", err)
	}
}
