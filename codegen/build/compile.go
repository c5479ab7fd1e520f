package build

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// Toolchain names the compilers and headers of a library build.
type Toolchain struct {
	// CXX is the host C++ compiler ("c++" when empty).
	CXX string
	// NVCC is the CUDA compiler; needed only for the CUDA library.
	NVCC string
	// FFIInclude holds xla/ffi/api/ffi.h.
	FFIInclude string
	// Arch, when set (e.g. "sm_90"), is the only GPU target; otherwise sm_80, sm_90 and compute_90 PTX.
	Arch string
	// Jobs caps the parallel CUDA compiles (default: the CPUs).
	Jobs int
	// Root is the repository root (kernels/ and xla_ffi/); "" means the working directory.
	Root string
}

// cudaGencode lists the GPU targets of the CUDA library: machine code for Ampere (sm_80) and Hopper (sm_90),
// and compute_90 PTX that newer GPUs compile at load time.
var cudaGencode = []string{
	"-gencode", "arch=compute_80,code=sm_80",
	"-gencode", "arch=compute_90,code=sm_90",
	"-gencode", "arch=compute_90,code=compute_90",
}

func (tc Toolchain) path(rel string) string { return filepath.Join(tc.Root, rel) }

// define names the robot in the libraries' error messages.
func define(robot string) string { return fmt.Sprintf("-DGRID_FFI_ROBOT=%q", robot) }

// includes are the header folders of a robot built in dir; XLA's headers are third-party, so -isystem keeps
// their -Wextra warnings out of the build's.
func (tc Toolchain) includes(dir string) []string {
	return []string{"-I", tc.path("kernels"), "-I", dir, "-isystem", tc.FFIInclude}
}

// CompileCPU compiles the host handler library of the robot built in dir (handlers grid_<algo>_cpu).
func (tc Toolchain) CompileCPU(dir, robot string) error {
	cxx := tc.CXX
	if cxx == "" {
		cxx = "c++"
	}
	args := append([]string{"-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
		"-fvisibility-inlines-hidden", "-Wall", "-Wextra", define(robot)}, tc.includes(dir)...)
	args = append(args, tc.path(filepath.Join("xla_ffi", "ffi_cpu.cc")))
	trajectories, err := HasTrajectories(dir)
	if err != nil {
		return err
	}
	if trajectories {
		args = append(args, tc.path(filepath.Join("xla_ffi", "trajectory_cpu.cc")))
	}
	ik, err := HasIK(dir)
	if err != nil {
		return err
	}
	if !ik {
		return compileLibrary(cxx, args, filepath.Join(dir, CPULibrary))
	}
	// The inverse-kinematics library is a unit of its own, compiled beside the handlers.
	ikDone := make(chan error, 1)
	go func() { ikDone <- tc.CompileIK(dir) }()
	err = compileLibrary(cxx, args, filepath.Join(dir, CPULibrary))
	if ikErr := <-ikDone; err == nil {
		err = ikErr
	}
	return err
}

// IKLibrary is the host inverse-kinematics library of a robot (xla_ffi/ik_cpu.cc, a C ABI that
// grid_rbd.ik calls through ctypes).
const IKLibrary = "libgrid_rbd_ik_cpu.so"

// HasIK reports whether the robot built in dir gets the inverse-kinematics library: the solver
// (kernels/grid/algorithms/ik.cuh) needs an unrolled description and chains of revolute and prismatic joints,
// so rolled and floating-base robots have none yet.
func HasIK(dir string) (bool, error) {
	raw, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		return false, err
	}
	var m struct {
		Rolled   bool `json:"rolled"`
		Floating bool `json:"floating_base"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Join(dir, MetadataFile), err)
	}
	return !m.Rolled && !m.Floating, nil
}

// CompileIK compiles the inverse-kinematics library of the robot built in dir (IKLibrary). It needs no XLA
// headers.
func (tc Toolchain) CompileIK(dir string) error {
	cxx := tc.CXX
	if cxx == "" {
		cxx = "c++"
	}
	args := []string{"-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
		"-Wall", "-Wextra", "-I", tc.path("kernels"), "-I", dir, tc.path(filepath.Join("xla_ffi", "ik_cpu.cc"))}
	return compileLibrary(cxx, args, filepath.Join(dir, IKLibrary))
}

// HasTrajectories reports whether the metadata of the robot built in dir lists the fused rollout kernels
// (xla_ffi/trajectory.h), which its libraries then export.
func HasTrajectories(dir string) (bool, error) {
	raw, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		return false, err
	}
	var m struct {
		Trajectories []string `json:"trajectories"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Join(dir, MetadataFile), err)
	}
	return len(m.Trajectories) > 0, nil
}

// CUDAArgs are nvcc's options for a robot's CUDA library (all but the sources and the output), with the
// given include folders.
func (tc Toolchain) CUDAArgs(robot string, includes []string) []string {
	args := []string{"-O2", "-std=c++17", "-shared", "-Xcompiler",
		"-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden,-Wall,-Wextra", "--threads", "0"}
	if tc.Arch != "" {
		args = append(args, "-arch="+tc.Arch)
	} else {
		args = append(args, cudaGencode...)
	}
	args = append(args, "-cudart", "static", define(robot))
	return append(args, includes...)
}

// entryGuard finds the entry points of a generated grid.cuh by their separate-build guards.
var entryGuard = regexp.MustCompile(`defined\(GRID_SEPARATE_ENTRIES\) && defined\(GRID_ENTRY_([A-Z0-9_]+)\)`)

// precisions are the unit suffixes and defines of one entry point's two translation units.
var precisions = []struct{ suffix, define string }{{"float", "GRID_ENTRY_ONLY_FLOAT"}, {"double", "GRID_ENTRY_ONLY_DOUBLE"}}

// CompileCUDA builds the CUDA handler library of the robot built in dir (handlers grid_<algo>_cuda) from
// two translation units per entry point (float and double) plus the handlers (xla_ffi/ffi_cuda.cu),
// compiled in parallel and linked: the kernels of one entry point take a large robot's compiler minutes,
// and one unit would compile them one after another. The objects stay in DIR/cuda_objects for inspection.
func (tc Toolchain) CompileCUDA(dir, robot string) error {
	start := time.Now()
	lib := filepath.Join(dir, CUDALibrary)
	args := tc.CUDAArgs(robot, tc.includes(dir))
	header, err := os.ReadFile(filepath.Join(dir, HeaderFile))
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range entryGuard.FindAllStringSubmatch(string(header), -1) {
		seen[m[1]] = true
	}
	var entries []string
	for e := range seen {
		entries = append(entries, e)
	}
	sort.Strings(entries)
	objDir := filepath.Join(dir, "cuda_objects")
	if err := os.RemoveAll(objDir); err != nil {
		return err
	}
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return err
	}
	type unit struct{ src, obj string }
	units := []unit{{tc.path(filepath.Join("xla_ffi", "ffi_cuda.cu")), filepath.Join(objDir, "handlers.o")}}
	trajectories, err := HasTrajectories(dir)
	if err != nil {
		return err
	}
	if trajectories {
		units = append(units, unit{tc.path(filepath.Join("xla_ffi", "trajectory_cuda.cu")), filepath.Join(objDir, "trajectory.o")})
	}
	for _, e := range entries {
		for _, p := range precisions {
			src := filepath.Join(objDir, strings.ToLower(e)+"."+p.suffix+".cu")
			text := "#define GRID_ENTRY_" + e + "\n#define " + p.define + "\n#include \"grid.cuh\"\n"
			if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
				return err
			}
			units = append(units, unit{src, strings.TrimSuffix(src, ".cu") + ".o"})
		}
	}
	compile := make([]string, 0, len(args)+1)
	for _, a := range args {
		if a != "-shared" { // objects first, the library at the link
			compile = append(compile, a)
		}
	}
	compile = append(compile, "-DGRID_SEPARATE_ENTRIES", "-c")
	jobs := tc.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	fmt.Printf("== %s: %d translation units, %d at a time\n%s %s <unit> -o <unit>.o\n", filepath.Base(lib), len(units), jobs,
		tc.NVCC, strings.Join(compile, " "))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for _, u := range units {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t := time.Now()
			out, err := exec.Command(tc.NVCC, append(append([]string{}, compile...), u.src, "-o", u.obj)...).CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v\n%s", u.src, err, out))
				return
			}
			if len(out) > 0 {
				os.Stdout.Write(out)
			}
			fmt.Printf("  %s in %v\n", filepath.Base(u.obj), time.Since(t).Round(time.Second))
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("compiling %s with %s:\n%s", lib, tc.NVCC, strings.Join(failed, "\n"))
	}
	linkArgs := []string{"-shared", "-cudart", "static"}
	for i := 0; i < len(args); i++ { // the targets, so that nvcc links the device code of each
		if args[i] == "-gencode" && i+1 < len(args) {
			linkArgs = append(linkArgs, args[i], args[i+1])
			i++
		} else if strings.HasPrefix(args[i], "-arch=") {
			linkArgs = append(linkArgs, args[i])
		}
	}
	// The nvidia-cuda-nvcc wheel keeps the static runtime in ../lib, where nvcc does not look by itself.
	if libDir := filepath.Join(filepath.Dir(tc.NVCC), "..", "lib"); fileExists(filepath.Join(libDir, "libcudart_static.a")) {
		linkArgs = append(linkArgs, "-L", libDir)
	}
	for _, u := range units {
		linkArgs = append(linkArgs, u.obj)
	}
	if err := compileLibrary(tc.NVCC, linkArgs, lib); err != nil {
		return err
	}
	fmt.Printf("%s: compiled and linked in %v\n", lib, time.Since(start).Round(time.Second))
	return nil
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

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
