//go:build mage

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
)

// RTC compiles the CUDA handler library of kernels compiled at run time (libgrid_rbd_cuda_rtc.so,
// xla_ffi/ffi_cuda_rtc.cc) into a robot's build folder made by Build: the launch code and handlers by the
// host C++ compiler ($CXX or c++), no nvcc and no kernels. On a GPU machine grid_rbd uses it where the folder
// has no nvcc-built libgrid_rbd_cuda.so, compiling each entry point's kernels with NVRTC on its first call
// (docs/runtime-builds.md). The CUDA runtime's headers and library come from $GRID_CUDA_RUNTIME (a folder with
// include/ and lib64/ or lib/), else nvcc's toolkit, else .venv's nvidia-cuda-runtime wheel; the XLA FFI
// headers as for Build.
func RTC(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, build.MetadataFile))
	if err != nil {
		return fmt.Errorf("rtc: %s is not a build folder (go tool mage build URDF -out=%s first): %w", dir, dir, err)
	}
	md, err := emit.ParseMetadata(data)
	if err != nil {
		return fmt.Errorf("rtc: %s: %w", filepath.Join(dir, build.MetadataFile), err)
	}
	robot := md.Robot
	include, err := ffiInclude()
	if err != nil {
		return err
	}
	tc := build.Toolchain{CXX: os.Getenv("CXX"), FFIInclude: include}
	if tc.CUDARuntime.Include, tc.CUDARuntime.Library, err = cudaRuntime(); err != nil {
		return err
	}
	return tc.CompileCUDARTC(dir, robot)
}

// cudaRuntime finds the CUDA runtime's include folder and shared library (see RTC).
func cudaRuntime() (include, library string, err error) {
	var roots []string
	if root := os.Getenv("GRID_CUDA_RUNTIME"); root != "" {
		roots = append(roots, root)
	}
	if nvcc, err := findNVCC(); err == nil {
		roots = append(roots, filepath.Dir(filepath.Dir(nvcc)))
	}
	wheels, _ := filepath.Glob(filepath.Join(venvDir, "lib", "python3*", "site-packages", "nvidia", "cu13"))
	roots = append(roots, wheels...)
	for _, root := range roots {
		if include, library, ok := cudatools.RuntimeIn(root); ok {
			return include, library, nil
		}
	}
	return "", "", errors.New("rtc: no CUDA runtime (include/cuda_runtime_api.h, include/crt/host_defines.h and libcudart.so): set GRID_CUDA_RUNTIME, " +
		"put nvcc on PATH, or run `go tool mage venv` (installs the nvidia-cuda-runtime wheel)")
}
