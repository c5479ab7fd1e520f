package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// wheelCheck runs where a user of the wheel would: the package imported from the unpacked wheel, no
// checkout, no Go. It builds a robot the wheel does not bundle with from_urdf and compares forward dynamics
// and the mass matrix with Pinocchio's on random states.
const wheelCheck = `
import os, sys, time
import numpy as np
import grid_rbd
assert grid_rbd.__file__.startswith(os.environ["WHEEL_DIR"]), f"grid_rbd imported from {grid_rbd.__file__}"
import jax
jax.config.update("jax_enable_x64", True)
import pinocchio as pin
from grid_rbd.jax import JaxRobotHandle

urdf = sys.argv[1]
start = time.perf_counter()
h = JaxRobotHandle.from_urdf(urdf)
first = time.perf_counter() - start
model = pin.buildModelFromUrdf(urdf)
model.gravity.linear = np.array([0.0, 0.0, -9.81])
data = model.createData()
rng = np.random.default_rng(0)
worst = 0.0
for _ in range(4):
    q, v, tau = rng.uniform(-1, 1, model.nq), rng.normal(size=model.nv), rng.normal(size=model.nv)
    for got, want in ((h.forward_dynamics(q, v, tau), pin.aba(model, data, q, v, tau)),
                      (h.mass_matrix(q), np.triu(pin.crba(model, data, q)) + np.triu(pin.crba(model, data, q), 1).T)):
        worst = max(worst, float(np.abs(np.asarray(got) - want).max() / max(1.0, np.abs(want).max())))
assert worst < 1e-9, worst
print(f"from_urdf {os.path.basename(urdf)}: first use {first:.1f} s, max relative error {worst:.1e}, build {h.build_dir}")
`

// TestWheelBuildsRobotsFromURDF builds the CPU wheel (go tool mage wheel -nocuda), unpacks it with pip
// outside the checkout and runs wheelCheck there with a PATH that holds neither go nor nvcc: the wheel's own
// generator and kernel sources must suffice for a robot it does not bundle.
func TestWheelBuildsRobotsFromURDF(t *testing.T) {
	root, python := testEnvironment(t)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	if out, err := runIn(root, goTool(), "tool", "mage", "wheel", "-nocuda", "-out="+dist); err != nil {
		t.Fatalf("go tool mage wheel -nocuda: %v\n%s", err, tail(string(out), 30))
	}
	wheels, _ := filepath.Glob(filepath.Join(dist, "*.whl"))
	if len(wheels) != 1 {
		t.Fatalf("expected one wheel in %s, found %v", dist, wheels)
	}
	site := filepath.Join(tmp, "site")
	if out, err := runIn(tmp, python, "-m", "pip", "install", "--quiet", "--no-deps", "--target", site, wheels[0]); err != nil {
		t.Fatalf("pip install of the wheel: %v\n%s", err, out)
	}
	script := filepath.Join(tmp, "check.py")
	if err := os.WriteFile(script, []byte(wheelCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, testrobots.Shared(t, "hyq.urdf"))
	cmd.Dir = tmp
	// no go and no nvcc: only the system's tools (the C++ compiler)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "PYTHONPATH=" + site, "WHEEL_DIR=" + site,
		"GRID_RBD_CACHE=" + filepath.Join(tmp, "cache"), "JAX_PLATFORMS=cpu"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the wheel's from_urdf: %v\n%s", err, tail(string(out), 30))
	}
	t.Log(strings.TrimSpace(string(out)))
}
