//go:build mage

// Build, test and demo targets for grid-rbd. Run `go tool mage -l` for the list and
// `go tool mage -h <target>` for a target's help.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/collision"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/equiv"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/ref"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/randomrobot"
	"github.com/grid-rbd/grid-rbd/internal/roster"
	"github.com/grid-rbd/grid-rbd/internal/testreport"
	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"
)

// bundledRobot is the robot the demo runs on when none is named; it ships with the Python package.
const bundledRobot = "python/grid_rbd/robots/iiwa.urdf"

// Model prints a robot's summary: nq, nv, joints in order with type and axis, frames, mass, tree shape.
// Flags: -floating adds a free-flyer base; -strictinertia rejects non-physical inertia tensors;
// -json=PATH also writes the kinematic tree as JSON to PATH (joints, placements, inertias, limits, frames;
// its "conventions" field says how to read them), or to stdout instead of the summary with -json=-.
func Model(urdfPath string, floating, strictInertia *bool, json *string) error {
	r, err := loadRobot(urdfPath, floating, strictInertia)
	if err != nil {
		return err
	}
	if json == nil {
		return r.WriteSummary(os.Stdout)
	}
	if *json == "-" {
		return r.WriteJSON(os.Stdout)
	}
	if err := r.WriteSummary(os.Stdout); err != nil {
		return err
	}
	if err := writeModelJSON(r, *json); err != nil {
		return err
	}
	fmt.Printf("\nmodel JSON written to %s\n", *json)
	return nil
}

// writeModelJSON writes the robot's JSON export to path.
func writeModelJSON(r *model.Robot, path string) error {
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Demo is the main job: it builds the bundled iiwa's kernels and runs trajectory optimisation through
// differentiable dynamics with JAX (python -m grid_rbd.demo): a batch of reaching tasks whose torque
// trajectories descend jax.grad of a loss through whole rollouts, printing the falling loss and saving
// grid_rbd_demo.png. Flags: -batch=N tasks (default 32), -iterations=N gradient steps (default 200).
func Demo(batch, iterations *int) error {
	if err := demoVenv(); err != nil {
		return err
	}
	out := filepath.Join("build", "iiwa")
	if err := Build(bundledRobot, nil, &out, nil, nil, nil, nil); err != nil {
		return err
	}
	args := []string{"-m", "grid_rbd.demo", "--robot", out}
	if batch != nil {
		args = append(args, fmt.Sprintf("--batch=%d", *batch))
	}
	if iterations != nil {
		args = append(args, fmt.Sprintf("--iterations=%d", *iterations))
	}
	return sh.RunWithV(map[string]string{"PYTHONPATH": "python"}, venvPython(), args...)
}

// RefDemo prints a robot's summary and rolls out its float64 reference forward dynamics (Go, no kernels)
// with zero effort from a fixed initial velocity, reporting energy conservation. Flags: -urdf=PATH
// (default: the bundled iiwa), -floating, -seconds=T (default 1).
func RefDemo(urdfPath *string, floating *bool, seconds *float64) error {
	path := bundledRobot
	if urdfPath != nil {
		path = *urdfPath
	}
	r, err := loadRobot(path, floating, nil)
	if err != nil {
		return err
	}
	if err := r.WriteSummary(os.Stdout); err != nil {
		return err
	}
	duration := 1.0
	if seconds != nil {
		duration = *seconds
	}
	return rollout(r, duration)
}

// Gen generates a robot's CUDA C++ header, metadata, XLA FFI bindings and kinematic tree into build/<name>/
// (grid.cuh, metadata.json, grid_ffi.h, model.json), where name is the URDF file's stem. Flags: -floating adds a free-flyer base;
// -out=DIR overrides the folder; -block=N sets the launch helpers' default block size (default 128);
// -roll=auto|always|never chooses the unrolled or the rolled robot description (default auto: rolled above
// emit.RollBodies bodies; docs/architecture.md); -tier=shared|lite|minimal sets the resource tier every entry
// point's XLA FFI handler launches at instead of the tuned one (launch_cfg<GRID_ALGO_*>::TIER); -collision
// adds the covering spheres of the URDF's collision shapes (codegen/collision, docs/ik.md) for scoring
// inverse-kinematics solutions.
func Gen(urdfPath string, floating *bool, out *string, block *int, roll, tier *string, collision *bool) error {
	_, _, err := generate(urdfPath, floating, out, block, roll, tier, collision)
	return err
}

// rollFlag reads a target's -roll flag (absent: auto).
func rollFlag(roll *string) (emit.Roll, error) {
	if roll == nil {
		return emit.RollAuto, nil
	}
	return emit.ParseRoll(*roll)
}

// generate parses a robot once and writes its build folder's generated files (codegen/build): Gen, and the
// first half of Build.
func generate(urdfPath string, floating *bool, out *string, block *int, roll, tier *string, withCollision *bool) (*model.Robot, string, error) {
	start := time.Now()
	u, r, err := parseRobot(urdfPath, floating, nil)
	if err != nil {
		return nil, "", err
	}
	opt := emit.Options{}
	if block != nil {
		opt.BlockThreads = *block
	}
	if opt.Roll, err = rollFlag(roll); err != nil {
		return nil, "", err
	}
	if tier != nil {
		opt.Tier = *tier
	}
	if withCollision != nil && *withCollision {
		if opt.Collision, err = collision.Build(u, r, collision.Options{URDFDir: filepath.Dir(urdfPath)}); err != nil {
			return nil, "", err
		}
		c := opt.Collision
		fmt.Printf("%s: %d collision spheres, %d body pairs checked for self-collision (not %d that always "+
			"overlap, %d that overlap at the neutral configuration)\n",
			r.Name, len(c.Spheres), len(c.Pairs), len(c.AlwaysOverlapping), len(c.NeutralOverlapping))
		for _, a := range c.Approximated {
			fmt.Printf("  approximated along the link (spheres of %g m): %s\n", c.FallbackRadius, a)
		}
	}
	dir := filepath.Join("build", strings.TrimSuffix(filepath.Base(urdfPath), filepath.Ext(urdfPath)))
	if out != nil {
		dir = *out
	}
	gen, err := build.Generate(r, dir, opt)
	if err != nil {
		return nil, "", err
	}
	fmt.Printf("%s: nq %d, nv %d -> %s/grid.cuh (%d lines), metadata.json, grid_ffi.h and model.json in %v\n", r.Name, r.NQ,
		r.NV, dir, strings.Count(gen.Header, "\n"), time.Since(start).Round(time.Microsecond))
	return r, dir, nil
}

// RandomRobot writes the URDF of a random robot (internal/randomrobot) to out: shape tree or chain, links
// moving links, seed. The same arguments always give the same file (testdata/robots/random_tree_*.urdf are
// two of them).
func RandomRobot(shape string, links int, seed int, out string) error {
	s, err := randomrobot.ParseShape(shape)
	if err != nil {
		return err
	}
	if links < 1 || seed < 0 {
		return fmt.Errorf("random robot: want links >= 1 and seed >= 0, got %d and %d", links, seed)
	}
	return os.WriteFile(out, []byte(randomrobot.URDF(s, links, uint64(seed))), 0o644)
}

// GPUPrep writes, for every robot of the roster's gpu suite (testdata/robots/roster.json), a CUDA equivalence check into
// build/gpucheck/<robot>/ (header, driver.cu, inputs and float64 reference outputs). tests/gpu/equivalence.sh
// builds and runs them on a machine with a GPU (no Go needed there). Flags: -samples=N (default 4; robots
// with more than largeRobotNV velocity coordinates get one, as their second derivatives are NV³ in size);
// -robots=a,b picks some (roster names); -roll=auto|always|never as for Gen (random_tree_120 is rolled by size).
func GPUPrep(samples *int, robots, roll *string) error {
	n := 4
	if samples != nil {
		n = *samples
	}
	rollMode, err := rollFlag(roll)
	if err != nil {
		return err
	}
	opt := emit.Options{Roll: rollMode}
	all, err := roster.Suite(roster.GPU)
	if err != nil {
		return err
	}
	picked := map[string]bool{}
	filter := robots != nil && *robots != ""
	if filter {
		for _, name := range strings.Split(*robots, ",") {
			picked[strings.TrimSpace(name)] = true
		}
	}
	if err := os.RemoveAll(filepath.Join("build", "gpucheck")); err != nil {
		return err
	}
	for _, rb := range all {
		if filter && !picked[rb.Name] {
			continue
		}
		delete(picked, rb.Name)
		path, err := rb.Path()
		if err != nil {
			return err
		}
		floating := rb.Floating
		r, err := loadRobot(path, &floating, nil)
		if err != nil {
			return err
		}
		dir := filepath.Join("build", "gpucheck", rb.Name)
		samples := n
		if r.NV > largeRobotNV {
			// NV³-sized second derivatives: keep the expected outputs small enough to carry
			samples = min(n, 1)
		}
		if err := equiv.Prepare(r, dir, samples, 1, opt); err != nil {
			return fmt.Errorf("%s: %w", rb.Name, err)
		}
		fmt.Printf("prepared %s (nv %d) in %s\n", rb.Name, r.NV, dir)
	}
	for name := range picked {
		return fmt.Errorf("gpuprep: no robot %q", name)
	}
	return nil
}

// largeRobotNV is the velocity dimension above which GPUPrep writes a single sample.
const largeRobotNV = 40

// Time limits of the test suites: go test (which builds and runs tests/python through tests/suite_test.go)
// and the pytest suites mage runs itself.
const (
	goTestLimit = 48 * time.Minute
	pytestLimit = 10 * time.Minute
)

// Test runs every test: formatting and vet checks, the Go suite (which drives tests/python), and the Python
// suites tests/pinocchio and tests/operators in the project's virtual environment (created on first use).
// It prints a line whenever a package, a slow test or a pytest file finishes, names what is still running
// when nothing was printed for 30 s, stops a suite at its time limit (go test 48 min, pytest 10 min) with a
// message saying so, and ends with a summary per suite.
func Test() error {
	mg.Deps(Venv)
	fmt.Println("== gofmt")
	if out, err := sh.Output("gofmt", "-l", "."); err != nil || out != "" {
		return fmt.Errorf("gofmt needed on:\n%s%v", out, err)
	}
	fmt.Println("== go vet")
	if err := sh.RunV("go", "vet", "./..."); err != nil {
		return err
	}
	fmt.Printf("== go test ./... (time limit %v; tests/python runs inside it, through tests/suite_test.go)\n", goTestLimit)
	// The longest packages first, three at a time (go test starts packages in the order given): tests, whose
	// pytest run is mostly one process, beside the two compile-bound ones instead of after them; more packages
	// at once would starve its robot builds.
	summaries := []testreport.Summary{testreport.RunGoTest(".", goTestLimit, os.Stdout, "-count=1", "-p=3",
		"./tests", "./codegen/equiv", "./codegen/emit", "./...")}
	fmt.Printf("== pytest tests/pinocchio tests/operators (time limit %v)\n", pytestLimit)
	summaries = append(summaries, testreport.RunPytest(".", venvPython(), nil, pytestLimit, os.Stdout,
		"-q", "-p", "no:cacheprovider", "tests/pinocchio", "tests/operators"))
	fmt.Println("== summary")
	failed := 0
	for _, s := range summaries {
		fmt.Println(s)
		if !s.OK() {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d test suites failed (summary above)", failed, len(summaries))
	}
	return nil
}

// Vectors regenerates the Pinocchio reference vectors in codegen/ref/testdata/pinocchio.
func Vectors() error {
	mg.Deps(Venv)
	return sh.RunV(venvPython(), "tests/pinocchio/make_ref_vectors.py")
}

// Fuzz fuzzes the URDF parser, seeded with the shared robots. Flag: -duration=2m (default 2m).
func Fuzz(duration *string) error {
	d := "2m"
	if duration != nil {
		d = *duration
	}
	if _, err := time.ParseDuration(d); err != nil {
		return fmt.Errorf("-duration=%q: %v", d, err)
	}
	return sh.RunV("go", "test", "./codegen/urdf/", "-run", "^$", "-fuzz", "FuzzParse", "-fuzztime", d)
}

func loadRobot(path string, floating, strictInertia *bool) (*model.Robot, error) {
	_, r, err := parseRobot(path, floating, strictInertia)
	return r, err
}

// parseRobot is loadRobot, also returning the parsed URDF.
func parseRobot(path string, floating, strictInertia *bool) (*urdf.Robot, *model.Robot, error) {
	u, err := urdf.ParseFileWith(path, urdf.Options{StrictInertia: strictInertia != nil && *strictInertia})
	if err != nil {
		return nil, nil, err
	}
	r, err := model.Build(u, model.Options{FreeFlyer: floating != nil && *floating})
	return u, r, err
}

// rollout integrates the reference forward dynamics with zero effort and prints a short table.
func rollout(r *model.Robot, duration float64) error {
	const dt = 1e-3
	steps := int(duration/dt + 0.5)
	if steps < 1 {
		return fmt.Errorf("-seconds=%g: need at least one %g s step", duration, dt)
	}
	q, qd := r.Neutral(), make([]float64, r.NV)
	for i := range qd {
		qd[i] = 0.5 * float64(i%3-1) // a deterministic, non-trivial start
	}
	tau := make([]float64, r.NV)
	k0, p0 := ref.Energy(r, q, qd)
	fmt.Printf("\nreference forward dynamics (ABA, RK4, dt = %g s, zero effort, gravity %v)\n", dt, r.Gravity)
	fmt.Printf("%8s  %14s  %14s  %14s  %12s\n", "t [s]", "kinetic [J]", "potential [J]", "total [J]", "drift [J]")
	start := time.Now()
	report := max(steps/10, 1)
	for s := 1; s <= steps; s++ {
		q, qd = ref.StepRK4(r, q, qd, tau, dt)
		if s%report == 0 || s == steps {
			k, p := ref.Energy(r, q, qd)
			fmt.Printf("%8.3f  %14.6f  %14.6f  %14.6f  %12.3e\n", float64(s)*dt, k, p, k+p, k+p-k0-p0)
		}
	}
	elapsed := time.Since(start)
	fmt.Printf("%d steps (%d ABA calls) in %v\n", steps, 4*steps, elapsed.Round(time.Millisecond))
	fmt.Printf("final q: %.4f\n", q)
	return nil
}
