// Package testrobots gives the Go tests their robots from the roster (internal/roster,
// testdata/robots/roster.json): the shared robot descriptions beside the checkout and the project's own
// under testdata/robots.
package testrobots

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grid-rbd/grid-rbd/internal/roster"
)

// Robot names a test robot and how to build it.
type Robot struct {
	Name string
	// Path is the URDF's absolute path.
	Path string
	// FreeFlyer asks for an added free-flyer base.
	FreeFlyer bool
}

// RepoRoot is the checkout's root directory.
func RepoRoot() string { return roster.RepoRoot() }

// Shared returns the path of a shared robot description, failing the test when it is missing.
func Shared(t testing.TB, file string) string {
	t.Helper()
	return path(t, roster.Robot{Name: file, URDF: "shared:" + file})
}

// Own returns the path of one of the project's test robots in testdata/robots.
func Own(file string) string { return filepath.Join(RepoRoot(), "testdata", "robots", file) }

func path(t testing.TB, r roster.Robot) string {
	t.Helper()
	p, err := r.Path()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// host lists the host suite's robots of the roster (testdata/robots/roster.json) that keep() accepts.
func host(t testing.TB, keep func(roster.Robot) bool) []Robot {
	t.Helper()
	all, err := roster.Suite(roster.Host)
	if err != nil {
		t.Fatal(err)
	}
	var out []Robot
	for _, r := range all {
		if keep(r) {
			out = append(out, Robot{Name: r.Name, Path: path(t, r), FreeFlyer: r.Floating})
		}
	}
	return out
}

// All lists the roster's shared robots, with the base each is meant for, plus the project's own test robots
// (not the large ones, nor example-robot-data's).
func All(t testing.TB) []Robot {
	t.Helper()
	return host(t, func(r roster.Robot) bool { return !r.Large && !r.ExampleRobotData() })
}

// Large lists the roster's large robots (random trees and a chain of 100-200 links under testdata/robots,
// written by `go tool mage randomrobot`): more bodies than emit.RollBodies, so they are generated rolled, and
// ill-conditioned enough to show how derivative accuracy follows cond(M).
func Large(t testing.TB) []Robot {
	t.Helper()
	return host(t, func(r roster.Robot) bool { return r.Large })
}

// WithExampleRobots extends All with example-robot-data robots (installed with the project's test
// environment, `go tool mage venv`) that add prismatic and continuous joints, mimic records and a large
// floating-base humanoid.
func WithExampleRobots(t testing.TB) []Robot {
	t.Helper()
	return host(t, func(r roster.Robot) bool { return !r.Large })
}

// LongEnv set to 1 includes the long robots in the suites.
const LongEnv = "GRID_LONG_TESTS"

// LongNV is where a robot becomes long: its fully unrolled kernels take the compiler minutes per entry point
// from about this many velocity coordinates on, so the suites test it only when GRID_LONG_TESTS=1 and the
// default run stays within a CI machine's time. testdata/robots/roster.json marks the same robots "long".
const LongNV = 24

// IsLong reports whether a robot with nv velocity coordinates is tested only with GRID_LONG_TESTS=1.
func IsLong(nv int) bool { return nv >= LongNV }

// LongTestsEnabled reports whether GRID_LONG_TESTS=1 asks for the long robots.
func LongTestsEnabled() bool { return os.Getenv(LongEnv) == "1" }

// SkipLong skips t, a test of the long robot name, unless GRID_LONG_TESTS=1, naming the way to run it.
func SkipLong(t testing.TB, name string) {
	t.Helper()
	if !LongTestsEnabled() {
		t.Skipf("%s: kernels take minutes to compile; %s=1 tests it", name, LongEnv)
	}
}
