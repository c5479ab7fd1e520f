package randomrobot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/randomrobot"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestCommittedRobots checks that the random trees under testdata/robots are what `go tool mage randomrobot`
// writes for their shape, size and seed, so that they can be regenerated and reviewed.
func TestCommittedRobots(t *testing.T) {
	for _, c := range []struct {
		file  string
		shape randomrobot.Shape
		links int
		seed  uint64
	}{
		{"random_tree_120.urdf", randomrobot.Tree, 120, 1},
		{"random_tree_200.urdf", randomrobot.Tree, 200, 2},
		{"random_chain_200.urdf", randomrobot.Chain, 200, 3},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(testrobots.Own(c.file))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(data), randomrobot.URDF(c.shape, c.links, c.seed)); d != "" {
				t.Errorf("%s differs from `go tool mage randomrobot %v %d %d` (-file +generated):\n%s", c.file, c.shape,
					c.links, c.seed, d)
			}
		})
	}
}

// TestRobotsLoad checks that random robots of both shapes parse and model with every link moving but the
// fixed-joint ones, and that the same seed gives the same robot.
func TestRobotsLoad(t *testing.T) {
	for _, c := range []struct {
		shape randomrobot.Shape
		links int
	}{{randomrobot.Tree, 50}, {randomrobot.Chain, 50}, {randomrobot.Tree, 1}} {
		t.Run(c.shape.String(), func(t *testing.T) {
			text := randomrobot.URDF(c.shape, c.links, 7)
			if again := randomrobot.URDF(c.shape, c.links, 7); again != text {
				t.Fatal("the same seed gave two different robots")
			}
			path := filepath.Join(t.TempDir(), "r.urdf")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := model.Load(path, urdf.Options{}, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.shape == randomrobot.Chain && (len(r.Joints) != c.links || len(r.Levels) != c.links) {
				t.Errorf("chain of %d links: %d joints in %d levels", c.links, len(r.Joints), len(r.Levels))
			}
			if len(r.Joints) == 0 || len(r.Joints) > c.links {
				t.Errorf("%d moving joints for %d links", len(r.Joints), c.links)
			}
		})
	}
}
