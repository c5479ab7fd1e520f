package build

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The deferred CPU libraries of a run-time build (CompileCPUCore) and the file that lists a build folder's
// CPU libraries.
const (
	// DerivativesLibrary holds the first-order derivative entry points: the gradients of inverse and forward
	// dynamics, of the integrator, of the frame poses (and their Hessian) and of the multi-target positions,
	// what JAX's derivative rules of the first-order methods call.
	DerivativesLibrary = "libgrid_rbd_cpu_derivatives.so"
	// SecondOrderLibrary holds the second-order derivatives of inverse and forward dynamics.
	SecondOrderLibrary = "libgrid_rbd_cpu_second_order.so"
	// RolloutsLibrary holds an unrolled robot's fused rollout handlers (xla_ffi/trajectory_cpu.cc).
	RolloutsLibrary = "libgrid_rbd_cpu_rollouts.so"
	// LibrariesFile lists the CPU libraries of a build folder whose handlers are spread over several
	// (LibraryInfo); without it, CPULibrary holds them all.
	LibrariesFile = "cpu_libraries.json"
)

// The translation units of the CPU library, entry points grouped by the code they share, and the library of
// each when a run-time build defers the expensive ones. Compiler CPU seconds, each entry point alone at -O2
// (iiwa / g1_29dof floating): fdsva_so 12.4 / 117, idsva_so 4.2 / 31, forward_dynamics_gradient 5.7 / 32,
// integrator_gradient 4.4 / 22, inverse_dynamics_gradient 2.7 / 17, the end-effector gradient and Hessian
// 1 / 3.5 each; the entry points a first call needs 24 in one unit for g1_29dof. The inverse-dynamics
// gradient would cost the second-order unit little (they share the dual-number algorithms), but with the
// other gradients a first-order derivative waits for theirs only (g1_29dof: about 70 s, not 130).
// The joint-torque regressor (inertial parameters) is a quarter of the first call's unit for g1_29dof and no
// first call needs it: it is deferred with the first-order derivatives, in a unit of its own.
const (
	unitSecondOrder = "second_order"
	unitGradients   = "gradients"
	unitRegressor   = "regressor"
	unitEntries     = "entries"
)

// entryUnit is the unit of each entry point that is not in unitEntries.
var entryUnit = map[string]string{
	"IDSVA_SO": unitSecondOrder, "FDSVA_SO": unitSecondOrder,
	"INVERSE_DYNAMICS_GRADIENT": unitGradients, "FORWARD_DYNAMICS_GRADIENT": unitGradients,
	"INTEGRATOR_GRADIENT": unitGradients, "END_EFFECTOR_POSE_GRADIENT": unitGradients,
	"END_EFFECTOR_POSE_HESSIAN": unitGradients, "MULTI_TARGET_POSITION_GRADIENT": unitGradients,
	"JOINT_TORQUE_REGRESSOR": unitRegressor,
}

// unitOrder starts the longest units first, so that on two CPUs the short ones follow each other beside it.
var unitOrder = []string{unitSecondOrder, unitGradients, unitRegressor, unitEntries}

// deferredLibrary is the library of a deferred unit; the others are in CPULibrary.
var deferredLibrary = map[string]string{unitSecondOrder: SecondOrderLibrary, unitGradients: DerivativesLibrary,
	unitRegressor: DerivativesLibrary}

// entryCost is each entry point's relative compile time (g++ -O2 seconds for g1_29dof floating, one entry
// point per unit, on a busy two-core machine), for spreading a unit over several (spreadGroup); others count
// defaultEntryCost.
var entryCost = map[string]float64{
	"INTEGRATOR": 12.2, "FORWARD_DYNAMICS": 10.9, "MINV": 9.7, "MASS_MATRIX": 9.6, "ABA": 9.5,
	"INVERSE_DYNAMICS": 4.5, "GRAVITY_FORCES": 4.3, "BIAS_FORCES": 3.9, "FRAME_JACOBIAN": 2.9, "FRAME_POSES": 2.5,
	"MULTI_TARGET_POSITION": 1.7, "JOINT_TORQUE_REGRESSOR": 26.6,
}

const defaultEntryCost = 3

// spreadableUnits may be split into several translation units where CPUs are free: their entry points share
// little code (the second-order ones share the dual-number algorithms, and one of them is most of the unit).
var spreadableUnits = []string{unitEntries, unitGradients}

// maxSpread caps the parts of a spread unit: each part compiles the inline code its entry points use again.
const maxSpread = 6

// spreadGroup splits g into at most parts groups of about equal entryCost, the costliest entry points
// placed first, each in the part with the least so far (g.name, then g.name_2, ...); a group that is not
// spreadable, or parts below 2, stays whole.
func spreadGroup(g entryGroup, parts int) []entryGroup {
	parts = min(parts, len(g.entries), maxSpread)
	if parts < 2 || !slices.Contains(spreadableUnits, g.name) {
		return []entryGroup{g}
	}
	cost := func(e string) float64 {
		if c, ok := entryCost[e]; ok {
			return c
		}
		return defaultEntryCost
	}
	byCost := slices.Clone(g.entries)
	slices.SortStableFunc(byCost, func(a, b string) int { return cmp.Compare(cost(b), cost(a)) })
	out := make([]entryGroup, parts)
	load := make([]float64, parts)
	for i := range out {
		out[i].name = g.name
		if i > 0 {
			out[i].name = fmt.Sprintf("%s_%d", g.name, i+1)
		}
	}
	for _, e := range byCost {
		i := slices.Index(load, slices.Min(load))
		out[i].entries = append(out[i].entries, e)
		load[i] += cost(e)
	}
	for i := range out {
		slices.Sort(out[i].entries)
	}
	return out
}

// libraryOrder is the order of a deferred build, the libraries most calls need first.
var libraryOrder = []string{CPULibrary, DerivativesLibrary, SecondOrderLibrary, RolloutsLibrary}

// libraryKernels describes each library's kernels in progress messages ("iiwa's derivative kernels").
var libraryKernels = map[string]string{CPULibrary: "dynamics", DerivativesLibrary: "derivative",
	SecondOrderLibrary: "second-order derivative", RolloutsLibrary: "rollout"}

// entryGroup is one translation unit of entry points.
type entryGroup struct {
	name    string
	entries []string
}

// cpuLibrary is one CPU library: the entry points it compiles, in translation units, and whether it holds
// the fused rollout handlers. Its handler unit exports every entry point's handler; those of the entry
// points it does not compile return an error (GRID_ENTRY_SKIPPED_<ENTRY>).
type cpuLibrary struct {
	file     string
	groups   []entryGroup
	rollouts bool
}

// entries lists the entry points the library compiles.
func (l cpuLibrary) entries() []string {
	var all []string
	for _, g := range l.groups {
		all = append(all, g.entries...)
	}
	return all
}

// cpuLibraries groups a robot's entry points (upper case, as grid.cuh names them) into translation units and
// those into libraries: one library of them all, or, deferred, CPULibrary with the entry points a first call
// needs and the others in DerivativesLibrary, SecondOrderLibrary and RolloutsLibrary (rollouts: the robot
// has the fused rollout handlers), in libraryOrder. Libraries with nothing to compile are left out.
func cpuLibraries(entries []string, rollouts, deferred bool) []cpuLibrary {
	byUnit := map[string][]string{}
	for _, e := range entries {
		u, ok := entryUnit[e]
		if !ok {
			u = unitEntries
		}
		byUnit[u] = append(byUnit[u], e)
	}
	libs := []cpuLibrary{{file: CPULibrary}}
	index := map[string]int{CPULibrary: 0}
	add := func(file string) *cpuLibrary {
		if !deferred {
			file = CPULibrary
		}
		i, ok := index[file]
		if !ok {
			i = len(libs)
			index[file] = i
			libs = append(libs, cpuLibrary{file: file})
		}
		return &libs[i]
	}
	for _, u := range unitOrder {
		if len(byUnit[u]) == 0 {
			continue
		}
		lib := add(cmp.Or(deferredLibrary[u], CPULibrary))
		lib.groups = append(lib.groups, entryGroup{name: u, entries: byUnit[u]})
	}
	if rollouts {
		add(RolloutsLibrary).rollouts = true
	}
	libs = slices.DeleteFunc(libs, func(l cpuLibrary) bool { return len(l.groups) == 0 && !l.rollouts })
	slices.SortStableFunc(libs, func(a, b cpuLibrary) int {
		return cmp.Compare(slices.Index(libraryOrder, a.file), slices.Index(libraryOrder, b.file))
	})
	return libs
}

// skipped lists the entry points of all that the library does not compile.
func (l cpuLibrary) skipped(all []string) []string {
	mine := l.entries()
	var skip []string
	for _, e := range all {
		if !slices.Contains(mine, e) {
			skip = append(skip, e)
		}
	}
	return skip
}

// LibraryInfo is one CPU library of a build folder as LibrariesFile lists it.
type LibraryInfo struct {
	// File is the library's name in the build folder.
	File string `json:"file"`
	// Kernels describes what it holds, for progress messages: "dynamics", "derivative" or "rollout".
	Kernels string `json:"kernels"`
	// Algorithms are the metadata's algorithms whose handlers it runs (its other handlers return an error).
	Algorithms []string `json:"algorithms"`
	// Trajectories are the fused rollout handlers it exports.
	Trajectories []string `json:"trajectories"`
	// Deferred: compiled after the build folder was written (CompileCPUDeferred), by a process started
	// then or by the first call that needs it.
	Deferred bool `json:"deferred"`
}

// libraryInfos describes libs for LibrariesFile; trajectories are the metadata's rollout kernels.
func libraryInfos(libs []cpuLibrary, trajectories []string) []LibraryInfo {
	infos := make([]LibraryInfo, 0, len(libs))
	for _, l := range libs {
		info := LibraryInfo{File: l.file, Kernels: libraryKernels[l.file], Algorithms: []string{}, Trajectories: []string{},
			Deferred: l.file != CPULibrary}
		for _, e := range l.entries() {
			info.Algorithms = append(info.Algorithms, strings.ToLower(e))
		}
		if l.rollouts {
			info.Trajectories = append(info.Trajectories, trajectories...)
		}
		infos = append(infos, info)
	}
	return infos
}

// ReadLibraries reads the LibrariesFile of the build folder dir.
func ReadLibraries(dir string) ([]LibraryInfo, error) {
	path := filepath.Join(dir, LibrariesFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var infos []LibraryInfo
	if err := json.Unmarshal(raw, &infos); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return infos, nil
}

// writeLibraries writes the LibrariesFile of the build folder dir.
func writeLibraries(dir string, infos []LibraryInfo) error {
	raw, err := json.MarshalIndent(infos, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, LibrariesFile), append(raw, '\n'), 0o644)
}
