//go:build mage

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/grid-rbd/grid-rbd/internal/wheel"
)

// bundledConfig is python/grid_rbd/robots/bundled.json: the robots a wheel ships.
const bundledConfig = "python/grid_rbd/robots/bundled.json"

type bundledEntry struct {
	Name     string `json:"name"`
	URDF     string `json:"urdf"`
	Floating bool   `json:"floating"`
}

func readBundled() ([]bundledEntry, error) {
	data, err := os.ReadFile(bundledConfig)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Robots []bundledEntry `json:"robots"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", bundledConfig, err)
	}
	return cfg.Robots, nil
}

// Wheel builds dist/grid_rbd-<version>-py3-none-<platform>.whl: the Python package and, for every robot
// in python/grid_rbd/robots/bundled.json, its metadata with CPU and CUDA (sm_80, sm_90 and PTX)
// libraries, the generator run-time builds use (grid_rbd/_bin) and the kernel sources (grid_rbd/_src).
// The platform tag is manylinux_2_28_x86_64 where an ELF check of its binaries allows it (wheel.CheckManylinux228:
// a build on a toolchain as old as that policy), else linux_x86_64, saying why. Flags: -nocuda builds a
// CPU-only wheel; -out=DIR writes it there instead of dist/.
func Wheel(nocuda *bool, out *string) error {
	start := time.Now()
	robots, err := readBundled()
	if err != nil {
		return err
	}
	version, requires, err := projectInfo("pyproject.toml")
	if err != nil {
		return err
	}
	cuda := nocuda == nil || !*nocuda
	var files []wheel.File
	for _, rb := range robots {
		dir := filepath.Join("build", "wheel", rb.Name)
		floating := rb.Floating
		if err := Build(rb.URDF, &floating, &dir, &cuda, nil, nil); err != nil {
			return fmt.Errorf("robot %s: %w", rb.Name, err)
		}
		libs := []string{"metadata.json", "libgrid_rbd_cpu.so"}
		if cuda {
			libs = append(libs, "libgrid_rbd_cuda.so")
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
	path, err := wheel.Write(dist, wheel.Spec{
		Name: "grid-rbd", Version: version, Tag: tag, RequiresPython: ">=3.12",
		Summary:  "Fast, differentiable rigid-body dynamics compiled from URDF for JAX on GPU and CPU",
		License:  "see the bundled robots' licence files",
		Requires: requires, Files: files,
	})
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d robots, CUDA %v) in %v\n", path, len(robots), cuda, time.Since(start).Round(time.Second))
	return nil
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
			if (root == "kernels" && ext != ".cuh") || (root == "xla_ffi" && ext != ".h" && ext != ".cc" && ext != ".cu") {
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

// projectInfo reads the version and the dependency list from pyproject.toml's [project] table.
func projectInfo(path string) (string, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	text := string(data)
	v := regexp.MustCompile(`(?m)^version\s*=\s*"([^"]+)"`).FindStringSubmatch(text)
	if v == nil {
		return "", nil, fmt.Errorf("%s: no version", path)
	}
	deps := regexp.MustCompile(`(?ms)^dependencies\s*=\s*\[(.*?)\]`).FindStringSubmatch(text)
	var requires []string
	if deps != nil {
		for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(deps[1], -1) {
			requires = append(requires, m[1])
		}
	}
	return v[1], requires, nil
}
