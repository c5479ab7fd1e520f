// Package roster is the one list of the robots the project's suites run on (testdata/robots/roster.json)
// and the one place that turns a robot's URDF reference into a file path.
package roster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Suites a robot can belong to.
const (
	Host   = "host"   // the Go host-build tests
	Pytest = "pytest" // tests/python against Pinocchio
	GPU    = "gpu"    // the CUDA equivalence check (mage gpuprep)
	Bench  = "bench"  // the benchmark (mage bench)
)

// Robot is one entry of the roster.
type Robot struct {
	Name string `json:"name"`
	// URDF is shared:<file>, erd:<path in example-robot-data> or repo:<path>.
	URDF     string   `json:"urdf"`
	Floating bool     `json:"floating"`
	Suites   []string `json:"suites"`
	// Seed draws the random inputs of the robot's Pinocchio references.
	Seed int `json:"seed"`
	// Long: unrolled kernels that take the compiler minutes (run only with GRID_LONG_TESTS=1).
	Long bool `json:"long"`
	// Large: more than 64 bodies, generated rolled.
	Large bool `json:"large"`
	// Collision: the pytest build adds the collision spheres (mage build -collision).
	Collision bool `json:"collision"`
}

// In reports whether the robot belongs to a suite.
func (r Robot) In(suite string) bool { return slices.Contains(r.Suites, suite) }

// ExampleRobotData reports whether the robot comes from example-robot-data (installed with the test
// environment).
func (r Robot) ExampleRobotData() bool { return strings.HasPrefix(r.URDF, "erd:") }

// RepoRoot is the checkout's root directory: where this source file sits (tests, mage run from source), or
// else the working directory (a compiled mage binary run from another machine's copy of the checkout).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if exists(filepath.Join(root, "testdata", "robots", "roster.json")) {
		return root
	}
	return "."
}

// File is the roster's path.
func File() string { return filepath.Join(RepoRoot(), "testdata", "robots", "roster.json") }

// Load reads the roster.
func Load() ([]Robot, error) {
	data, err := os.ReadFile(File())
	if err != nil {
		return nil, fmt.Errorf("reading the robot roster: %w", err)
	}
	var doc struct {
		Robots []Robot `json:"robots"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", File(), err)
	}
	if len(doc.Robots) == 0 {
		return nil, fmt.Errorf("%s lists no robots", File())
	}
	return doc.Robots, nil
}

// Suite returns the robots of one suite, in roster order.
func Suite(suite string) ([]Robot, error) {
	all, err := Load()
	if err != nil {
		return nil, err
	}
	var out []Robot
	for _, r := range all {
		if r.In(suite) {
			out = append(out, r)
		}
	}
	return out, nil
}

// SharedDirs are where shared:<file> references are looked for, in order: $GRID_ROBOTS_DIR, the shared
// material beside the checkout, and shared/robots inside it (a copy of the checkout on another machine).
func SharedDirs() []string {
	dirs := []string{filepath.Join(RepoRoot(), "..", "shared", "robots"), filepath.Join(RepoRoot(), "shared", "robots")}
	if d := os.Getenv("GRID_ROBOTS_DIR"); d != "" {
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}

// Path resolves the robot's URDF reference to an existing file, or says what is missing and how to get it.
func (r Robot) Path() (string, error) {
	kind, rel, ok := strings.Cut(r.URDF, ":")
	if !ok || rel == "" {
		return "", fmt.Errorf("robot %s: bad urdf reference %q (want shared:, erd: or repo: before the path)", r.Name, r.URDF)
	}
	switch kind {
	case "shared":
		for _, d := range SharedDirs() {
			if p := filepath.Join(d, rel); exists(p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("robot %s: %s is in none of %s (set GRID_ROBOTS_DIR, or provide ../shared beside the checkout)",
			r.Name, rel, strings.Join(SharedDirs(), ", "))
	case "repo":
		p := filepath.Join(RepoRoot(), rel)
		if !exists(p) {
			return "", fmt.Errorf("robot %s: %s is missing from the checkout", r.Name, p)
		}
		return p, nil
	case "erd":
		matches, _ := filepath.Glob(filepath.Join(RepoRoot(), ".venv", "lib", "python3*", "site-packages", "cmeel.prefix",
			"share", "example-robot-data", "robots", rel))
		if len(matches) == 0 {
			return "", fmt.Errorf("robot %s: example-robot-data's %s is missing: run `go tool mage venv` to install the test environment",
				r.Name, rel)
		}
		return matches[0], nil
	}
	return "", fmt.Errorf("robot %s: bad urdf reference %q (want shared:, erd: or repo: before the path)", r.Name, r.URDF)
}

// Find returns the roster's robot of a name.
func Find(name string) (Robot, error) {
	all, err := Load()
	if err != nil {
		return Robot{}, err
	}
	for _, r := range all {
		if r.Name == name {
			return r, nil
		}
	}
	return Robot{}, errors.New("no robot " + name + " in " + File())
}

func exists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}
