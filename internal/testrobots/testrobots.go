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
