// Package testrobots locates the robots that tests run on: the shared robot descriptions beside the
// checkout (../shared/robots) and the project's own under testdata/robots.
package testrobots

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// SharedDir is the shared material beside the checkout.
func SharedDir() string { return filepath.Join(RepoRoot(), "..", "shared") }

// Shared returns the path of a shared robot description, failing the test when it is missing.
func Shared(t testing.TB, file string) string {
	t.Helper()
	p := filepath.Join(SharedDir(), "robots", file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared robot %s is missing (tests expect ../shared beside the checkout): %v", file, err)
	}
	return p
}

// Own returns the path of one of the project's test robots in testdata/robots.
func Own(file string) string { return filepath.Join(RepoRoot(), "testdata", "robots", file) }

// All lists every shared robot, with the base each is meant for, plus the project's own test robots.
func All(t testing.TB) []Robot {
	t.Helper()
	return []Robot{
		{Name: "iiwa", Path: Shared(t, "iiwa.urdf")},
		{Name: "hyq", Path: Shared(t, "hyq.urdf")},
		{Name: "atlas", Path: Shared(t, "atlas.urdf")},
		{Name: "panda", Path: Shared(t, "panda.urdf")},
		{Name: "fetch", Path: Shared(t, "fetch.urdf")},
		{Name: "panda_ext_24dof", Path: Shared(t, "panda_ext_24dof.urdf")},
		{Name: "go2", Path: Shared(t, "go2.urdf"), FreeFlyer: true},
		{Name: "g1_29dof", Path: Shared(t, "g1_29dof.urdf"), FreeFlyer: true},
		{Name: "h1_2", Path: Shared(t, "h1_2.urdf"), FreeFlyer: true},
		{Name: "branchy", Path: Own("branchy.urdf")},
	}
}

// Large lists the project's random trees and chain (testdata/robots/random_*.urdf, written by
// `go tool mage randomrobot`): more bodies than emit.RollBodies, so they are generated rolled, and
// ill-conditioned enough to show how derivative accuracy follows cond(M).
func Large() []Robot {
	return []Robot{
		{Name: "random_tree_120", Path: Own("random_tree_120.urdf")},
		{Name: "random_tree_200_floating", Path: Own("random_tree_200.urdf"), FreeFlyer: true},
		{Name: "random_chain_200", Path: Own("random_chain_200.urdf")},
	}
}

// ExampleRobotData returns the path of a robot description from the example-robot-data package installed
// in the project's test environment (.venv, made by `go tool mage venv`), failing the test when absent.
func ExampleRobotData(t testing.TB, rel string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(RepoRoot(), ".venv", "lib", "python3*", "site-packages",
		"cmeel.prefix", "share", "example-robot-data", "robots", rel))
	if len(matches) == 0 {
		t.Fatalf("example-robot-data's %s is missing: run `go tool mage venv` to install the test environment", rel)
	}
	return matches[0]
}

// WithExampleRobots extends All with example-robot-data robots that add prismatic and continuous joints,
// mimic records and a large floating-base humanoid.
func WithExampleRobots(t testing.TB) []Robot {
	t.Helper()
	return append(All(t),
		Robot{Name: "erd_panda", Path: ExampleRobotData(t, "panda_description/urdf/panda.urdf")},
		Robot{Name: "erd_tiago", Path: ExampleRobotData(t, "tiago_description/robots/tiago.urdf")},
		Robot{Name: "erd_talos", Path: ExampleRobotData(t, "talos_data/robots/talos_reduced.urdf"), FreeFlyer: true},
		Robot{Name: "erd_double_pendulum", Path: ExampleRobotData(t, "double_pendulum_description/urdf/double_pendulum_continuous.urdf")},
	)
}

// LongEnv set to 1 includes the long robots in the suites.
const LongEnv = "GRID_LONG_TESTS"

// LongNV is where a robot becomes long: its fully unrolled kernels take the compiler minutes per entry point
// from about this many velocity coordinates on, so the suites test it only when GRID_LONG_TESTS=1 and the
// default run stays within a CI machine's time. tests/python/robots.json marks the same robots "long".
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
