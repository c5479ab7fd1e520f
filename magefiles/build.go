//go:build mage

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	ffiDir         = "xla_ffi"
	cpuLibrary     = "libgrid_rbd_cpu.so"
	cudaLibrary    = "libgrid_rbd_cuda.so"
	ffiIncludeEnv  = "GRID_FFI_INCLUDE"
	ffiHeaderProbe = "xla/ffi/api/ffi.h"
)

// cudaGencode lists the GPU targets of the CUDA library: machine code for Ampere (sm_80) and Hopper (sm_90),
// and compute_90 PTX that newer GPUs compile at load time.
var cudaGencode = []string{
	"-gencode", "arch=compute_80,code=sm_80",
	"-gencode", "arch=compute_90,code=sm_90",
	"-gencode", "arch=compute_90,code=compute_90",
}

// Build generates a robot's header and metadata (like Gen), writes its kinematic tree to model.json (like
// `model -json`) and compiles its XLA FFI handler libraries into the same folder: libgrid_rbd_cpu.so
// (handlers grid_<algo>_cpu) and, with -cuda, libgrid_rbd_cuda.so (handlers grid_<algo>_cuda; sm_80, sm_90
// and PTX, or only $GRID_CUDA_ARCH such as sm_90). Flags: -floating adds a free-flyer base; -out=DIR
// overrides build/<urdf stem>; -cuda also builds the CUDA library; -roll=auto|always|never as for Gen. The
// XLA FFI headers come from
// $GRID_FFI_INCLUDE, the oldest supported jaxlib's (.venv/ffi-include) or the jax in .venv
// (`go tool mage venv`); nvcc from $NVCC, PATH or .venv's nvidia-cuda-nvcc wheel; the C++ compiler is $CXX
// or c++.
func Build(urdfPath string, floating *bool, out *string, cuda *bool, roll *string) error {
	start := time.Now()
	// Find the tools first, so a missing one stops the build before anything is written.
	include, err := ffiInclude()
	if err != nil {
		return err
	}
	withCUDA := cuda != nil && *cuda
	nvcc := ""
	if withCUDA {
		if nvcc, err = findNVCC(); err != nil {
			return err
		}
	}
	if err := Gen(urdfPath, floating, out, nil, roll); err != nil {
		return err
	}
	dir := filepath.Join("build", strings.TrimSuffix(filepath.Base(urdfPath), filepath.Ext(urdfPath)))
	if out != nil {
		dir = *out
	}
	robot, err := robotName(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return err
	}
	// The kinematic tree as JSON beside the metadata, for tools that model the robot themselves (the
	// pure-JAX benchmark peer and its oracle test).
	r, err := loadRobot(urdfPath, floating, nil)
	if err != nil {
		return err
	}
	if err := writeModelJSON(r, filepath.Join(dir, "model.json")); err != nil {
		return err
	}
	fmt.Printf("XLA FFI headers: %s (FFI API %s; jaxlib releases with an older API refuse the libraries: "+
		"set %s to the oldest targeted jaxlib's include dir)\n", include, ffiAPIVersion(include), ffiIncludeEnv)
	define := fmt.Sprintf("-DGRID_FFI_ROBOT=%q", robot)
	// XLA's headers are third-party: -isystem keeps their -Wextra warnings out of the build's.
	includes := []string{"-I", "kernels", "-I", dir, "-isystem", include}

	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	cpuArgs := append([]string{"-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
		"-fvisibility-inlines-hidden", "-Wall", "-Wextra", define}, includes...)
	cpuArgs = append(cpuArgs, filepath.Join(ffiDir, "ffi_cpu.cc"))
	// The CPU library compiles while the CUDA one does: each takes minutes for a large robot.
	cpuDone := make(chan error, 1)
	go func() { cpuDone <- compileLibrary(cxx, cpuArgs, filepath.Join(dir, cpuLibrary)) }()
	cudaErr := buildCUDALibrary(withCUDA, nvcc, define, includes, dir)
	if err := <-cpuDone; err != nil {
		return err
	}
	if cudaErr != nil {
		return cudaErr
	}
	fmt.Printf("%s: built in %v\n", dir, time.Since(start).Round(time.Millisecond))
	return nil
}

// buildCUDALibrary compiles the CUDA handler library into dir when withCUDA, and otherwise removes a stale one.
func buildCUDALibrary(withCUDA bool, nvcc, define string, includes []string, dir string) error {
	if withCUDA {
		cudaArgs := cudaCompileArgs(define, includes)
		var link []string
		// The nvidia-cuda-nvcc wheel keeps the static runtime in ../lib, where nvcc does not look by itself.
		if lib := filepath.Join(filepath.Dir(nvcc), "..", "lib"); fileExists(filepath.Join(lib, "libcudart_static.a")) {
			link = append(link, "-L", lib)
		}
		if err := compileCUDALibrary(nvcc, cudaArgs, link, dir, filepath.Join(dir, cudaLibrary)); err != nil {
			return err
		}
	} else if stale := filepath.Join(dir, cudaLibrary); fileExists(stale) {
		// An earlier -cuda build's library may no longer match the header just generated.
		if err := os.Remove(stale); err != nil {
			return err
		}
		fmt.Printf("removed %s from an earlier build (no -cuda this time)\n", stale)
	}
	return nil
}

// cudaCompileArgs are nvcc's options for the CUDA library of a robot (all but the sources and the output):
// sm_80, sm_90 and PTX, or only $GRID_CUDA_ARCH.
func cudaCompileArgs(define string, includes []string) []string {
	args := []string{"-O2", "-std=c++17", "-shared", "-Xcompiler",
		"-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden,-Wall,-Wextra", "--threads", "0"}
	if arch := os.Getenv("GRID_CUDA_ARCH"); arch != "" {
		// One architecture only (e.g. sm_90): quicker builds for a known GPU.
		args = append(args, "-arch="+arch)
	} else {
		args = append(args, cudaGencode...)
	}
	args = append(args, "-cudart", "static", define)
	return append(args, includes...)
}

// compileLibrary runs one compiler command that writes lib. It writes to a temporary name first and renames
// on success, so a failed build leaves no truncated library and a process that has the old one loaded keeps
// a valid file.
func compileLibrary(compiler string, args []string, lib string) error {
	tmp := lib + ".tmp"
	args = append(args, "-o", tmp)
	fmt.Printf("== %s\n%s %s\n", filepath.Base(lib), compiler, strings.Join(args, " "))
	start := time.Now()
	cmd := exec.Command(compiler, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compiling %s with %s: %w", lib, compiler, err)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return err
	}
	fmt.Printf("%s in %v\n", lib, time.Since(start).Round(time.Millisecond))
	return nil
}

// robotName reads the robot's name from its metadata, for the libraries' error messages.
func robotName(metadataPath string) (string, error) {
	data, err := os.ReadFile(metadataPath)
	if err != nil {
		return "", err
	}
	var meta struct {
		Robot string `json:"robot"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("%s: %v", metadataPath, err)
	}
	return meta.Robot, nil
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
