package collision

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// triangles of a tetrahedron spanning [-1, 2] × [0, 3] × [-0.5, 0.25]
var tetra = [][3]spatial.Vec3{
	{{-1, 0, -0.5}, {2, 0, -0.5}, {0, 3, -0.5}},
	{{-1, 0, -0.5}, {2, 0, -0.5}, {0, 1, 0.25}},
	{{2, 0, -0.5}, {0, 3, -0.5}, {0, 1, 0.25}},
}

func writeBinarySTL(t *testing.T, path string, tris [][3]spatial.Vec3) {
	t.Helper()
	data := make([]byte, 84+50*len(tris))
	binary.LittleEndian.PutUint32(data[80:], uint32(len(tris)))
	for i, tri := range tris {
		for v, p := range tri {
			for k := range 3 {
				binary.LittleEndian.PutUint32(data[84+50*i+12*(v+1)+4*k:], math.Float32bits(float32(p[k])))
			}
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func asciiSTLText(tris [][3]spatial.Vec3) string {
	var b strings.Builder
	b.WriteString("solid tetra\n")
	for _, tri := range tris {
		b.WriteString("  facet normal 0 0 1\n    outer loop\n")
		for _, p := range tri {
			fmt.Fprintf(&b, "      vertex %g %g %g\n", p[0], p[1], p[2])
		}
		b.WriteString("    endloop\n  endfacet\n")
	}
	b.WriteString("endsolid tetra\n")
	return b.String()
}

func TestMeshBounds(t *testing.T) {
	dir := t.TempDir()
	writeBinarySTL(t, filepath.Join(dir, "tetra.stl"), tetra)
	if err := os.WriteFile(filepath.Join(dir, "ascii.STL"), []byte(asciiSTLText(tetra)), 0o644); err != nil {
		t.Fatal(err)
	}
	// a binary STL whose header starts with "solid", as some exporters write
	writeBinarySTL(t, filepath.Join(dir, "solid.stl"), tetra)
	data, _ := os.ReadFile(filepath.Join(dir, "solid.stl"))
	copy(data, "solid exported")
	os.WriteFile(filepath.Join(dir, "solid.stl"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "broken.stl"), []byte("not a mesh"), 0o644)
	os.WriteFile(filepath.Join(dir, "mesh.dae"), []byte("<COLLADA/>"), 0o644)

	want := [2]spatial.Vec3{{-1, 0, -0.5}, {2, 3, 0.25}}
	for _, tc := range []struct {
		file    string
		wantErr string
	}{
		{"tetra.stl", ""},
		{"ascii.STL", ""},
		{"solid.stl", ""},
		{"broken.stl", "neither a binary STL"},
		{"mesh.dae", "only STL meshes are read"},
		{"missing.stl", "no such file"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lo, hi, err := MeshBounds(filepath.Join(dir, tc.file))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, [2]spatial.Vec3{lo, hi}); d != "" {
				t.Errorf("bounds (-want +got):\n%s", d)
			}
		})
	}
}

func TestResolveMesh(t *testing.T) {
	root := t.TempDir()
	urdfDir := filepath.Join(root, "share", "robots", "arm_description", "urdf")
	for _, p := range []string{
		filepath.Join(urdfDir, "meshes", "a.stl"),
		filepath.Join(root, "share", "robots", "arm_description", "meshes", "b.stl"),
		filepath.Join(root, "share", "pkg", "robots", "arm_description", "meshes", "c.stl"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		filename, want string
	}{
		{"meshes/a.stl", filepath.Join(urdfDir, "meshes", "a.stl")},
		{"package://arm_description/meshes/b.stl", filepath.Join(root, "share", "robots", "arm_description", "meshes", "b.stl")},
		{"package://pkg/robots/arm_description/meshes/c.stl", filepath.Join(root, "share", "pkg", "robots", "arm_description", "meshes", "c.stl")},
		{"file://" + filepath.Join(urdfDir, "meshes", "a.stl"), filepath.Join(urdfDir, "meshes", "a.stl")},
		{"meshes/missing.stl", ""},
		{"package://other/meshes/b.stl", ""},
	} {
		if got := ResolveMesh(tc.filename, urdfDir); got != tc.want {
			t.Errorf("ResolveMesh(%q) = %q, want %q", tc.filename, got, tc.want)
		}
	}
}
