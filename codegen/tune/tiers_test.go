package tune

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

func TestChooseTier(t *testing.T) {
	group, thread := emit.LaunchShape{ThreadsPerSample: 64, SamplesPerBlock: 1}, emit.LaunchShape{ThreadsPerSample: 1, SamplesPerBlock: 128}
	// groups up to batch 16, one thread per sample above
	cfg := emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{{MaxBatch: 16, LaunchShape: group}, {LaunchShape: thread}}}
	cell := func(tier string, sh emit.LaunchShape, batch int, us float64) Cell {
		return Cell{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: sh, Tier: tier, Batch: batch, MedianUS: us}
	}
	for _, tc := range []struct {
		name  string
		cfg   emit.LaunchConfig
		cells []Cell
		want  string
	}{{
		name: "a spilled tier faster at every group batch is baked",
		cfg:  cfg,
		cells: []Cell{
			cell("", group, 1, 10), cell("lite", group, 1, 8), cell("minimal", group, 1, 9),
			cell("", group, 16, 20), cell("lite", group, 16, 16), cell("minimal", group, 16, 30),
			// thread batches do not count: tiers are one kernel there
			cell("", thread, 65536, 100), cell("lite", group, 65536, 1), cell("", group, 65536, 500),
		},
		want: "lite",
	}, {
		name: "within the margin TIER_SHARED stays",
		cfg:  cfg,
		cells: []Cell{
			cell("", group, 1, 10), cell("lite", group, 1, 9.8), cell("minimal", group, 1, 9.7),
		},
		want: "",
	}, {
		name: "a tier missing a cell is not eligible",
		cfg:  cfg,
		cells: []Cell{
			cell("", group, 1, 10), cell("minimal", group, 1, 5),
			cell("", group, 16, 10), {Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: group, Tier: "minimal", Batch: 16, Missing: "cudaErrorInvalidValue"},
		},
		want: "",
	}, {
		name:  "no group step: TIER_SHARED",
		cfg:   emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{{LaunchShape: thread}}},
		cells: []Cell{cell("", group, 1, 10), cell("lite", group, 1, 1)},
		want:  "",
	}, {
		name:  "cells of other launch bounds do not count",
		cfg:   emit.LaunchConfig{MaxThreads: 1024, Steps: cfg.Steps},
		cells: []Cell{cell("", group, 1, 10), cell("lite", group, 1, 1)},
		want:  "",
	}} {
		if got := ChooseTier(tc.cfg, tc.cells); got != tc.want {
			t.Errorf("%s: tier %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestChooseTiers(t *testing.T) {
	group := emit.LaunchShape{ThreadsPerSample: 32, SamplesPerBlock: 1}
	steps := []emit.LaunchStep{{LaunchShape: group}}
	tables := map[string]emit.LaunchTable{"r": {
		"aba":  {"float": {MaxThreads: 256, Steps: steps}, "double": {MaxThreads: 256, Tier: "lite", Steps: steps}},
		"minv": {"float": {MaxThreads: 256, Tier: "minimal", Steps: steps}},
	}}
	cells := []Cell{
		{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: group, Batch: 1, MedianUS: 10},
		{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: group, Tier: "minimal", Batch: 1, MedianUS: 5},
		{Robot: "r", Algo: "aba", Precision: "double", MaxThreads: 256, Shape: group, Batch: 1, MedianUS: 10},
		{Robot: "r", Algo: "aba", Precision: "double", MaxThreads: 256, Shape: group, Tier: "lite", Batch: 1, MedianUS: 12},
	}
	set := ChooseTiers(tables, cells)
	want := map[string]emit.LaunchTable{"r": {
		"aba":  {"float": {MaxThreads: 256, Tier: "minimal", Steps: steps}, "double": {MaxThreads: 256, Steps: steps}},
		"minv": {"float": {MaxThreads: 256, Tier: "minimal", Steps: steps}}, // not timed at other tiers: kept
	}}
	if d := cmp.Diff(want, tables); d != "" {
		t.Errorf("ChooseTiers (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"r aba double", "r aba float"}, set); d != "" {
		t.Errorf("ChooseTiers reported (-want +got):\n%s", d)
	}
}
