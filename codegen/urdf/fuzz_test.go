package urdf

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse feeds arbitrary documents to the parser, which must never panic; whatever it accepts must be a
// well-formed tree of finite numbers, and strict inertia checking may only reject more.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(sharedRobotsGlob)
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatalf("no URDF matches %s (tests expect ../shared beside the checkout)", sharedRobotsGlob)
	}
	files = append(files, "../../testdata/robots/branchy.urdf")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tc := range errorCases {
		f.Add([]byte(tc.urdf))
	}
	for _, doc := range []string{
		`<robot name="r"><link name="a"/></robot>`,
		`<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="continuous"><parent link="a"/>` +
			`<child link="b"/><axis xyz="1e-9 2e300 -3"/></joint></robot>`,
		`<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1e300" iyy="1e300" izz="1e-300"` +
			` ixy="-1e300"/></inertial><collision><geometry><mesh filename="m" scale="1 -1 1"/></geometry>` +
			`</collision></link></robot>`,
		`<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/>` +
			`<child link="b"/><limit lower="0x1p-3" upper="1_0"/><mimic joint="j"/></joint></robot>`,
	} {
		f.Add([]byte(doc))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		rs, errs := ParseWith(data, Options{StrictInertia: true})
		for _, e := range []error{err, errs} {
			if e != nil && !strings.Contains(e.Error(), "line ") && !strings.HasPrefix(e.Error(), "no <robot>") {
				t.Errorf("error %q names no line", e)
			}
		}
		if err != nil {
			if r != nil {
				t.Errorf("Parse returned a robot with its error %v", err)
			}
			if errs == nil {
				t.Fatalf("Parse failed (%v) but strict parsing succeeded", err)
			}
			return
		}
		checkInvariants(t, r)
		for _, l := range r.Links {
			if l.Line < 1 {
				t.Errorf("link %q has line %d", l.Name, l.Line)
			}
		}
		for _, j := range r.Joints {
			if j.Line < 1 {
				t.Errorf("joint %q has line %d", j.Name, j.Line)
			}
		}
		if errs == nil {
			for _, l := range rs.Links {
				if l.Inertial != nil {
					checkRealisable(t, l.Name, l.Inertial.Inertia)
				}
			}
		}
		switch {
		case errs != nil && len(r.Warnings) == 0:
			t.Errorf("strict parsing failed (%v) on a document the default parsing accepts without warnings", errs)
		case errs == nil && len(r.Warnings) != 0:
			t.Errorf("strict parsing accepted a document with warnings %q", r.Warnings)
		case errs == nil && !reflect.DeepEqual(r, rs):
			if diff := cmp.Diff(r, rs); diff != "" {
				t.Errorf("strict and default parsing differ (-default +strict):\n%s", diff)
			}
		}
	})
}

// checkRealisable checks necessary conditions, independent of the parser's eigenvalue computation, for an
// inertia tensor that strict parsing accepted: a non-negative diagonal, non-negative 2×2 principal minors
// and each diagonal moment at most the sum of the other two. Entries are divided by the largest one first
// so that extreme values neither overflow nor underflow; the tolerance is relative to the trace.
func checkRealisable(t *testing.T, link string, in [6]float64) {
	t.Helper()
	s := 0.0
	for _, v := range in {
		s = math.Max(s, math.Abs(v))
	}
	if s == 0 {
		return
	}
	var u [6]float64
	for i, v := range in {
		u[i] = v / s
	}
	xx, xy, xz, yy, yz, zz := u[0], u[1], u[2], u[3], u[4], u[5]
	tol := 1e-8 * math.Abs(xx+yy+zz)
	d := [3]float64{xx, yy, zz}
	for i := range 3 {
		if d[i] < -tol || d[i] > d[(i+1)%3]+d[(i+2)%3]+tol {
			t.Errorf("link %q: strict parsing accepted inertia %v", link, in)
			return
		}
	}
	for _, m := range [][3]float64{{xx, yy, xy}, {xx, zz, xz}, {yy, zz, yz}} {
		if m[0]*m[1]-m[2]*m[2] < -tol {
			t.Errorf("link %q: strict parsing accepted inertia %v", link, in)
			return
		}
	}
}
