package collision

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/spatial"
)

// ResolveMesh finds a URDF mesh filename on disk: a relative path from the URDF's folder, file:// as an
// absolute path, and package://PKG/PATH as PKG/PATH under the URDF's folder or any folder above it (where
// PKG is the folder's own name, PATH under it), the layouts ROS packages and example-robot-data use. It
// returns "" when no candidate exists.
func ResolveMesh(filename, urdfDir string) string {
	var candidates []string
	switch {
	case strings.HasPrefix(filename, "file://"):
		candidates = []string{strings.TrimPrefix(filename, "file://")}
	case strings.HasPrefix(filename, "package://"):
		pkg, rest, _ := strings.Cut(strings.TrimPrefix(filename, "package://"), "/")
		for dir := filepath.Clean(urdfDir); ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, pkg, rest))
			if filepath.Base(dir) == pkg {
				candidates = append(candidates, filepath.Join(dir, rest))
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	case filepath.IsAbs(filename):
		candidates = []string{filename}
	default:
		candidates = []string{filepath.Join(urdfDir, filename)}
	}
	for _, c := range candidates {
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			return c
		}
	}
	return ""
}

// MeshBounds returns the axis-aligned bounding box of an STL file's vertices (binary or ASCII), in the
// mesh's own coordinates (before any URDF scale).
func MeshBounds(path string) (lo, hi spatial.Vec3, err error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".stl" {
		return lo, hi, fmt.Errorf("%s: only STL meshes are read, not %s", path, ext)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return lo, hi, err
	}
	var pts []spatial.Vec3
	if len(data) >= 84 && len(data) == 84+50*int(binary.LittleEndian.Uint32(data[80:84])) {
		pts = binarySTL(data)
	} else if pts, err = asciiSTL(data); err != nil {
		return lo, hi, fmt.Errorf("%s: %w", path, err)
	}
	if len(pts) == 0 {
		return lo, hi, fmt.Errorf("%s: no vertices", path)
	}
	lo, hi = pts[0], pts[0]
	for _, p := range pts {
		for k := range 3 {
			if math.IsNaN(p[k]) || math.IsInf(p[k], 0) {
				return lo, hi, fmt.Errorf("%s: vertex %v is not finite", path, p)
			}
			lo[k], hi[k] = math.Min(lo[k], p[k]), math.Max(hi[k], p[k])
		}
	}
	return lo, hi, nil
}

// binarySTL reads the vertices of a binary STL: an 80-byte header, a triangle count and 50 bytes per
// triangle (normal, three vertices as float32, two attribute bytes).
func binarySTL(data []byte) []spatial.Vec3 {
	n := int(binary.LittleEndian.Uint32(data[80:84]))
	pts := make([]spatial.Vec3, 0, 3*n)
	for t := range n {
		tri := data[84+50*t:]
		for v := 1; v <= 3; v++ {
			var p spatial.Vec3
			for k := range 3 {
				p[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(tri[12*v+4*k:])))
			}
			pts = append(pts, p)
		}
	}
	return pts
}

// asciiSTL reads the `vertex x y z` lines of an ASCII STL.
func asciiSTL(data []byte) ([]spatial.Vec3, error) {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("solid")) {
		return nil, errors.New("neither a binary STL (size does not match its triangle count) nor an ASCII one (no leading `solid`)")
	}
	var pts []spatial.Vec3
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "vertex" {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: want `vertex x y z`, got %q", line, sc.Text())
		}
		var p spatial.Vec3
		for k := range 3 {
			x, err := strconv.ParseFloat(f[1+k], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			p[k] = x
		}
		pts = append(pts, p)
	}
	return pts, sc.Err()
}
