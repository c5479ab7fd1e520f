package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
	"github.com/grid-rbd/grid-rbd/internal/roster"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
	"github.com/grid-rbd/grid-rbd/internal/wheel"
)

// wheelCheck runs where a user of the wheel would: the package imported from the unpacked wheel, no
// checkout, no Go. For every robot on its command line (URDF, "fixed" or "floating", roll mode) it builds the
// robot with from_urdf and compares forward dynamics and the mass matrix with Pinocchio's on random states,
// and for the unrolled fixed-base robot the derivatives of forward dynamics, whose deferred library the
// first call compiles (GRID_RBD_DEFER=first-use: no build outlives the test); then the robots the wheel
// bundles (BUNDLED), loaded by name from the wheel, against Pinocchio; then it checks that a bad URDF is a
// ValueError naming the element and the line.
const wheelCheck = `
import os, re, sys, time
import numpy as np
import grid_rbd
assert grid_rbd.__file__.startswith(os.environ["WHEEL_DIR"]), f"grid_rbd imported from {grid_rbd.__file__}"
import jax
jax.config.update("jax_enable_x64", True)
import pinocchio as pin
from grid_rbd.jax import JaxRobotHandle


def pinocchio_model(urdf, floating):
    """Pinocchio's model and data of a URDF; mimic joints are independent joints here, as mimic=False has them."""
    model = (pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer(), mimic=False) if floating
             else pin.buildModelFromUrdf(urdf, mimic=False))
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    return model, model.createData()


def random_state(model, rng, floating):
    """q, v, tau drawn at random, a free-flyer quaternion normalised."""
    q, v, tau = rng.uniform(-1, 1, model.nq), rng.normal(size=model.nv), rng.normal(size=model.nv)
    if floating:
        q[3:7] = rng.normal(size=4)
        q[3:7] /= np.linalg.norm(q[3:7])
    return q, v, tau


def relative_error(got, want):
    return float(np.abs(np.asarray(got) - want).max() / max(1.0, np.abs(want).max()))


failed = []
args = sys.argv[1:]
for urdf, base, roll in zip(args[0::3], args[1::3], args[2::3]):
    floating = base == "floating"
    start = time.perf_counter()
    h = JaxRobotHandle.from_urdf(urdf, floating=floating, roll=roll)
    first = time.perf_counter() - start
    model, data = pinocchio_model(urdf, floating)
    assert (h.nq, h.nv) == (model.nq, model.nv), (urdf, h.nq, h.nv, model.nq, model.nv)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(4):
        q, v, tau = random_state(model, rng, floating)
        M = pin.crba(model, data, q)
        pairs = [(h.forward_dynamics(q, v, tau), pin.aba(model, data, q, v, tau)),
                 (h.mass_matrix(q), np.triu(M) + np.triu(M, 1).T)]
        if roll == "never" and not floating:  # the deferred derivative library, compiled on this first use
            dq, dv, _ = h.forward_dynamics_derivatives(q, v, tau)
            pin.computeABADerivatives(model, data, q, v, tau)
            pairs += [(dq, data.ddq_dq), (dv, data.ddq_dv)]
        for got, want in pairs:
            worst = max(worst, relative_error(got, want))
    name = f"{os.path.basename(urdf)} ({base}, roll={roll})"
    print(f"from_urdf {name}: first use {first:.1f} s, max relative error {worst:.1e}", flush=True)
    if not worst < 1e-9:
        failed.append(f"{name}: max relative error {worst:.1e}")

# the robots the wheel bundles, whose libraries the wheel build compiled (for manylinux_2_28), by name
for entry in os.environ["BUNDLED"].split(","):
    name, urdf, base = entry.split("=")
    floating = base == "floating"
    h = JaxRobotHandle(name)
    assert os.path.realpath(h.build_dir).startswith(os.path.realpath(os.environ["WHEEL_DIR"])), h.build_dir
    model, data = pinocchio_model(urdf, floating)
    q, v, tau = random_state(model, np.random.default_rng(1), floating)
    worst = relative_error(h.forward_dynamics(q, v, tau), pin.aba(model, data, q, v, tau))
    print(f"bundled {name} ({base}): max relative error {worst:.1e}", flush=True)
    if not worst < 1e-9:
        failed.append(f"bundled {name}: max relative error {worst:.1e}")

bad = os.path.join(os.environ["HOME"], "bad.urdf")
with open(bad, "w") as f:
    f.write('<robot name="r">\n  <link name="a"/>\n  <joint name="j" type="revolute">\n'
            '    <parent link="a"/><child link="b"/>\n  </joint>\n</robot>\n')
try:
    JaxRobotHandle.from_urdf(bad)
    failed.append("a URDF whose joint names an undefined link was accepted")
except ValueError as e:
    if not re.search(r'line 3: joint "j" names link "b", which is not defined', str(e)):
        failed.append(f"the bad URDF's message does not name the joint and its line: {e}")
    print(f"bad URDF: ValueError: {e}")
assert not failed, "\n".join(failed)
`

// wheelCase is one robot the wheel test builds: its URDF, its base and the roll mode.
type wheelCase struct {
	urdf     string
	floating bool
	roll     string
}

// wheelCases are every URDF of the shared robots, rolled (seconds to compile each; the floating base as the
// roster has it), and hyq unrolled, the default for robots of its size: together the rolled and unrolled
// descriptions, fixed and floating bases, through the wheel's generator and its compile.
func wheelCases(t *testing.T) []wheelCase {
	robots, err := roster.Load()
	if err != nil {
		t.Fatal(err)
	}
	floating := map[string]bool{}
	for _, r := range robots {
		if file, ok := strings.CutPrefix(r.URDF, "shared:"); ok {
			floating[file] = r.Floating
		}
	}
	hyq := testrobots.Shared(t, "hyq.urdf")
	urdfs, err := filepath.Glob(filepath.Join(filepath.Dir(hyq), "*.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []wheelCase{{urdf: hyq, roll: "never"}}
	for _, u := range urdfs {
		f, ok := floating[filepath.Base(u)]
		if !ok {
			t.Fatalf("%s is not in %s: add it there with its base (fixed or floating)", u, roster.File())
		}
		cases = append(cases, wheelCase{urdf: u, floating: f, roll: "always"})
	}
	return cases
}

// TestWheelBuildsRobotsFromURDF builds the CPU wheel (go tool mage wheel -nocuda, bundling iiwa), unpacks it with pip
// outside the checkout and runs wheelCheck there with a PATH that holds neither go nor nvcc: the wheel's own
// generator and kernel sources must suffice for robots it does not bundle.
func TestWheelBuildsRobotsFromURDF(t *testing.T) {
	t.Parallel() // beside TestPython, whose pytest run leaves a core idle
	root, python := testEnvironment(t)
	cases := wheelCases(t)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	start := time.Now()
	// one bundled robot: the bundling is the same for each, and go2's library (TestPython builds it) would add
	// minutes of compile to the suite's longest path
	if out, err := runIn(root, compiledMage(t, root), "wheel", "-nocuda", "-out="+dist, "-bundle="+wheelBundle); err != nil {
		t.Fatalf("mage wheel -nocuda -bundle=%s: %v\n%s", wheelBundle, err, tail(string(out), 30))
	}
	t.Logf("wheel built in %v", time.Since(start).Round(time.Second))
	wheels, _ := filepath.Glob(filepath.Join(dist, "*.whl"))
	if len(wheels) != 1 || !strings.HasPrefix(filepath.Base(wheels[0]), "grid_rbd-") {
		t.Fatalf("expected one CPU wheel grid_rbd-*.whl in %s, found %v", dist, wheels)
	}
	// the bundled libraries compile with zig for glibc 2.28 (magefiles/wheel.go, manylinuxCXX)
	if tag := "-py3-none-" + wheel.Manylinux228 + ".whl"; !strings.HasSuffix(wheels[0], tag) {
		t.Errorf("the CPU wheel %s is not tagged %s: is ziglang missing from .venv (run `go tool mage venv`)?",
			filepath.Base(wheels[0]), wheel.Manylinux228)
	}
	bundled, err := bundledRobots(root)
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(tmp, "site")
	if out, err := runIn(tmp, python, "-m", "pip", "install", "--quiet", "--no-deps", "--target", site, wheels[0]); err != nil {
		t.Fatalf("pip install of the wheel: %v\n%s", err, out)
	}
	checkBundledRTC(t, filepath.Join(site, "grid_rbd", "_robots"), bundled)
	script := filepath.Join(tmp, "check.py")
	if err := os.WriteFile(script, []byte(wheelCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{script}
	for _, c := range cases {
		base := "fixed"
		if c.floating {
			base = "floating"
		}
		args = append(args, c.urdf, base, c.roll)
	}
	cmd := exec.Command(python, args...)
	cmd.Dir = tmp
	// no go and no nvcc: only the system's tools (the C++ compiler)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "PYTHONPATH=" + site, "WHEEL_DIR=" + site,
		"GRID_RBD_CACHE=" + filepath.Join(tmp, "cache"), "JAX_PLATFORMS=cpu", "GRID_RBD_DEFER=first-use",
		"BUNDLED=" + bundled}
	// stderr apart: Pinocchio's URDF parser reports every visual element it skips there
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start = time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("the wheel's from_urdf: %v\n%s\n%s", err, tail(stdout.String(), 20), tail(stderr.String(), 30))
	}
	t.Logf("%d robots built and checked in %v:\n%s", len(cases), time.Since(start).Round(time.Second), strings.TrimSpace(stdout.String()))
}

// checkBundledRTC: every bundled robot of the CPU wheel (bundled as bundledRobots lists them) runs on a GPU
// through NVRTC: its folder holds the header NVRTC compiles and the CUDA handler library of run-time kernels,
// which has the CUDA runtime linked in (no libcudart needed: a GPU machine needs only the driver and NVRTC).
func checkBundledRTC(t *testing.T, robots, bundled string) {
	t.Helper()
	for _, entry := range strings.Split(bundled, ",") {
		name, _, _ := strings.Cut(entry, "=")
		dir := filepath.Join(robots, name)
		if _, err := os.Stat(filepath.Join(dir, build.HeaderFile)); err != nil {
			t.Errorf("bundled %s: %v", name, err)
		}
		cudatools.CheckStaticRuntime(t, filepath.Join(dir, build.CUDARTCLibrary))
	}
}

// wheelBundle is the bundled robot of the test's wheel (mage wheel -bundle).
const wheelBundle = "iiwa"

// bundledRobots lists the test wheel's bundled robots (wheel.ReadBundled, wheelBundle) for wheelCheck's
// BUNDLED: name=URDF=fixed|floating, comma-separated, the URDFs as absolute paths.
func bundledRobots(root string) (string, error) {
	robots, err := wheel.ReadBundled(root)
	if err != nil {
		return "", err
	}
	if robots, err = wheel.SelectBundled(robots, []string{wheelBundle}); err != nil {
		return "", err
	}
	var entries []string
	for _, r := range robots {
		base := "fixed"
		if r.Floating {
			base = "floating"
		}
		entries = append(entries, r.Name+"="+filepath.Join(root, r.URDF)+"="+base)
	}
	return strings.Join(entries, ","), nil
}
