//go:build mage

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/build"
)

// IKBench solves a goal file's targets with the inverse-kinematics solver (grid_rbd.ik through bench/ik.py),
// on the GPU when there is one and on the CPU otherwise, and prints the error distribution, the distinct solutions per goal and the time per goal; the
// last line reads `solved S/N within 1 mm and 1 deg`. It generates the robot into build/ik/<urdf stem> and
// compiles only its IK libraries (xla_ffi/ik_cpu.cc, and xla_ffi/ik_cuda.cu where it runs on the GPU), not
// the dynamics libraries. -device=auto|cpu|gpu picks where (auto: the GPU when nvidia-smi lists one and nvcc
// is found). Flags: -robot=URDF and
// -goals=FILE (YAML: `goals:` of position [m, base frame] and quaternion [xyzw], optionally `frame:`) are
// required; -frame=LINK (default: the goal file's frame, else the last joint's link); -batch=N restarts per
// goal (64); -solutions=N per goal (4); -seed=N (0); -limit=N solves only the first N goals. -collision
// generates the robot's collision spheres and scores the solutions against them and the obstacles of
// -obstacles=FILE (YAML `obstacles:` of spheres, cuboids and cylinders; default: the goal file's
// `obstacles:`, else none) with -collisionmode=hard|soft|both (default hard; docs/ik.md). Python as for Bench
// ($GRID_PYTHON, .venv or python3).
func IKBench(robot, goals, frame *string, batch, solutions, seed, limit *int, collision *bool, collisionMode, obstacles, device *string) error {
	if robot == nil || *robot == "" || goals == nil || *goals == "" {
		return errors.New("ikbench: -robot=URDF and -goals=FILE are required")
	}
	if !fileExists(*goals) {
		return fmt.Errorf("ikbench: no goal file %s", *goals)
	}
	out := filepath.Join("build", "ik", strings.TrimSuffix(filepath.Base(*robot), filepath.Ext(*robot)))
	withCollision := collision != nil && *collision
	if !withCollision && (collisionMode != nil || obstacles != nil) {
		return errors.New("ikbench: -collisionmode and -obstacles need -collision")
	}
	if _, dir, err := generate(*robot, nil, &out, nil, nil, nil, collision); err != nil {
		return err
	} else if ok, err := build.HasIK(dir); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("ikbench: %s is generated rolled; the IK solver needs an unrolled robot description", *robot)
	}
	where, err := ikDevice(device)
	if err != nil {
		return err
	}
	tc := build.Toolchain{CXX: os.Getenv("CXX"), Arch: os.Getenv("GRID_CUDA_ARCH")}
	if err := tc.CompileIK(out); err != nil {
		return err
	}
	if where == "gpu" {
		if tc.NVCC, err = findNVCC(); err != nil {
			return err
		}
		if err := tc.CompileIKCUDA(out, strings.TrimSuffix(filepath.Base(*robot), filepath.Ext(*robot))); err != nil {
			return err
		}
	} else if err := os.RemoveAll(filepath.Join(out, build.IKCUDALibrary)); err != nil {
		return err
	}
	args := []string{"-m", "bench.ik", out, *goals, "--device", where}
	if frame != nil && *frame != "" {
		args = append(args, "--frame", *frame)
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{{"--batch", batch}, {"--num-solutions", solutions}, {"--seed", seed}, {"--limit", limit}} {
		if f.v != nil {
			args = append(args, f.flag, strconv.Itoa(*f.v))
		}
	}
	if withCollision {
		args = append(args, "--collision")
		if collisionMode != nil {
			args = append(args, "--collision-mode", *collisionMode)
		}
		if obstacles != nil {
			args = append(args, "--obstacles", *obstacles)
		}
	}
	cmd := exec.Command(benchPython(), args...)
	cmd.Env = benchEnv()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("%s %s\n", benchPython(), strings.Join(args, " "))
	return cmd.Run()
}

// ikDevice resolves ikbench's -device flag to "cpu" or "gpu": auto is the GPU when nvidia-smi lists one and a
// CUDA compiler is found.
func ikDevice(device *string) (string, error) {
	d := "auto"
	if device != nil && *device != "" {
		d = *device
	}
	switch d {
	case "cpu", "gpu":
		return d, nil
	case "auto":
		if out, err := exec.Command("nvidia-smi", "-L").Output(); err != nil || !strings.Contains(string(out), "GPU") {
			return "cpu", nil
		}
		if _, err := findNVCC(); err != nil {
			fmt.Printf("ikbench: a GPU is present but no CUDA compiler (%v); solving on the CPU\n", err)
			return "cpu", nil
		}
		return "gpu", nil
	}
	return "", fmt.Errorf("ikbench: -device=%s; want auto, cpu or gpu", d)
}
