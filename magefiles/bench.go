//go:build mage

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/grid-rbd/grid-rbd/internal/roster"
)

// Bench builds the benchmark robots (iiwa, hyq, atlas, panda, and go2 and g1_29dof with a free-flyer base) into
// build/bench/<robot>, with CUDA libraries when nvcc is found and nvidia-smi sees a GPU (for $GRID_CUDA_ARCH,
// else that GPU's architecture) and CPU-only otherwise, saying so, then times grid-rbd and its
// peers (python -m bench.run) and writes the Markdown report with plots (python -m bench.report) next to the
// results JSON. It needs no Go at run time: `go tool mage -compile build/mage-bin` gives a binary that runs
// it as `build/mage-bin bench` from the repository root of a machine with a C++ compiler, nvcc and Python with
// jax (the peers need mujoco and mujoco-mjx, mujoco-warp and warp-lang, and pin, importable there; a missing peer is reported, not fatal).
//
// Flags: -quick: smoke run (batches 1 and 16, 3 repetitions); -out=DIR: results folder (default
// bench/results); -name=NAME: results file DIR/NAME.json (default <date>-<gpu>[-quick]); -robots=a,b: a subset of
// the robots; -peers=grid,purejax,mjx,frax,pinocchio: implementations to time (mjwarp adds MuJoCo Warp, CUDA-graph replays, no JAX);
// -peerbatches=1,4096,65536: time the peers at these batches only (each batch compiles anew);
// -budget=SECONDS: stop starting benchmark cells after this long (building included) so the run always writes
// its results; -resume: keep the measured cells of an existing results file and time only the rest (with
// -budget, repeat the same command until no cell says "time budget"); -nobuild: use the robots already in
// build/bench; -noptxas: skip the ptxas figures (a CUDA compile per robot). Beside the results it writes the
// roofline's inputs, <name>-peaks.json (the GPU's copy bandwidth and FMA rates, bench/roofline/peak.cu) and
// <name>-counts.json (flops and bytes per sample), and <name>-ptxas.json (registers, spills, shared memory of
// every kernel); the report includes them. Python is $GRID_PYTHON, .venv/bin/python or python3; the robot descriptions come from
// $GRID_ROBOTS_DIR, ../shared/robots or shared/robots; GRID_COMMIT names the commit where git is unavailable.
func Bench(quick *bool, out, name, robots, peers, peerbatches *string, budget *int, resume, nobuild, noptxas *bool) error {
	start := time.Now()
	py := benchPython()
	selected, err := selectBenchRobots(robots)
	if err != nil {
		return err
	}
	if nobuild == nil || !*nobuild {
		if err := buildBenchRobots(py, selected); err != nil {
			return err
		}
	}
	args := []string{"-m", "bench.run", "--robots-dir", filepath.Join("build", "bench"), "--robots"}
	for _, r := range selected {
		args = append(args, r.name)
	}
	dir := filepath.Join("bench", "results")
	if out != nil && *out != "" {
		dir = *out
	}
	args = append(args, "--out-dir", dir)
	if name != nil && *name != "" {
		args = append(args, "--out", filepath.Join(dir, *name+".json"))
	}
	if quick != nil && *quick {
		args = append(args, "--quick")
	}
	if resume != nil && *resume {
		args = append(args, "--resume")
	}
	if peers != nil && *peers != "" {
		args = append(args, "--peers")
		args = append(args, strings.Split(*peers, ",")...)
	}
	if peerbatches != nil && *peerbatches != "" {
		args = append(args, "--peer-batches")
		args = append(args, strings.Split(*peerbatches, ",")...)
	}
	if budget != nil && *budget > 0 {
		left := time.Duration(*budget)*time.Second - time.Since(start)
		if left < time.Second {
			left = time.Second // still writes a results file, every cell marked "time budget"
		}
		args = append(args, "--time-budget", fmt.Sprintf("%.0f", left.Seconds()))
	}
	if c := os.Getenv("GRID_COMMIT"); c != "" {
		args = append(args, "--commit", c)
	} else if c, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		args = append(args, "--commit", strings.TrimSpace(string(c)))
	}
	fmt.Printf("== %s %s\n", py, strings.Join(args, " "))
	var stdout bytes.Buffer
	cmd := exec.Command(py, args...)
	cmd.Env = benchEnv()
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr // progress on stderr; the results path on stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("python -m bench.run: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	results := strings.TrimSpace(lines[len(lines)-1])
	if results == "" {
		return errors.New("python -m bench.run named no results file")
	}
	companions(py, selected, results, noptxas != nil && *noptxas)
	cmd = exec.Command(py, "-m", "bench.report", results)
	cmd.Env = benchEnv()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("python -m bench.report: %w", err)
	}
	fmt.Printf("benchmark done in %v: %s\n", time.Since(start).Round(time.Second), results)
	return nil
}

type benchRobot struct {
	name, urdf string
	floating   bool
}

// selectBenchRobots resolves the robots to run (the roster's bench suite, or the -robots list) to their URDFs.
func selectBenchRobots(robots *string) ([]benchRobot, error) {
	want := map[string]bool{}
	filter := robots != nil && *robots != ""
	if filter {
		for _, r := range strings.Split(*robots, ",") {
			want[strings.TrimSpace(r)] = true
		}
	}
	suite, err := roster.Suite(roster.Bench)
	if err != nil {
		return nil, err
	}
	var out, names []benchRobot
	for _, r := range suite {
		names = append(names, benchRobot{name: r.Name})
		if filter && !want[r.Name] {
			continue
		}
		delete(want, r.Name)
		path, err := r.Path()
		if err != nil {
			return nil, err
		}
		out = append(out, benchRobot{r.Name, path, r.Floating})
	}
	if len(want) > 0 {
		var unknown, known []string
		for r := range want {
			unknown = append(unknown, r)
		}
		for _, r := range names {
			known = append(known, r.name)
		}
		return nil, fmt.Errorf("-robots: unknown %s (the benchmark robots are %s)", strings.Join(unknown, ", "),
			strings.Join(known, ", "))
	}
	return out, nil
}

// buildBenchRobots builds the robots into build/bench/<name>, several at once, with CUDA when nvcc is found.
func buildBenchRobots(py string, robots []benchRobot) error {
	if os.Getenv(ffiIncludeEnv) == "" && !fileExists(filepath.Join(ffiIncludeDir, ffiHeaderProbe)) && !fileExists(venvPython()) {
		// No project venv (a GPU machine): compile against the XLA FFI headers of the jax that will load the
		// libraries.
		inc, err := exec.Command(py, "-c", "import jax.ffi; print(jax.ffi.include_dir())").Output()
		if err != nil {
			return fmt.Errorf("%s cannot report jax's XLA FFI headers (%v): set %s", py, err, ffiIncludeEnv)
		}
		os.Setenv(ffiIncludeEnv, strings.TrimSpace(string(inc)))
	}
	cuda := true
	if _, err := findNVCC(); err != nil {
		cuda = false
		fmt.Printf("no CUDA compiler (%v): building the CPU libraries only, so the benchmark runs on the CPU\n", err)
	} else if cc, err := exec.Command("nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader").Output(); err != nil {
		// nvcc alone (the .venv wheel on a CPU machine) is no reason to spend minutes on unused CUDA builds.
		cuda = false
		fmt.Println("no GPU (nvidia-smi failed): building the CPU libraries only, so the benchmark runs on the CPU")
	} else if arch := strings.TrimSpace(strings.Split(string(cc), "\n")[0]); os.Getenv("GRID_CUDA_ARCH") == "" && arch != "" {
		// One architecture, the GPU's own: a third of the compile time of the default three targets.
		os.Setenv("GRID_CUDA_ARCH", "sm_"+strings.ReplaceAll(arch, ".", ""))
		fmt.Printf("building CUDA for this GPU only: GRID_CUDA_ARCH=%s\n", os.Getenv("GRID_CUDA_ARCH"))
	}
	parallel := min(len(robots), max(1, runtime.NumCPU()/2), 6)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for _, r := range robots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := filepath.Join("build", "bench", r.name)
			floating := r.floating
			if err := Build(r.urdf, &floating, &dir, &cuda, nil, nil, nil); err != nil {
				mu.Lock()
				failed = append(failed, fmt.Sprintf("%s: %v", r.name, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("building the benchmark robots failed:\n%s", strings.Join(failed, "\n"))
	}
	return nil
}

// benchPython is the interpreter the benchmark runs in: $GRID_PYTHON, the project's .venv or python3.
func benchPython() string {
	if p := os.Getenv("GRID_PYTHON"); p != "" {
		return p
	}
	if fileExists(venvPython()) {
		return venvPython()
	}
	return "python3"
}

// benchEnv puts the package and the repository root (for the bench package) in front of PYTHONPATH.
func benchEnv() []string {
	path := "python" + string(os.PathListSeparator) + "."
	if old := os.Getenv("PYTHONPATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	return append(os.Environ(), "PYTHONPATH="+path, "PYTHONUNBUFFERED=1")
}

// companions measures what the report shows beside the timings, each written as <results stem>-<kind>.json:
// the GPU's roofs (when a GPU and nvcc are there), the counted flops and bytes per sample, and the ptxas
// figures of the kernels (with nvcc, unless skipped). A failure is reported and leaves that section out.
func companions(py string, robots []benchRobot, results string, noptxas bool) {
	stem := strings.TrimSuffix(results, filepath.Ext(results))
	var dirs []string
	for _, r := range robots {
		dirs = append(dirs, filepath.Join("build", "bench", r.name))
	}
	run := func(what string, cmd *exec.Cmd, out string) {
		started := time.Now()
		fmt.Printf("== %s\n", what)
		var stdout bytes.Buffer
		if out != "" {
			cmd.Stdout = &stdout
		} else {
			cmd.Stdout = os.Stdout
		}
		cmd.Stderr = os.Stderr
		cmd.Env = benchEnv()
		if err := cmd.Run(); err != nil {
			fmt.Printf("%s failed (%v): the report leaves it out\n", what, err)
			return
		}
		if out != "" {
			if err := os.WriteFile(out, stdout.Bytes(), 0o644); err != nil {
				fmt.Printf("%s: %v\n", what, err)
				return
			}
		}
		fmt.Printf("%s done in %v\n", what, time.Since(started).Round(time.Second))
	}
	nvcc, nvccErr := findNVCC()
	_, smiErr := exec.Command("nvidia-smi", "-L").Output()
	if nvccErr == nil && smiErr == nil {
		arch := os.Getenv("GRID_CUDA_ARCH")
		if arch == "" {
			arch = "native"
		}
		bin := filepath.Join("build", "bench", "peak")
		compile := exec.Command(nvcc, "-O3", "-std=c++17", "-arch="+arch, "-o", bin, filepath.Join("bench", "roofline", "peak.cu"))
		if out, err := compile.CombinedOutput(); err != nil {
			fmt.Printf("compiling bench/roofline/peak.cu failed (%v): no roofline\n%s", err, out)
		} else {
			run("GPU roofs (bench/roofline/peak.cu)", exec.Command(bin), stem+"-peaks.json")
		}
	} else {
		fmt.Println("no GPU and nvcc: no measured roofs, so the report has no roofline")
	}
	run("flops and bytes per sample (bench.roofline.count)",
		exec.Command(py, append([]string{"-m", "bench.roofline.count", "--out", stem + "-counts.json"}, dirs...)...), "")
	if nvccErr == nil && !noptxas {
		arch := os.Getenv("GRID_CUDA_ARCH")
		if arch == "" {
			arch = "sm_90"
		}
		run("ptxas figures (bench.ptxas)", exec.Command(py, append([]string{"-m", "bench.ptxas", "--arch", arch,
			"--out", stem + "-ptxas.json"}, dirs...)...), "")
	}
}
