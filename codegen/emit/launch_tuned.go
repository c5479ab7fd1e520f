package emit

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// LaunchFile is a set of tuned launch configurations (launch_configs/*.json, written by `go tool mage
// tune` from a GPU sweep): per robot, keyed by its fingerprint so that a different model under the same
// name is not tuned by mistake.
type LaunchFile struct {
	// GPU is the device the sweep ran on; Source the sweep results and commit it came from.
	GPU    string                 `json:"gpu"`
	Source string                 `json:"source"`
	Robots map[string]LaunchTable `json:"robots"`
}

// TunedGPU is the launch_configs file the generator bakes by default.
const TunedGPU = "h200"

//go:embed launch_configs/*.json
var launchConfigs embed.FS

// Fingerprint identifies a robot model for the tuned tables: its name and sizes.
func Fingerprint(r *model.Robot) string {
	return fmt.Sprintf("%s nq=%d nv=%d joints=%d frames=%d", r.Name, r.NQ, r.NV, len(r.Joints), len(r.Frames))
}

// LoadLaunchFile reads launch_configs/<gpu>.json.
func LoadLaunchFile(gpu string) (*LaunchFile, error) {
	data, err := launchConfigs.ReadFile("launch_configs/" + gpu + ".json")
	if err != nil {
		return nil, fmt.Errorf("no tuned launch configurations for GPU %q: %w", gpu, err)
	}
	var f LaunchFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("launch_configs/%s.json: %w", gpu, err)
	}
	return &f, nil
}

// tunedLaunch returns the tuned table of the robot in the default file, or nil when it was not tuned.
func tunedLaunch(r *model.Robot) (LaunchTable, error) {
	f, err := LoadLaunchFile(TunedGPU)
	if err != nil {
		return nil, err
	}
	return f.Robots[Fingerprint(r)], nil
}
