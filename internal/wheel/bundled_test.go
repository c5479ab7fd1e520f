package wheel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadBundled: the robots of a bundled.json in order, and an error naming the file for a malformed one or
// none at all.
func TestReadBundled(t *testing.T) {
	for _, c := range []struct {
		name, config string
		want         []BundledRobot
		err          string
	}{
		{"two robots", `{"robots": [{"name": "arm", "urdf": "a.urdf"}, {"name": "dog", "urdf": "d.urdf", "floating": true}]}`,
			[]BundledRobot{{Name: "arm", URDF: "a.urdf"}, {Name: "dog", URDF: "d.urdf", Floating: true}}, ""},
		{"malformed", `{"robots": [`, nil, "bundled.json: unexpected end of JSON input"},
		{"missing", "", nil, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.config != "" {
				path := filepath.Join(root, BundledConfig)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(c.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadBundled(root)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ReadBundled error = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ReadBundled (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelectBundled: the named robots in the file's order, and an error naming an unknown one and the bundled.
func TestSelectBundled(t *testing.T) {
	bundled := []BundledRobot{{Name: "arm", URDF: "a.urdf"}, {Name: "dog", URDF: "d.urdf", Floating: true}}
	for _, c := range []struct {
		name  string
		names []string
		want  []BundledRobot
		err   string
	}{
		{"one", []string{"dog"}, bundled[1:], ""},
		{"both, in the file's order", []string{"dog", "arm"}, bundled, ""},
		{"unknown", []string{"arm", "cat"}, nil, "has no robot cat (it bundles arm, dog)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SelectBundled(bundled, c.names)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("SelectBundled error = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("SelectBundled (-want +got):\n%s", diff)
			}
		})
	}
}
