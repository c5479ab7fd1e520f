//go:build mage

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// entryGuard finds the entry points of a generated grid.cuh by their separate-build guards.
var entryGuard = regexp.MustCompile(`defined\(GRID_SEPARATE_ENTRIES\) && defined\(GRID_ENTRY_([A-Z0-9_]+)\)`)

// precisions are the unit suffixes and defines of one entry point's two translation units.
var precisions = []struct{ suffix, define string }{{"float", "GRID_ENTRY_ONLY_FLOAT"}, {"double", "GRID_ENTRY_ONLY_DOUBLE"}}

// compileCUDALibrary builds a robot's CUDA handler library from two translation units per entry point
// (float and double) plus the handlers (xla_ffi/ffi_cuda.cu), compiled in parallel and linked: the kernels of one entry point take a
// large robot's compiler minutes, and one unit would compile them one after another. args are
// cudaCompileArgs', link the extra link arguments. $GRID_BUILD_JOBS caps the parallel
// compiles (default: the CPUs). The objects stay in DIR/cuda_objects for inspection.
func compileCUDALibrary(nvcc string, args, link []string, dir, lib string) error {
	start := time.Now()
	header, err := os.ReadFile(filepath.Join(dir, "grid.cuh"))
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
	units := []unit{{filepath.Join(ffiDir, "ffi_cuda.cu"), filepath.Join(objDir, "handlers.o")}}
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
	jobs := runtime.NumCPU()
	if n, err := strconv.Atoi(os.Getenv("GRID_BUILD_JOBS")); err == nil && n > 0 {
		jobs = n
	}
	fmt.Printf("== %s: %d translation units, %d at a time\n%s %s <unit> -o <unit>.o\n", filepath.Base(lib), len(units), jobs,
		nvcc, strings.Join(compile, " "))
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
			out, err := exec.Command(nvcc, append(append([]string{}, compile...), u.src, "-o", u.obj)...).CombinedOutput()
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
		return fmt.Errorf("compiling %s with %s:\n%s", lib, nvcc, strings.Join(failed, "\n"))
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
	linkArgs = append(linkArgs, link...)
	for _, u := range units {
		linkArgs = append(linkArgs, u.obj)
	}
	if err := compileLibrary(nvcc, linkArgs, lib); err != nil {
		return err
	}
	fmt.Printf("%s: compiled and linked in %v\n", lib, time.Since(start).Round(time.Second))
	return nil
}
