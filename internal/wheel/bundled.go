package wheel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
