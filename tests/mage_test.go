package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// mageBinary is one compiled mage binary for every test of the package. `go tool mage <target>` compiles the
// magefiles on first use through a temporary source file in magefiles/, and two first uses at once (TestPython's
// robot builds beside TestWheelBuildsRobotsFromURDF's wheel build) race on that file.
var mageBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// compiledMage returns the path of the package's compiled mage binary, compiling it on first call.
func compiledMage(t *testing.T, root string) string {
	t.Helper()
	mageBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "grid-rbd-mage-")
		if err != nil {
			mageBinary.err = err
			return
		}
		mageBinary.dir = dir
		mageBinary.path = filepath.Join(dir, "mage")
		if out, err := runIn(root, goTool(), "tool", "mage", "-compile", mageBinary.path); err != nil {
			mageBinary.err = fmt.Errorf("go tool mage -compile: %v\n%s", err, out)
		}
	})
	if mageBinary.err != nil {
		t.Fatal(mageBinary.err)
	}
	return mageBinary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if mageBinary.dir != "" {
		os.RemoveAll(mageBinary.dir)
	}
	os.Exit(code)
}
