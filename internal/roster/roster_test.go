package roster_test

import (
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/internal/roster"
)

// TestRoster: names are unique, every suite is a known one, every robot of a suite the default test run
// needs resolves (erd: robots need the test environment, which the Go suite also needs), and large robots
// are not also long (they are generated rolled, which compiles quickly).
func TestRoster(t *testing.T) {
	all, err := roster.Load()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{roster.Host: true, roster.Pytest: true, roster.GPU: true, roster.Bench: true}
	seen := map[string]bool{}
	for _, r := range all {
		if seen[r.Name] {
			t.Errorf("robot %s is listed twice", r.Name)
		}
		seen[r.Name] = true
		for _, s := range r.Suites {
			if !known[s] {
				t.Errorf("robot %s: unknown suite %q", r.Name, s)
			}
		}
		if r.In(roster.Pytest) && r.Seed == 0 {
			t.Errorf("robot %s is in the pytest suite without a seed", r.Name)
		}
		if r.Large && r.Long {
			t.Errorf("robot %s is marked both large (rolled) and long (unrolled)", r.Name)
		}
		if _, err := r.Path(); err != nil {
			t.Error(err)
		}
	}
	if _, err := roster.Find("no-such-robot"); err == nil || !strings.Contains(err.Error(), "no robot no-such-robot") {
		t.Errorf("Find of a missing robot: %v", err)
	}
	bad := roster.Robot{Name: "x", URDF: "nowhere.urdf"}
	if _, err := bad.Path(); err == nil || !strings.Contains(err.Error(), "bad urdf reference") {
		t.Errorf("a reference without its kind: %v", err)
	}
}
