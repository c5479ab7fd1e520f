//go:build mage

package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/magefile/mage/sh"
)

const (
	venvDir = ".venv"
	// The environment comes in two sizes: what the demo needs (jax, numpy, matplotlib) and what the tests
	// need on top (Pinocchio, the CUDA compiler wheels, the benchmark peers), about 1.8 GB.
	demoRequirements = "python/requirements-demo.txt"
	testRequirements = "tests/requirements.txt"
	// The stamp records which requirements the environment was built from, so edits trigger a rebuild.
	venvStamp = venvDir + "/.grid-rbd-requirements.sha256"
)

func venvPython() string { return filepath.Join(venvDir, "bin", "python") }

// Venv creates the Python 3.12 virtual environment in .venv with the test requirements
// (tests/requirements.txt, which include the demo's). Set GRID_PYTHON to choose the interpreter that
// creates it.
func Venv() error { return ensureVenv(testRequirements) }

// demoVenv makes sure .venv has at least the demo's requirements: a fresh environment gets only those, an
// existing one (the test set of an older checkout, say) gets them on top.
func demoVenv() error {
	if stamp, err := requirementsStamp(testRequirements); err == nil && venvStamped(stamp) {
		return ensureFFIHeaders()
	}
	return ensureVenv(demoRequirements)
}

// requirementsStamp identifies a requirements file with the files it includes (-r), by content.
func requirementsStamp(file string) (string, error) {
	h := sha256.New()
	var add func(string) error
	add = func(path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write(data)
		for _, line := range strings.Split(string(data), "\n") {
			if inc, ok := strings.CutPrefix(strings.TrimSpace(line), "-r "); ok {
				if err := add(filepath.Join(filepath.Dir(path), strings.TrimSpace(inc))); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := add(file); err != nil {
		return "", err
	}
	return file + " " + hex.EncodeToString(h.Sum(nil)), nil
}

func venvStamped(stamp string) bool {
	got, err := os.ReadFile(venvStamp)
	return err == nil && strings.TrimSpace(string(got)) == stamp
}

// ensureVenv installs requirements into .venv: nothing when the stamp says so, on top of an environment this
// target made before (its stamp names what it holds: the pins of an older checkout, or the demo's set, which
// the test set includes), otherwise into a new one. Installing on top keeps a developer's environment when a
// requirements file changes, instead of downloading every package again.
func ensureVenv(requirements string) error {
	want, err := requirementsStamp(requirements)
	if err != nil {
		return err
	}
	if venvStamped(want) {
		return ensureFFIHeaders()
	}
	_, noStamp := os.Stat(venvStamp)
	if !fileExists(venvPython()) || noStamp != nil {
		py, err := findPython()
		if err != nil {
			return err
		}
		fmt.Printf("== creating %s with %s\n", venvDir, py)
		if err := os.RemoveAll(venvDir); err != nil {
			return err
		}
		if err := sh.RunV(py, "-m", "venv", venvDir); err != nil {
			return err
		}
		if err := sh.RunV(venvPython(), append(pipInstall, "--upgrade", "pip")...); err != nil {
			return err
		}
	}
	fmt.Printf("== installing %s into %s\n", requirements, venvDir)
	if err := sh.RunV(venvPython(), append(pipInstall, "-r", requirements)...); err != nil {
		return err
	}
	if err := ensureFFIHeaders(); err != nil {
		return err
	}
	return os.WriteFile(venvStamp, []byte(want+"\n"), 0o644)
}

var pipInstall = []string{"-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"}

// ensureFFIHeaders fetches the XLA FFI headers unless .venv already has them.
func ensureFFIHeaders() error {
	if _, err := os.Stat(filepath.Join(ffiIncludeDir, "xla", "ffi", "api", "ffi.h")); err == nil {
		return nil
	}
	return fetchFFIHeaders()
}

// The FFI handlers are compiled against the XLA FFI headers of the oldest supported jaxlib: XLA accepts
// handlers built against its own API version or older ones, so these libraries load in every jax from
// minJaxlib on, while headers from a newer jaxlib would be refused by older ones.
const (
	minJaxlib     = "0.11.2"
	ffiIncludeDir = venvDir + "/ffi-include"
)

// fetchFFIHeaders downloads the minimum jaxlib wheel and extracts its include folder into .venv/ffi-include.
func fetchFFIHeaders() error {
	tmp, err := os.MkdirTemp("", "jaxlib-headers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("== fetching the XLA FFI headers of jaxlib %s\n", minJaxlib)
	if err := sh.RunV(venvPython(), "-m", "pip", "download", "--disable-pip-version-check", "--progress-bar", "off",
		"--no-deps", "--only-binary=:all:", "-d", tmp, "jaxlib=="+minJaxlib); err != nil {
		return err
	}
	wheels, _ := filepath.Glob(filepath.Join(tmp, "jaxlib-*.whl"))
	if len(wheels) != 1 {
		return fmt.Errorf("expected one jaxlib wheel in %s, found %v", tmp, wheels)
	}
	zr, err := zip.OpenReader(wheels[0])
	if err != nil {
		return err
	}
	defer zr.Close()
	if err := os.RemoveAll(ffiIncludeDir); err != nil {
		return err
	}
	n := 0
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, "jaxlib/include/")
		if !ok || f.FileInfo().IsDir() || strings.Contains(rel, "..") {
			continue
		}
		dst := filepath.Join(ffiIncludeDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("jaxlib %s wheel has no include folder", minJaxlib)
	}
	return nil
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
