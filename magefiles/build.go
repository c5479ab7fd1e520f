//go:build mage

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/model"
)

const (
	ffiIncludeEnv  = "GRID_FFI_INCLUDE"
	ffiHeaderProbe = "xla/ffi/api/ffi.h"
)

// Build generates a robot's header and metadata (like Gen), writes its kinematic tree to model.json (like
// `model -json`) and compiles its XLA FFI handler libraries into the same folder: libgrid_rbd_cpu.so
// (handlers grid_<algo>_cpu) and, with -cuda, libgrid_rbd_cuda.so (handlers grid_<algo>_cuda; sm_80, sm_90
// and PTX, or only $GRID_CUDA_ARCH such as sm_90), all through codegen/build, from one parse of the URDF.
// Flags: -floating adds a free-flyer base; -out=DIR overrides build/<urdf stem>; -cuda also builds the CUDA
// library; -roll=auto|always|never and -tier=shared|lite|minimal as for Gen. The XLA FFI headers come from $GRID_FFI_INCLUDE, the oldest
// supported jaxlib's (.venv/ffi-include) or the jax in .venv (`go tool mage venv`); nvcc from $NVCC, PATH or
// .venv's nvidia-cuda-nvcc wheel; the C++ compiler is $CXX or c++; $GRID_BUILD_JOBS caps the compilers each
// library runs at once (default the CPUs; 1 compiles the CPU library as one unit, the least work in total);
// $GRID_CUDA_ENTRIES=aba,forward_dynamics,... compiles only those entry points into the CUDA library (the
// others' calls fail with an error saying so; the fused rollouts need none), for a large robot's quick build.
// -collision adds the covering spheres of the URDF's collision shapes, which the inverse-kinematics library
// then scores its solutions against (docs/ik.md).
func Build(urdfPath string, floating *bool, out *string, cuda *bool, roll, tier *string, collision *bool) error {
	_, err := buildRobot("", urdfPath, floating, out, cuda, roll, tier, collision)
	return err
}

// buildRobot is Build with the C++ compiler command cxx ("": $CXX, else c++), returning the robot it built.
func buildRobot(cxx, urdfPath string, floating *bool, out *string, cuda *bool, roll, tier *string, collision *bool) (*model.Robot, error) {
	start := time.Now()
	// Find the tools first, so a missing one stops the build before anything is written.
	tc, err := toolchain(cuda != nil && *cuda)
	if err != nil {
		return nil, err
	}
	if cxx != "" {
		tc.CXX = cxx
	}
	r, dir, err := generate(urdfPath, floating, out, nil, roll, tier, collision)
	if err != nil {
		return nil, err
	}
	fmt.Printf("XLA FFI headers: %s (FFI API %s; jaxlib releases with an older API refuse the libraries: "+
		"set %s to the oldest targeted jaxlib's include dir)\n", tc.FFIInclude, ffiAPIVersion(tc.FFIInclude), ffiIncludeEnv)
	// The CPU library compiles while the CUDA one does: each takes minutes for a large robot. The inverse-
	// kinematics library of an unrolled robot follows the CPU library (run-time builds leave it out).
	cpuDone := make(chan error, 1)
	go func() {
		if err := tc.CompileCPU(dir, r.Name); err != nil {
			cpuDone <- err
			return
		}
		ik, err := build.HasIK(dir)
		if err == nil && ik {
			err = tc.CompileIK(dir)
		}
		cpuDone <- err
	}()
	var cudaErr error
	if tc.NVCC != "" {
		cudaErr = tc.CompileCUDA(dir, r.Name)
		if cudaErr == nil {
			var ik bool
			if ik, cudaErr = build.HasIK(dir); cudaErr == nil && ik {
				cudaErr = tc.CompileIKCUDA(dir, r.Name)
			}
		}
	} else {
		// An earlier -cuda build's libraries may no longer match the header just generated.
		for _, lib := range []string{build.CUDALibrary, build.IKCUDALibrary} {
			if stale := filepath.Join(dir, lib); fileExists(stale) && cudaErr == nil {
				if cudaErr = os.Remove(stale); cudaErr == nil {
					fmt.Printf("removed %s from an earlier build (no -cuda this time)\n", stale)
				}
			}
		}
	}
	if err := <-cpuDone; err != nil {
		return nil, err
	}
	if cudaErr != nil {
		return nil, cudaErr
	}
	fmt.Printf("%s: built in %v\n", dir, time.Since(start).Round(time.Millisecond))
	return r, nil
}

// toolchain finds the compilers and the XLA FFI headers of a library build (nvcc only withCUDA).
func toolchain(withCUDA bool) (build.Toolchain, error) {
	include, err := ffiInclude()
	if err != nil {
		return build.Toolchain{}, err
	}
	tc := build.Toolchain{CXX: os.Getenv("CXX"), FFIInclude: include, Arch: os.Getenv("GRID_CUDA_ARCH")}
	if n, err := strconv.Atoi(os.Getenv("GRID_BUILD_JOBS")); err == nil && n > 0 {
		tc.Jobs = n
	}
	if entries := os.Getenv("GRID_CUDA_ENTRIES"); entries != "" {
		tc.CUDAEntries = strings.Split(entries, ",")
	}
	if withCUDA {
		if tc.NVCC, err = findNVCC(); err != nil {
			return build.Toolchain{}, err
		}
	}
	return tc, nil
}

// ffiInclude finds the folder holding xla/ffi/api/ffi.h: $GRID_FFI_INCLUDE, else the headers of the oldest
// supported jaxlib that `go tool mage venv` extracts into .venv/ffi-include, else jax.ffi.include_dir() of
// the jax in .venv.
func ffiInclude() (string, error) {
	if dir := os.Getenv(ffiIncludeEnv); dir != "" {
		if !fileExists(filepath.Join(dir, ffiHeaderProbe)) {
			return "", fmt.Errorf("%s=%s holds no %s", ffiIncludeEnv, dir, ffiHeaderProbe)
		}
		return dir, nil
	}
	if fileExists(filepath.Join(ffiIncludeDir, ffiHeaderProbe)) {
		return ffiIncludeDir, nil
	}
	py := venvPython()
	if !fileExists(py) {
		return "", fmt.Errorf("no %s: run `go tool mage venv` to create it with jax (whose XLA FFI headers the "+
			"handlers need), or set %s to a folder holding %s", py, ffiIncludeEnv, ffiHeaderProbe)
	}
	outBytes, err := exec.Command(py, "-c", "import jax.ffi; print(jax.ffi.include_dir())").Output()
	if err != nil {
		var exit *exec.ExitError
		detail := err.Error()
		if errors.As(err, &exit) && len(exit.Stderr) > 0 {
			detail = strings.TrimSpace(string(exit.Stderr))
		}
		return "", fmt.Errorf("%s cannot report jax's XLA FFI headers (%s): run `go tool mage venv`, or set %s",
			py, detail, ffiIncludeEnv)
	}
	dir := strings.TrimSpace(string(outBytes))
	if !fileExists(filepath.Join(dir, ffiHeaderProbe)) {
		return "", fmt.Errorf("jax in %s reports include dir %s, which holds no %s: run `go tool mage venv`, or set %s",
			venvDir, dir, ffiHeaderProbe, ffiIncludeEnv)
	}
	return dir, nil
}

// ffiAPIVersion reads the XLA FFI API version (major.minor) the headers in include declare. A handler
// reports it when registered, and XLA accepts handlers up to its own version only: a library built against
// newer headers than the jaxlib that loads it fails to register, one built against older headers loads.
func ffiAPIVersion(include string) string {
	data, err := os.ReadFile(filepath.Join(include, "xla", "ffi", "api", "c_api.h"))
	if err != nil {
		return "unknown"
	}
	major := regexp.MustCompile(`(?m)^#define XLA_FFI_API_MAJOR (\d+)`).FindSubmatch(data)
	minor := regexp.MustCompile(`(?m)^#define XLA_FFI_API_MINOR (\d+)`).FindSubmatch(data)
	if major == nil || minor == nil {
		return "unknown"
	}
	return string(major[1]) + "." + string(minor[1])
}

// findNVCC returns the CUDA compiler: $NVCC, nvcc on PATH, or the nvidia-cuda-nvcc wheel's in .venv.
func findNVCC() (string, error) {
	if p := os.Getenv("NVCC"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(venvDir, "lib", "python3*", "site-packages", "nvidia", "cu13", "bin", "nvcc"))
	if len(matches) == 0 {
		return "", errors.New("no CUDA compiler: set NVCC, put nvcc on PATH, or run `go tool mage venv` " +
			"(installs the nvidia-cuda-nvcc wheel)")
	}
	return matches[0], nil
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
