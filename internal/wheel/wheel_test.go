package wheel

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The RECORD lists every other file with the hash and size of its actual bytes (checked independently of
// the writer), and METADATA and WHEEL carry the spec.
func TestWheelContents(t *testing.T) {
	spec := Spec{Name: "grid-rbd", Version: "0.1.0", Tag: "py3-none-linux_x86_64", RequiresPython: ">=3.12",
		Requires: []string{"numpy", "jax>=0.11"},
		Files: []File{
			{Path: "grid_rbd/__init__.py", Data: []byte("x = 1\n")},
			{Path: "grid_rbd/_robots/iiwa/libgrid_rbd_cpu.so", Data: []byte{0x7f, 'E', 'L', 'F'}, Executable: true},
		}}
	path, err := Write(t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, "grid_rbd-0.1.0-py3-none-linux_x86_64.whl") {
		t.Errorf("file name %s", path)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	contents := map[string]string{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		contents[f.Name] = string(data)
		names = append(names, f.Name)
	}
	want := []string{"grid_rbd/__init__.py", "grid_rbd/_robots/iiwa/libgrid_rbd_cpu.so",
		"grid_rbd-0.1.0.dist-info/METADATA", "grid_rbd-0.1.0.dist-info/WHEEL", "grid_rbd-0.1.0.dist-info/RECORD"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	record := contents["grid_rbd-0.1.0.dist-info/RECORD"]
	lines := strings.Split(strings.TrimSpace(record), "\n")
	if len(lines) != len(names) {
		t.Fatalf("RECORD has %d lines for %d files:\n%s", len(lines), len(names), record)
	}
	for _, l := range lines {
		parts := strings.Split(l, ",")
		if parts[0] == "grid_rbd-0.1.0.dist-info/RECORD" {
			if parts[1] != "" || parts[2] != "" {
				t.Errorf("RECORD must not hash itself: %q", l)
			}
			continue
		}
		data := contents[parts[0]]
		sum := sha256.Sum256([]byte(data))
		if parts[1] != "sha256="+base64.RawURLEncoding.EncodeToString(sum[:]) || parts[2] != strconv.Itoa(len(data)) {
			t.Errorf("RECORD line %q does not match the file", l)
		}
	}
	meta := contents["grid_rbd-0.1.0.dist-info/METADATA"]
	for _, s := range []string{"Name: grid-rbd", "Version: 0.1.0", "Requires-Python: >=3.12", "Requires-Dist: jax>=0.11"} {
		if !strings.Contains(meta, s) {
			t.Errorf("METADATA lacks %q:\n%s", s, meta)
		}
	}
	if !strings.Contains(contents["grid_rbd-0.1.0.dist-info/WHEEL"], "Tag: py3-none-linux_x86_64") {
		t.Errorf("WHEEL lacks the tag")
	}
	if mode := zr.File[1].Mode(); mode&0o111 == 0 {
		t.Errorf("shared library not executable: %v", mode)
	}
}

func TestWheelRejectsBadSpecs(t *testing.T) {
	for _, s := range []Spec{
		{Name: "x", Version: "1", Tag: "py3-none"},
		{Name: "x", Version: "1", Tag: "py3-none-any", Files: []File{{Path: "../evil"}}},
		{Name: "x", Version: "1", Tag: "py3-none-any", Files: []File{{Path: "a"}, {Path: "a"}}},
	} {
		if _, err := Write(t.TempDir(), s); err == nil {
			t.Errorf("spec %+v accepted", s)
		}
	}
}

// METADATA carries the project's description, URLs, classifiers and extras as core metadata 2.1 fields:
// an extra's requirements get the extra marker (joined to a marker of their own), and an extra without
// requirements is still declared.
func TestWheelMetadataFields(t *testing.T) {
	spec := Spec{Name: "grid-rbd-cuda", Version: "0.1.0", Tag: "py3-none-linux_x86_64", Summary: "dynamics",
		License: "none declared", RequiresPython: ">=3.12", Requires: []string{"numpy"},
		Keywords: []string{"robotics", "jax"}, Classifiers: []string{"Typing :: Typed"},
		URLs: [][2]string{{"Source", "https://example.org/src"}},
		Extras: []Extra{{Name: "demo", Requires: []string{"matplotlib", `tomli; python_version < "3.11"`}},
			{Name: "cuda", Requires: []string{}}},
		Description: "# grid-rbd\n\nText.\n"}
	want := `Metadata-Version: 2.1
Name: grid-rbd-cuda
Version: 0.1.0
Summary: dynamics
Keywords: robotics,jax
License: none declared
Project-URL: Source, https://example.org/src
Classifier: Typing :: Typed
Requires-Python: >=3.12
Requires-Dist: numpy
Provides-Extra: demo
Requires-Dist: matplotlib; extra == "demo"
Requires-Dist: tomli; (python_version < "3.11") and extra == "demo"
Provides-Extra: cuda
Description-Content-Type: text/markdown

# grid-rbd

Text.
`
	if d := cmp.Diff(want, string(spec.metadata())); d != "" {
		t.Errorf("METADATA (-want +got):\n%s", d)
	}
	if got := spec.FileName(); got != "grid_rbd_cuda-0.1.0-py3-none-linux_x86_64.whl" {
		t.Errorf("file name %s", got)
	}
}
