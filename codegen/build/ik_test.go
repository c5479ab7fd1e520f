package build_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/build"
)

// TestHasIK: the inverse-kinematics library is built for unrolled robots (a floating base is held at the
// solve's rest pose), not for rolled ones, and a folder without readable metadata is an error, not a silent
// "no".
func TestHasIK(t *testing.T) {
	for _, c := range []struct {
		name, metadata string
		want, err      bool
	}{
		{"fixed base", `{"robot": "arm", "floating_base": false}`, true, false},
		{"fields absent", `{"robot": "arm"}`, true, false},
		{"floating base", `{"robot": "dog", "floating_base": true}`, true, false},
		{"rolled", `{"robot": "chain", "rolled": true}`, false, false},
		{"rolled and floating", `{"robot": "tree", "rolled": true, "floating_base": true}`, false, false},
		{"not JSON", `{"robot": `, false, true},
		{"no metadata", "", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.metadata != "" {
				if err := os.WriteFile(filepath.Join(dir, build.MetadataFile), []byte(c.metadata), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := build.HasIK(dir)
			if (err != nil) != c.err {
				t.Fatalf("HasIK error = %v, want an error: %v", err, c.err)
			}
			if got != c.want {
				t.Errorf("HasIK = %v, want %v", got, c.want)
			}
		})
	}
}
