//go:build mage

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/internal/roster"
	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"
)

// GPUPytestPrep prepares the pytest suite for a GPU machine without Go or Pinocchio: it builds every robot
// of the roster's pytest suite (testdata/robots/roster.json; header, metadata and CPU library) into build/gpu-pytest/<name>, writes the
// Pinocchio references into build/gpu-pytest/ref and writes build/gpu-pytest/build_cuda.sh, which compiles
// every robot's CUDA library there (in parallel, for $GRID_CUDA_ARCH, default sm_90, against that
// machine's jax FFI headers). There: bash build/gpu-pytest/build_cuda.sh, then
// GRID_RBD_PATH=build/gpu-pytest GRID_RBD_REFERENCE_DIR=build/gpu-pytest/ref PYTHONPATH=python
// python -m pytest tests/python. -robots=a,b builds only those; -tier=lite|minimal has every handler launch at
// that resource tier (mage build -tier), so that the suite checks the handles' workspace path end to end.
func GPUPytestPrep(robots, tier *string) error {
	mg.Deps(Venv)
	arch := os.Getenv("GRID_CUDA_ARCH")
	if arch == "" {
		arch = "sm_90"
	}
	suite, err := roster.Suite(roster.Pytest)
	if err != nil {
		return err
	}
	picked := map[string]bool{}
	if robots != nil && *robots != "" {
		for _, name := range strings.Split(*robots, ",") {
			name = strings.TrimSpace(name)
			if !slices.ContainsFunc(suite, func(r roster.Robot) bool { return r.Name == name }) {
				return fmt.Errorf("-robots: %q is not in the roster's pytest suite", name)
			}
			picked[name] = true
		}
	}
	tc := build.Toolchain{Arch: arch}
	root := filepath.Join("build", "gpu-pytest")
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	script := []string{"#!/usr/bin/env bash",
		"# Written by `go tool mage gpupytestprep`: compiles each robot's CUDA library, all in parallel.",
		"# Run from the repository root on a machine with nvcc and jax; NVCC and GRID_FFI_INCLUDE override.",
		"set -uo pipefail",
		`inc=${GRID_FFI_INCLUDE:-$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())')}`,
		`nvcc=${NVCC:-nvcc}`,
		"status=0", "pids=()"}
	noCUDA := false
	for _, rb := range suite {
		if len(picked) > 0 && !picked[rb.Name] {
			continue
		}
		path, err := rb.Path()
		if err != nil {
			return err
		}
		out := filepath.Join(root, rb.Name)
		floating := rb.Floating
		r, err := buildRobot("", path, &floating, &out, &noCUDA, nil, tier, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", rb.Name, err)
		}
		args := append(tc.CUDAArgs(r.Name, []string{"-I", "kernels", "-I", out, "-isystem", "$inc"}),
			filepath.Join("xla_ffi", "ffi_cuda.cu"))
		if trajectories, err := build.HasTrajectories(out); err != nil {
			return err
		} else if trajectories {
			args = append(args, filepath.Join("xla_ffi", "trajectory_cuda.cu"))
		}
		for i, a := range args {
			if a != "$inc" {
				args[i] = "'" + a + "'"
			} else {
				args[i] = `"$inc"`
			}
		}
		lib := filepath.Join(out, build.CUDALibrary)
		script = append(script, fmt.Sprintf(`( "$nvcc" %s -o %s > %s.log 2>&1 && echo "built %s" || { echo "FAILED %s (see %s.log)"; exit 1; } ) & pids+=($!)`,
			strings.Join(args, " "), lib, lib, lib, lib, lib))
	}
	script = append(script, `for p in "${pids[@]}"; do wait "$p" || status=1; done`, "exit $status")
	if err := os.WriteFile(filepath.Join(root, "build_cuda.sh"), []byte(strings.Join(script, "\n")+"\n"), 0o755); err != nil {
		return err
	}
	return sh.RunV(venvPython(), "tests/python/make_reference.py", filepath.Join(root, "ref"))
}
