package wheel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BundledConfig is python/grid_rbd/robots/bundled.json, relative to the repository root: the robots a wheel
// ships.
const BundledConfig = "python/grid_rbd/robots/bundled.json"

// BundledRobot is one robot a wheel ships, built from its URDF (relative to the repository root).
type BundledRobot struct {
	Name     string `json:"name"`
	URDF     string `json:"urdf"`
	Floating bool   `json:"floating"`
}

// ReadBundled reads the bundled robots of the repository at root ("" for the working directory).
func ReadBundled(root string) ([]BundledRobot, error) {
	path := filepath.Join(root, BundledConfig)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Robots []BundledRobot `json:"robots"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg.Robots, nil
}

// SelectBundled returns the robots of bundled named by names, in bundled's order; an unknown name is an error
// that lists the bundled ones.
func SelectBundled(bundled []BundledRobot, names []string) ([]BundledRobot, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var all []string
	var out []BundledRobot
	for _, r := range bundled {
		all = append(all, r.Name)
		if want[r.Name] {
			out = append(out, r)
			delete(want, r.Name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for _, n := range names {
			if want[n] {
				unknown = append(unknown, n)
			}
		}
		return nil, fmt.Errorf("%s has no robot %s (it bundles %s)", BundledConfig, strings.Join(unknown, ", "), strings.Join(all, ", "))
	}
	return out, nil
}
