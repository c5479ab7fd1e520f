//go:build mage

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/magefile/mage/sh"
)

const (
	venvDir          = ".venv"
	testRequirements = "tests/requirements.txt"
	// The stamp records the requirements the environment was built from, so edits trigger a rebuild.
	venvStamp = venvDir + "/.grid-rbd-requirements.sha256"
)

func venvPython() string { return filepath.Join(venvDir, "bin", "python") }

// Venv creates the Python 3.12 virtual environment in .venv with the test requirements
// (tests/requirements.txt). Set GRID_PYTHON to choose the interpreter that creates it.
func Venv() error {
	req, err := os.ReadFile(testRequirements)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(req)
	want := hex.EncodeToString(sum[:])
	if got, err := os.ReadFile(venvStamp); err == nil && strings.TrimSpace(string(got)) == want {
		return nil
	}
	py, err := findPython()
	if err != nil {
		return err
	}
	fmt.Printf("== creating %s with %s and installing %s\n", venvDir, py, testRequirements)
	if err := os.RemoveAll(venvDir); err != nil {
		return err
	}
	if err := sh.RunV(py, "-m", "venv", venvDir); err != nil {
		return err
	}
	pip := []string{"-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"}
	if err := sh.RunV(venvPython(), append(pip, "--upgrade", "pip")...); err != nil {
		return err
	}
	if err := sh.RunV(venvPython(), append(pip, "-r", testRequirements)...); err != nil {
		return err
	}
	return os.WriteFile(venvStamp, []byte(want+"\n"), 0o644)
}

// findPython picks a Python 3.12+ interpreter: $GRID_PYTHON, python3.12 on PATH, or pyenv's 3.12.
func findPython() (string, error) {
	candidates := []string{os.Getenv("GRID_PYTHON"), "python3.12"}
	if home, err := os.UserHomeDir(); err == nil {
		matches, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", "3.12.*", "bin", "python3.12"))
		candidates = append(candidates, matches...)
	}
	candidates = append(candidates, "python3")
	for _, c := range candidates {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "-c", "import sys; print(sys.version_info >= (3, 12))").Output()
		if err == nil && strings.TrimSpace(string(out)) == "True" {
			return path, nil
		}
	}
	return "", errors.New("no Python 3.12 or newer found: install one or set GRID_PYTHON to its path")
}
