//go:build mage

package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
	"github.com/grid-rbd/grid-rbd/internal/wheel"
)

// Wheel builds dist/grid_rbd_cuda-<version>-py3-none-<platform>.whl (with -nocuda
// dist/grid_rbd-<version>-...): the Python package and, for every robot in
// python/grid_rbd/robots/bundled.json (wheel.ReadBundled), its metadata with CPU and CUDA (sm_80, sm_90 and PTX)
// libraries (with -nocuda: CPU libraries, and the CUDA handler library of run-time kernels with the static
// runtime linked in and the header NVRTC compiles them from, rtcToolchain), the
// generator run-time builds use (grid_rbd/_bin) and the kernel sources (grid_rbd/_src); the metadata comes
// from pyproject.toml and README.md (docs/packaging.md).
// The platform tag is manylinux_2_28_x86_64 where an ELF check of its binaries allows it (wheel.CheckManylinux228),
// else linux_x86_64, saying why: the bundled CPU libraries compile with manylinuxCXX for that, the CUDA
// libraries with nvcc and the system's C++ runtime (a CUDA wheel gets the tag only from a manylinux_2_28 image). Flags: -nocuda builds a
// CPU-only wheel; -out=DIR writes it there instead of dist/; -bundle=a,b bundles only those of bundled.json's
// robots (a test's quicker wheel; a release bundles them all).
func Wheel(nocuda *bool, out, bundle *string) error {
	start := time.Now()
	robots, err := wheel.ReadBundled("")
	if err != nil {
		return err
	}
	if bundle != nil && *bundle != "" {
		if robots, err = wheel.SelectBundled(robots, strings.Split(*bundle, ",")); err != nil {
			return err
		}
	}
	project, err := readProject()
	if err != nil {
		return err
	}
	cuda := nocuda == nil || !*nocuda
	cxx := manylinuxCXX()
	// the CPU wheel's robots run on a GPU through NVRTC: their handler library of run-time kernels with the
	// static CUDA runtime linked in, and their header for NVRTC
	var rtc build.Toolchain
	if !cuda {
		if rtc, err = rtcToolchain(cxx); err != nil {
			fmt.Printf("wheel: the bundled robots get no CUDA handlers of run-time kernels: %v\n", err)
		}
	}
	var files []wheel.File
	for _, rb := range robots {
		dir := filepath.Join("build", "wheel", rb.Name)
		floating := rb.Floating
		r, err := buildRobot(cxx, rb.URDF, &floating, &dir, &cuda, nil, nil, nil)
		if err != nil {
			return fmt.Errorf("robot %s: %w", rb.Name, err)
		}
		libs := []string{"metadata.json", "libgrid_rbd_cpu.so"}
		if cuda {
			libs = append(libs, "libgrid_rbd_cuda.so")
		}
		if rtc.CUDARuntime.Library != "" {
			if err := rtc.CompileCUDARTC(dir, r.Name); err != nil {
				return fmt.Errorf("robot %s: %w", rb.Name, err)
			}
			libs = append(libs, build.HeaderFile, build.CUDARTCLibrary)
		}
		for _, name := range libs {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			files = append(files, wheel.File{Path: "grid_rbd/_robots/" + rb.Name + "/" + name, Data: data,
				Executable: strings.HasSuffix(name, ".so")})
		}
	}
	runtime, err := runtimeBuildFiles()
	if err != nil {
		return err
	}
	files = append(files, runtime...)
	err = filepath.WalkDir(filepath.Join("python", "grid_rbd"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" || d.Name() == "_robots" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel("python", path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, wheel.File{Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		return err
	}
	// manylinux_2_28 where every ELF file needs nothing newer than that policy allows (a build on an old
	// enough toolchain), the plain linux tag otherwise, saying why
	tag := "py3-none-" + wheel.Manylinux228
	if err := wheel.CheckManylinux228(files); err != nil {
		tag = "py3-none-linux_x86_64"
		fmt.Printf("tagged linux_x86_64: %v\n", err)
	}
	dist := "dist"
	if out != nil && *out != "" {
		dist = *out
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	path, err := wheel.Write(dist, wheel.Spec{
		Name: wheelName(project.Name, cuda), Version: project.Version, Tag: tag,
		Summary: project.Description, License: projectLicense, RequiresPython: project.RequiresPython,
		Requires: project.Dependencies, Extras: project.Extras, Keywords: project.Keywords,
		Classifiers: project.Classifiers, URLs: project.URLs, Description: string(readme), Files: files,
	})
	if err != nil {
		return err
	}
	libraries := "CPU libraries"
	switch {
	case cuda:
		libraries = "CPU and nvcc-built CUDA libraries"
	case rtc.CUDARuntime.Library != "":
		libraries = "CPU libraries, CUDA through NVRTC"
	}
	fmt.Printf("wrote %s (%d robots: %s) in %v\n", path, len(robots), libraries, time.Since(start).Round(time.Second))
	return nil
}

// rtcToolchain is the toolchain of the CPU wheel's CUDA handler libraries of run-time kernels: the wheel's
// compiler (cxx, "" for the default) against the headers and the static runtime of .venv's nvidia-cuda-runtime
// wheel, so that the library needs only the driver; an error says what is missing.
func rtcToolchain(cxx string) (build.Toolchain, error) {
	include, err := ffiInclude()
	if err != nil {
		return build.Toolchain{}, err
	}
	tc := build.Toolchain{CXX: cxx, FFIInclude: include}
	roots, _ := filepath.Glob(filepath.Join(venvDir, "lib", "python3*", "site-packages", "nvidia", "cu13"))
	for _, root := range roots {
		inc, _, ok := cudatools.RuntimeIn(root)
		static := filepath.Join(root, "lib", "libcudart_static.a")
		if ok && fileExists(static) {
			tc.CUDARuntime.Include, tc.CUDARuntime.Library = inc, static
			return tc, nil
		}
	}
	return tc, fmt.Errorf("no CUDA runtime headers and libcudart_static.a in %s's nvidia-cuda-runtime and "+
		"nvidia-cuda-crt wheels (`go tool mage venv` installs them)", venvDir)
}

// runtimeBuildFiles are what from_urdf needs where Go is not installed (python/grid_rbd/_runtime_build.py):
// the generator, compiled static for linux x86-64, as grid_rbd/_bin/grid-rbd-build, and the kernel
// sources (kernels/'s headers, xla_ffi/) under grid_rbd/_src.
func runtimeBuildFiles() ([]wheel.File, error) {
	bin := filepath.Join("build", "wheel", "grid-rbd-build")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./codegen/cmd/grid-rbd-build")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the generator for the wheel: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files := []wheel.File{{Path: "grid_rbd/_bin/grid-rbd-build", Data: data, Executable: true}}
	for _, root := range []string{"kernels", "xla_ffi"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			ext := filepath.Ext(path)
			nvrtcHeader := filepath.Dir(path) == filepath.Join("kernels", "nvrtc") // standard headers for NVRTC
			if (root == "kernels" && ext != ".cuh" && !nvrtcHeader) ||
				(root == "xla_ffi" && ext != ".h" && ext != ".cc" && ext != ".cu") {
				return nil // the kernels' examples, the licence and README files
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, wheel.File{Path: "grid_rbd/_src/" + filepath.ToSlash(path), Data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// projectLicense is the wheel's License field: the project declares no licence of its own yet; the robot
// descriptions it bundles carry theirs.
const projectLicense = "No licence declared for grid-rbd itself; the bundled robot descriptions carry their own " +
	"(grid_rbd/robots/LICENSE.*: MIT for iiwa, BSD-3-Clause for go2)"

// wheelName is the distribution name of a wheel: the CPU wheel takes pyproject.toml's name and the wheel that
// also holds CUDA libraries that name with -cuda, so that the two never share a file name. A local version
// label (0.1.0+cuda) would too, but a public index refuses local versions (PEP 440).
func wheelName(name string, cuda bool) string {
	if cuda {
		return name + "-cuda"
	}
	return name
}

// readProject reads pyproject.toml's [project] tables, the wheels' metadata.
func readProject() (wheel.Project, error) {
	data, err := os.ReadFile("pyproject.toml")
	if err != nil {
		return wheel.Project{}, err
	}
	return wheel.ReadProject(data)
}

// zigTarget is the target of manylinuxCXX: x86-64 Linux with glibc 2.28, the manylinux_2_28 baseline.
const zigTarget = "x86_64-linux-gnu.2.28"

// manylinuxCXX is the C++ compiler command of the wheel's bundled CPU libraries: zig's clang from the ziglang
// package in the Python environment (tests/requirements.txt), targeting glibc 2.28 with LLVM's libc++ linked
// in, so that the libraries need nothing newer than manylinux_2_28 allows whatever the build machine's glibc
// and libstdc++. "" (the toolchain's $CXX or c++) where $CXX is set or there is no ziglang, saying so.
func manylinuxCXX() string {
	if os.Getenv("CXX") != "" {
		fmt.Println("wheel: $CXX compiles the bundled libraries (the ziglang compiler would target manylinux_2_28)")
		return ""
	}
	out, err := exec.Command(benchPython(), "-c",
		"import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))").Output()
	zig := strings.TrimSpace(string(out))
	if err != nil || !fileExists(zig) {
		fmt.Printf("wheel: no ziglang in %s (`go tool mage venv` installs it): the system compiler builds the "+
			"bundled libraries, for the linux_x86_64 tag only\n", benchPython())
		return ""
	}
	if strings.ContainsAny(zig, " \t") {
		fmt.Printf("wheel: the ziglang compiler's path %q holds a space, which a compiler command cannot: the "+
			"system compiler builds the bundled libraries, for the linux_x86_64 tag only\n", zig)
		return ""
	}
	return zig + " c++ -target " + zigTarget
}
