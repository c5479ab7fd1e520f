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

// IKBench solves a goal file's targets with the inverse-kinematics solver on the CPU (grid_rbd.ik through
// bench/ik.py) and prints the error distribution, the distinct solutions per goal and the time per goal; the
// last line reads `solved S/N within 1 mm and 1 deg`. It generates the robot into build/ik/<urdf stem> and
// compiles only its IK library (xla_ffi/ik_cpu.cc), not the dynamics libraries. Flags: -robot=URDF and
// -goals=FILE (YAML: `goals:` of position [m, base frame] and quaternion [xyzw], optionally `frame:`) are
// required; -frame=LINK (default: the goal file's frame, else the last joint's link); -batch=N restarts per
// goal (64); -solutions=N per goal (4); -seed=N (0); -limit=N solves only the first N goals. -collision
// generates the robot's collision spheres and scores the solutions against them and the obstacles of
// -obstacles=FILE (YAML `obstacles:` of spheres, cuboids and cylinders; default: the goal file's
// `obstacles:`, else none) with -collisionmode=hard|soft|both (default hard; docs/ik.md). Python as for Bench
// ($GRID_PYTHON, .venv or python3).
func IKBench(robot, goals, frame *string, batch, solutions, seed, limit *int, collision *bool, collisionMode, obstacles *string) error {
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
		return fmt.Errorf("ikbench: %s is rolled or has a floating base; the IK solver needs an unrolled fixed-base robot", *robot)
	}
	tc := build.Toolchain{CXX: os.Getenv("CXX")}
	if err := tc.CompileIK(out); err != nil {
		return err
	}
	args := []string{"-m", "bench.ik", out, *goals}
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
