package emit

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

func TestLaunchConfigValidate(t *testing.T) {
	step := func(maxBatch, g, s int) LaunchStep { return LaunchStep{maxBatch, LaunchShape{g, s}} }
	for _, tc := range []struct {
		name string
		cfg  LaunchConfig
		err  string // substring; empty: valid
	}{
		{"one sample per block", LaunchConfig{MaxThreads: 1024, Steps: []LaunchStep{step(0, 1024, 1)}}, ""},
		{"sample per thread", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(0, 1, 256)}}, ""},
		{"steps", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(16, 64, 1), step(1024, 8, 16), step(0, 1, 64)}}, ""},
		{"multi-warp groups", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(0, 64, 4)}}, ""},
		{"ragged block", LaunchConfig{MaxThreads: 64, Steps: []LaunchStep{step(0, 33, 1)}}, ""},
		{"ragged groups sharing a block", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(0, 6, 8)}}, "not a supported shape"},
		{"too many named barriers", LaunchConfig{MaxThreads: 1024, Steps: []LaunchStep{step(0, 32*2, 16)}}, "not a supported shape"},
		{"over max threads", LaunchConfig{MaxThreads: 128, Steps: []LaunchStep{step(0, 32, 8)}}, "not a supported shape"},
		{"no final step", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(16, 32, 1)}}, "max_batch 0"},
		{"descending", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(64, 32, 1), step(16, 8, 4), step(0, 1, 32)}}, "does not ascend"},
		{"max threads out of range", LaunchConfig{MaxThreads: 2048, Steps: []LaunchStep{step(0, 1, 32)}}, "outside 1..1024"},
		{"a tier", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(0, 32, 1)}, Tier: "minimal"}, ""},
		{"an unknown tier", LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{step(0, 32, 1)}, Tier: "huge"}, "none of shared, lite, minimal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.err)
			}
		})
	}
}

func loadIIWA(t *testing.T) *model.Robot {
	t.Helper()
	r, err := model.Load(testrobots.Shared(t, "iiwa.urdf"), urdf.Options{}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// An explicit table is baked into the entry point's MAX_THREADS and LAUNCH_SHAPE; bad ones are refused.
func TestGenerateBakesLaunchTable(t *testing.T) {
	r := loadIIWA(t)
	table := LaunchTable{"aba": {"float": {MaxThreads: 256, Steps: []LaunchStep{
		{MaxBatch: 16, LaunchShape: LaunchShape{64, 1}}, {LaunchShape: LaunchShape{1, 32}}}}}}
	out, err := Generate(r, Options{Launch: table})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"return max_threads_override(std::is_same<T, float>::value ? 256 : 256);",
		"if (num_samples <= 16) return LaunchShape{64, 1};",
		"return LaunchShape{1, 32};",
	} {
		if !strings.Contains(out.Header, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	for name, bad := range map[string]LaunchTable{
		"unknown entry":     {"nope": {"float": table["aba"]["float"]}},
		"unknown precision": {"aba": {"half": table["aba"]["float"]}},
		"invalid shape":     {"aba": {"float": {MaxThreads: 64, Steps: []LaunchStep{{LaunchShape: LaunchShape{1, 128}}}}}},
	} {
		if _, err := Generate(r, Options{Launch: bad}); err == nil {
			t.Errorf("%s: Generate accepted it", name)
		}
	}
}

// A baked tier reaches launch_cfg, the separate-entries instantiations and, through them, the XLA FFI
// handlers; Options.Tier replaces every entry's.
func TestGenerateBakesTier(t *testing.T) {
	r := loadIIWA(t)
	steps := []LaunchStep{{MaxBatch: 16, LaunchShape: LaunchShape{64, 1}}, {LaunchShape: LaunchShape{1, 32}}}
	table := LaunchTable{"aba": {"float": {MaxThreads: 256, Steps: steps, Tier: "lite"}, "double": {MaxThreads: 256, Steps: steps}}}
	for _, tc := range []struct {
		name      string
		opt       Options
		want, not []string
	}{{
		name: "tuned",
		opt:  Options{Launch: table},
		want: []string{
			"struct launch_cfg<GRID_ALGO_ABA, T> {",
			"static constexpr int TIER = std::is_same<T, float>::value ? TIER_LITE : TIER_SHARED;",
			// the baked tier is instantiated without GRID_ALL_TIERS
			"aba_configure<float>();\ntemplate cudaError_t aba_launch<float, TIER_LITE>(",
			"return MASS_MATRIX_LAUNCH_WORKSPACE_BYTES<T, launch_cfg<GRID_ALGO_MASS_MATRIX, T>::TIER>(num_samples, shape);",
		},
		not: []string{"aba_configure<double>();\ntemplate cudaError_t aba_launch<double, TIER_LITE>("},
	}, {
		name: "every entry point at TIER_MINIMAL",
		opt:  Options{Launch: table, Tier: "minimal"},
		want: []string{
			"static constexpr int TIER = std::is_same<T, float>::value ? TIER_MINIMAL : TIER_MINIMAL;",
			"mass_matrix_configure<double>();\ntemplate cudaError_t mass_matrix_launch<double, TIER_MINIMAL>(",
		},
	}} {
		out, err := Generate(r, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.Header, w) {
				t.Errorf("%s: header lacks %q", tc.name, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out.Header, w) {
				t.Errorf("%s: header has %q", tc.name, w)
			}
		}
	}
	if _, err := Generate(r, Options{Tier: "huge"}); err == nil || !strings.Contains(err.Error(), "none of shared, lite, minimal") {
		t.Errorf("an unknown Options.Tier: %v", err)
	}
}

// The shipped tuned tables are valid, and the benchmark robot iiwa picks its own up by fingerprint.
func TestTunedTablesApply(t *testing.T) {
	f, err := LoadLaunchFile(TunedGPU)
	if err != nil {
		t.Fatal(err)
	}
	r := loadIIWA(t)
	tuned, ok := f.Robots[Fingerprint(r)]
	if !ok {
		t.Fatalf("launch_configs/%s.json has no table for %q", TunedGPU, Fingerprint(r))
	}
	tunedOut, err := Generate(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	untunedOut, err := Generate(r, Options{Untuned: true})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(tuned))
	for name := range tuned {
		names = append(names, name)
	}
	if len(names) == 0 {
		t.Skip("the tuned table of iiwa holds no entry point (all were retired for re-tuning)")
	}
	sort.Strings(names)
	steps := tuned[names[0]]["float"].Steps
	last := steps[len(steps)-1]
	want := fmt.Sprintf("return LaunchShape{%d, %d};", last.ThreadsPerSample, last.SamplesPerBlock)
	if !strings.Contains(tunedOut.Header, want) {
		t.Errorf("tuned header lacks the tuned %s shape %q", names[0], want)
	}
	if tunedOut.Header == untunedOut.Header {
		t.Error("the tuned and untuned headers are identical")
	}
}
