//go:build mage

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"
)

// pytestRobots is the robot list the pytest suite shares with tests/suite_test.go.
const pytestRobots = "tests/python/robots.json"

// GPUPytestPrep prepares the pytest suite for a GPU machine without Go or Pinocchio: it builds every robot
// of tests/python/robots.json with its CUDA library (one architecture, $GRID_CUDA_ARCH, default sm_90)
// into build/gpu-pytest/<name> and writes the Pinocchio references into build/gpu-pytest/ref. There:
// GRID_RBD_PATH=build/gpu-pytest GRID_RBD_REFERENCE_DIR=build/gpu-pytest/ref PYTHONPATH=python
// python -m pytest tests/python.
func GPUPytestPrep() error {
	mg.Deps(Venv)
	if os.Getenv("GRID_CUDA_ARCH") == "" {
		os.Setenv("GRID_CUDA_ARCH", "sm_90")
	}
	data, err := os.ReadFile(pytestRobots)
	if err != nil {
		return err
	}
	var cfg struct {
		Robots []struct {
			Name     string `json:"name"`
			URDF     string `json:"urdf"`
			Floating bool   `json:"floating"`
		} `json:"robots"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("%s: %w", pytestRobots, err)
	}
	root := filepath.Join("build", "gpu-pytest")
	cuda := true
	for _, rb := range cfg.Robots {
		path, err := resolveRobotPath(rb.URDF)
		if err != nil {
			return err
		}
		out := filepath.Join(root, rb.Name)
		floating := rb.Floating
		if err := Build(path, &floating, &out, &cuda); err != nil {
			return fmt.Errorf("%s: %w", rb.Name, err)
		}
	}
	return sh.RunV(venvPython(), "tests/python/make_reference.py", filepath.Join(root, "ref"))
}

// resolveRobotPath turns a robots.json location (shared:FILE, erd:PATH, repo:PATH) into a file path.
func resolveRobotPath(spec string) (string, error) {
	kind, rel, _ := strings.Cut(spec, ":")
	switch kind {
	case "shared":
		return filepath.Join("..", "shared", "robots", rel), nil
	case "repo":
		return rel, nil
	case "erd":
		matches, _ := filepath.Glob(filepath.Join(venvDir, "lib", "python3*", "site-packages", "cmeel.prefix",
			"share", "example-robot-data", "robots", rel))
		if len(matches) == 0 {
			return "", fmt.Errorf("example-robot-data's %s is missing: run `go tool mage venv`", rel)
		}
		return matches[0], nil
	}
	return "", fmt.Errorf("unknown robot location %q", spec)
}
