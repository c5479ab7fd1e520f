package equiv

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/build"
	"github.com/grid-rbd/grid-rbd/codegen/collision"
	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/cudatools"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// TestCUDABuild compiles the CUDA equivalence driver, which instantiates every batched kernel in float and
// double, for sm_90 with warnings as errors, for a small branched floating-base robot with every joint kind,
// unrolled and rolled (a larger robot's kernels take the compiler minutes each, the same templates over a
// longer schedule; the GPU equivalence check, tests/gpu/equivalence.sh, builds those).
func TestCUDABuild(t *testing.T) {
	t.Parallel()
	nvcc := cudatools.NVCC(t)
	for _, c := range []struct {
		testrobots.Robot
		opt emit.Options
	}{
		{Robot: testrobots.Robot{Name: "small_floating", Path: smallFloatingRobot(t), FreeFlyer: true}},
		// a rolled robot: bodies iterated at run time, tables in device memory
		{Robot: testrobots.Robot{Name: "small_floating_rolled", Path: smallFloatingRobot(t), FreeFlyer: true},
			opt: emit.Options{Roll: emit.RollAlways}},
	} {
		tr := c.Robot
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := Prepare(r, dir, 2, 1, c.opt); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(nvcc, "-arch=sm_90", "-std=c++17", "-O1", "-Werror", "all-warnings",
				"-Xcompiler", "-Wall,-Wextra,-Werror", "-I", filepath.Join(testrobots.RepoRoot(), "kernels"), "-I", dir,
				"-c", filepath.Join(dir, "driver.cu"), "-o", filepath.Join(dir, "driver.o"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("nvcc failed: %v\n%s", err, out)
			} else if len(out) > 0 {
				t.Logf("nvcc said:\n%s", out)
			}
		})
	}
}

// TestCUDABuildInlineExample compiles kernels/examples/inline_tiers.cu (an inline user's kernel at every
// resource tier; codegen/emit's TestInlineTiersExample runs it on the host for shared robots) for sm_90
// against the small floating-base robot's header, warnings as errors.
func TestCUDABuildInlineExample(t *testing.T) {
	t.Parallel()
	compileUnitForSM90(t, smallFloatingRobot(t), true, false, filepath.Join("kernels", "examples", "inline_tiers.cu"))
}

// TestCUDABuildTrajectoryHandlers compiles the fused rollout handlers (xla_ffi/trajectory_cuda.cu: rollout,
// its tangent and its adjoint, float and double) for sm_90 against a small floating-base robot's header,
// warnings as errors: the CUDA library's one translation unit that the driver above does not contain.
func TestCUDABuildTrajectoryHandlers(t *testing.T) {
	t.Parallel()
	compileUnitForSM90(t, smallFloatingRobot(t), true, false, filepath.Join("xla_ffi", "trajectory_cuda.cu"))
}

// TestCUDABuildIK compiles the GPU inverse-kinematics library's source (xla_ffi/ik_cuda.cu: the descent and
// polishing kernels for every body of the chain, and the host driver with its collision scoring) for sm_90
// against the small robot (revolute, prismatic and continuous joints) on a floating base, which IK holds at
// its rest pose, with its collision spheres, warnings as errors.
func TestCUDABuildIK(t *testing.T) {
	t.Parallel()
	compileUnitForSM90(t, smallFloatingRobot(t), true, true, filepath.Join("xla_ffi", "ik_cuda.cu"))
}

// TestRTCHostBuild compiles the CUDA handler library of kernels compiled at run time (xla_ffi/ffi_cuda_rtc.cc
// with GRID_RTC_HOST: the launch code and the handlers by the host C++ compiler, the kernels left to NVRTC)
// against the small floating-base robot's header, warnings as errors, and links it against libcudart with no
// symbol left undefined. It must export every algorithm's CUDA handler and workspace query, and grid_rtc_load.
func TestRTCHostBuild(t *testing.T) {
	t.Parallel()
	include, cudart := cudatools.Runtime(t)
	ffi := cudatools.FFIInclude(t)
	dir := generateRobot(t, smallFloatingRobot(t), true, false)
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	root := testrobots.RepoRoot()
	lib := filepath.Join(dir, "libgrid_rbd_cuda_rtc.so")
	cmd := exec.Command(cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
		"-isystem", include, "-isystem", ffi, "-I", filepath.Join(root, "kernels"), "-I", filepath.Join(root, "xla_ffi"),
		"-I", dir, filepath.Join(root, "xla_ffi", "ffi_cuda_rtc.cc"), "-o", lib,
		"-L", filepath.Dir(cudart), "-l:"+filepath.Base(cudart), "-Wl,-rpath,"+filepath.Dir(cudart), "-Wl,--no-undefined")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s failed: %v\n%s", cxx, err, msg)
	}
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := emit.ParseMetadata(data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			exported[s.Name] = true
		}
	}
	want := []string{"grid_rtc_load", "grid_rtc_error"}
	for _, a := range md.Algorithms {
		want = append(want, "grid_"+a.Name+"_cuda", "grid_"+a.Name+"_cuda_workspace_bytes")
		if len(a.Kernels) == 0 {
			t.Errorf("metadata.json lists no kernels for %s", a.Name)
		}
	}
	for _, name := range want {
		if !exported[name] {
			t.Errorf("%s does not export %s", lib, name)
		}
	}
}

// compileUnitForSM90 generates the robot of urdfPath (a free-flyer base if floating; with its collision spheres
// if withCollision) and compiles the source (relative to the repository root) against its header for sm_90
// with nvcc, warnings as errors, the XLA FFI headers on the include path.
func compileUnitForSM90(t *testing.T, urdfPath string, floating, withCollision bool, source string) {
	t.Helper()
	nvcc := cudatools.NVCC(t)
	ffi := cudatools.FFIInclude(t)
	dir := generateRobot(t, urdfPath, floating, withCollision)
	root := testrobots.RepoRoot()
	cmd := exec.Command(nvcc, "-arch=sm_90", "-std=c++17", "-O1", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror",
		"-DGRID_SEPARATE_ENTRIES", "-I", filepath.Join(root, "kernels"), "-I", dir, "-isystem", ffi,
		"-c", filepath.Join(root, source), "-o", filepath.Join(dir, "unit.o"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvcc failed: %v\n%s", err, msg)
	}
}

// generateRobot generates the robot of urdfPath (a free-flyer base if floating; with its collision spheres if
// withCollision) into a temporary folder and returns it.
func generateRobot(t *testing.T, urdfPath string, floating, withCollision bool) string {
	t.Helper()
	u, err := urdf.ParseFile(urdfPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Build(u, model.Options{FreeFlyer: floating})
	if err != nil {
		t.Fatal(err)
	}
	var opt emit.Options
	if withCollision {
		if opt.Collision, err = collision.Build(u, r, collision.Options{URDFDir: filepath.Dir(urdfPath)}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if _, err := build.Generate(r, dir, opt); err != nil {
		t.Fatal(err)
	}
	return dir
}

// smallFloatingRobot writes a four-link tree (revolute, continuous and prismatic joints, two branches) and
// returns its path.
func smallFloatingRobot(t *testing.T) string {
	t.Helper()
	// a link with a collision shape (geometry; none if empty) for the builds with collision spheres
	link := func(name string, mass float64, geometry string) string {
		shape := ""
		if geometry != "" {
			shape = `<collision><origin xyz="0 0 0.05"/><geometry>` + geometry + `</geometry></collision>`
		}
		return `<link name="` + name + `"><inertial><origin xyz="0.01 0.02 0.1"/><mass value="` +
			strconv.FormatFloat(mass, 'g', -1, 64) + `"/><inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.03" iyz="0.002" izz="0.01"/></inertial>` +
			shape + `</link>`
	}
	joint := func(name, kind, parent, child, xyz, axis string) string {
		return `<joint name="` + name + `" type="` + kind + `"><parent link="` + parent + `"/><child link="` + child +
			`"/><origin xyz="` + xyz + `" rpy="0.1 0 0.2"/><axis xyz="` + axis + `"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>`
	}
	urdfText := `<robot name="small_floating">` + link("base", 3, `<box size="0.2 0.1 0.1"/>`) +
		link("a", 1, `<cylinder radius="0.03" length="0.2"/>`) + link("b", 0.5, `<sphere radius="0.04"/>`) + link("c", 0.7, "") +
		joint("ja", "revolute", "base", "a", "0 0.1 0", "0 0 1") + joint("jb", "prismatic", "a", "b", "0 0 0.2", "1 0 0") +
		joint("jc", "continuous", "base", "c", "0 -0.1 0", "0.6 0.8 0") + `</robot>`
	path := filepath.Join(t.TempDir(), "small_floating.urdf")
	if err := os.WriteFile(path, []byte(urdfText), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
