package build

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCPULibraries: one library of every unit, or, deferred, the entry points a first call needs in
// CPULibrary and the first-order derivatives, the second-order ones and the rollouts apart, in that order;
// each entry point in one unit, units longest first.
func TestCPULibraries(t *testing.T) {
	unrolled := []string{"ABA", "END_EFFECTOR_POSE_GRADIENT", "FDSVA_SO", "FORWARD_DYNAMICS_GRADIENT", "IDSVA_SO",
		"INVERSE_DYNAMICS", "INVERSE_DYNAMICS_GRADIENT", "MASS_MATRIX"}
	rolled := []string{"ABA", "FORWARD_DYNAMICS_GRADIENT", "INVERSE_DYNAMICS", "INVERSE_DYNAMICS_GRADIENT"}
	secondOrder := entryGroup{unitSecondOrder, []string{"FDSVA_SO", "IDSVA_SO"}}
	gradients := entryGroup{unitGradients, []string{"END_EFFECTOR_POSE_GRADIENT", "FORWARD_DYNAMICS_GRADIENT",
		"INVERSE_DYNAMICS_GRADIENT"}}
	entries := entryGroup{unitEntries, []string{"ABA", "INVERSE_DYNAMICS", "MASS_MATRIX"}}
	for _, c := range []struct {
		name     string
		entries  []string
		rollouts bool
		deferred bool
		want     []cpuLibrary
	}{
		{"all in one", unrolled, true, false, []cpuLibrary{
			{file: CPULibrary, groups: []entryGroup{secondOrder, gradients, entries}, rollouts: true}}},
		{"deferred", unrolled, true, true, []cpuLibrary{
			{file: CPULibrary, groups: []entryGroup{entries}},
			{file: DerivativesLibrary, groups: []entryGroup{gradients}},
			{file: SecondOrderLibrary, groups: []entryGroup{secondOrder}},
			{file: RolloutsLibrary, rollouts: true}}},
		{"rolled, deferred", rolled, false, true, []cpuLibrary{
			{file: CPULibrary, groups: []entryGroup{{unitEntries, []string{"ABA", "INVERSE_DYNAMICS"}}}},
			{file: DerivativesLibrary, groups: []entryGroup{
				{unitGradients, []string{"FORWARD_DYNAMICS_GRADIENT", "INVERSE_DYNAMICS_GRADIENT"}}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := cpuLibraries(c.entries, c.rollouts, c.deferred)
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(cpuLibrary{}, entryGroup{})); d != "" {
				t.Errorf("cpuLibraries (-want +got):\n%s", d)
			}
			for _, l := range got {
				skipped := l.skipped(c.entries)
				if len(skipped)+len(l.entries()) != len(c.entries) {
					t.Errorf("%s compiles %v and skips %v of %v", l.file, l.entries(), skipped, c.entries)
				}
			}
		})
	}
}

// TestLibraryInfos: what LibrariesFile says of each library, the metadata's lower-case names.
func TestLibraryInfos(t *testing.T) {
	libs := cpuLibraries([]string{"ABA", "FDSVA_SO", "FORWARD_DYNAMICS_GRADIENT"}, true, true)
	got := libraryInfos(libs, []string{"rollout", "rollout_tangent"})
	want := []LibraryInfo{
		{File: CPULibrary, Kernels: "dynamics", Algorithms: []string{"aba"}, Trajectories: []string{}},
		{File: DerivativesLibrary, Kernels: "derivative", Algorithms: []string{"forward_dynamics_gradient"}, Trajectories: []string{}, Deferred: true},
		{File: SecondOrderLibrary, Kernels: "second-order derivative", Algorithms: []string{"fdsva_so"}, Trajectories: []string{}, Deferred: true},
		{File: RolloutsLibrary, Kernels: "rollout", Algorithms: []string{}, Trajectories: []string{"rollout", "rollout_tangent"}, Deferred: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("libraryInfos (-want +got):\n%s", d)
	}
}

// TestSpreadGroup: a spreadable unit over several parts of about equal cost, costliest first into the least
// loaded part; units that share code, and one part, stay whole.
func TestSpreadGroup(t *testing.T) {
	core := entryGroup{unitEntries, []string{"ABA", "FORWARD_DYNAMICS", "FRAME_POSES", "INTEGRATOR", "INVERSE_DYNAMICS",
		"MASS_MATRIX", "MINV"}}
	for _, c := range []struct {
		name  string
		group entryGroup
		parts int
		want  []entryGroup
	}{
		{"one part", core, 1, []entryGroup{core}},
		{"three parts", core, 3, []entryGroup{
			{unitEntries, []string{"FRAME_POSES", "INTEGRATOR", "INVERSE_DYNAMICS"}},
			{"entries_2", []string{"ABA", "FORWARD_DYNAMICS"}},
			{"entries_3", []string{"MASS_MATRIX", "MINV"}}}},
		{"no more parts than entry points", entryGroup{unitGradients, []string{"FORWARD_DYNAMICS_GRADIENT", "X"}}, 8,
			[]entryGroup{{unitGradients, []string{"FORWARD_DYNAMICS_GRADIENT"}}, {"gradients_2", []string{"X"}}}},
		{"second order stays whole", entryGroup{unitSecondOrder, []string{"FDSVA_SO", "IDSVA_SO"}}, 4,
			[]entryGroup{{unitSecondOrder, []string{"FDSVA_SO", "IDSVA_SO"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := spreadGroup(c.group, c.parts)
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(entryGroup{})); d != "" {
				t.Errorf("spreadGroup (-want +got):\n%s", d)
			}
		})
	}
}
