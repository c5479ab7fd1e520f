// Command grid-rbd-build generates a robot's kernels from its URDF and compiles their CPU library into one
// folder (grid.cuh, metadata.json, grid_ffi.h, model.json, libgrid_rbd_cpu.so), as `go tool mage build`
// does, for machines without Go: the Python package runs it for JaxRobotHandle.from_urdf and
// `python -m grid_rbd build`.
//
//	grid-rbd-build -out DIR -src ROOT -ffi-include DIR [-floating] [-roll=auto|always|never] [-cxx CXX] [-jobs N] [-defer]
//	               [-cuda-runtime-include DIR -cuda-runtime-library FILE] URDF
//	grid-rbd-build -finish DIR -src ROOT -ffi-include DIR [-cxx CXX] [-jobs N] [LIBRARY...]
//
// ROOT holds kernels/ and xla_ffi/; -ffi-include the folder with xla/ffi/api/ffi.h (jax.ffi.include_dir()).
// With -defer, libgrid_rbd_cpu.so holds the entry points a first call needs and the others are left to
// deferred libraries, listed in DIR/cpu_libraries.json (build.CompileCPUCore); -finish compiles a folder's
// deferred libraries that are missing, the named ones or all, waiting for another process that compiles them
// (build.CompileCPUDeferred). With the CUDA runtime's include folder and shared library it also compiles the
// CUDA handler library of kernels compiled at run time (build.CompileCUDARTC), whose kernels NVRTC compiles on
// each entry point's first call.
// Exit status 2: the URDF or the flags are invalid (the message names the element and line); 1: anything
// else, such as a compiler error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
)

// inputError marks errors of the caller's input, the URDF and the flags: exit status 2.
type inputError struct{ error }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.As(err, new(inputError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("grid-rbd-build", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write (created)")
	src := fs.String("src", "", "folder holding kernels/ and xla_ffi/")
	ffiInclude := fs.String("ffi-include", "", "folder holding xla/ffi/api/ffi.h")
	floating := fs.Bool("floating", false, "add a free-flyer base")
	roll := fs.String("roll", "auto", "unrolled or rolled robot description: auto, always or never")
	cxx := fs.String("cxx", "", "C++17 compiler (default c++)")
	jobs := fs.Int("jobs", 0, "compilers run at once (default: the CPUs; 1 compiles one translation unit per library)")
	deferred := fs.Bool("defer", false, "compile only the entry points a first call needs; -finish compiles the others")
	finish := fs.String("finish", "", "compile the deferred libraries of this build folder (the named ones, or all)")
	cudaInclude := fs.String("cuda-runtime-include", "", "the CUDA runtime's headers (cuda_runtime_api.h): also build "+build.CUDARTCLibrary)
	cudaLibrary := fs.String("cuda-runtime-library", "", "the CUDA runtime's shared library (libcudart.so.13), with -cuda-runtime-include")
	if err := fs.Parse(args); err != nil {
		return inputError{err}
	}
	if *src == "" || *ffiInclude == "" || (*finish == "") == (*out == "") || (*finish == "" && fs.NArg() != 1) {
		return inputError{errors.New("usage: grid-rbd-build -out DIR -src ROOT -ffi-include DIR [-floating] [-roll=MODE] [-defer] URDF\n" +
			"       grid-rbd-build -finish DIR -src ROOT -ffi-include DIR [LIBRARY...]")}
	}
	if (*cudaInclude == "") != (*cudaLibrary == "") {
		return inputError{errors.New("-cuda-runtime-include and -cuda-runtime-library go together")}
	}
	tc := build.Toolchain{CXX: *cxx, FFIInclude: *ffiInclude, Root: *src, Jobs: *jobs}
	tc.CUDARuntime.Include, tc.CUDARuntime.Library = *cudaInclude, *cudaLibrary
	if *finish != "" {
		return tc.CompileCPUDeferred(*finish, fs.Args())
	}
	mode, err := emit.ParseRoll(*roll)
	if err != nil {
		return inputError{err}
	}
	start := time.Now()
	r, err := model.Load(fs.Arg(0), urdf.Options{}, model.Options{FreeFlyer: *floating})
	if err != nil {
		return inputError{err}
	}
	if _, err := build.Generate(r, *out, emit.Options{Roll: mode}); err != nil {
		return err
	}
	// grid_rbd starts compiling a first call's GPU kernels (NVRTC) on this line, beside the compiles below
	fmt.Printf("%s: generated %s\n", r.Name, *out)
	compile := tc.CompileCPU
	if *deferred {
		compile = tc.CompileCPUCore
	}
	// the CUDA handler library compiles beside the CPU library: a first call on the GPU waits for both
	cudaDone := make(chan error, 1)
	go func() {
		if *cudaInclude == "" {
			cudaDone <- nil
			return
		}
		cudaDone <- tc.CompileCUDARTC(*out, r.Name)
	}()
	if err := errors.Join(compile(*out, r.Name), <-cudaDone); err != nil {
		return err
	}
	fmt.Printf("%s: built %s in %v\n", r.Name, *out, time.Since(start).Round(time.Millisecond))
	return nil
}
