package tune

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

func TestParseSweep(t *testing.T) {
	in := `# launch-shape sweep
iiwa14 aba float 256 1x32 65536 305.248 301.1 30
iiwa14 aba float 1024 baked 1 57.5 55.0 30
atlas aba double 256 1x128 4096 missing cudaErrorInvalidValue
g1_29dof minv double 256 64x1@minimal 1 55.2 54.0 30
swept iiwa
`
	got, err := ParseSweep(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Cell{
		{Robot: "iiwa14", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: emit.LaunchShape{ThreadsPerSample: 1, SamplesPerBlock: 32}, Batch: 65536, MedianUS: 305.248},
		{Robot: "iiwa14", Algo: "aba", Precision: "float", MaxThreads: 1024, Batch: 1, MedianUS: 57.5},
		{Robot: "atlas", Algo: "aba", Precision: "double", MaxThreads: 256, Shape: emit.LaunchShape{ThreadsPerSample: 1, SamplesPerBlock: 128}, Batch: 4096, Missing: "cudaErrorInvalidValue"},
		{Robot: "g1_29dof", Algo: "minv", Precision: "double", MaxThreads: 256, Shape: emit.LaunchShape{ThreadsPerSample: 64, SamplesPerBlock: 1}, Tier: "minimal", Batch: 1, MedianUS: 55.2},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseSweep (-want +got):\n%s", d)
	}
	for _, bad := range []string{"r a float 256 1y32 16 1 1 1\n", "r a float 256 32x1@huge 16 1 1 1\n"} {
		if _, err := ParseSweep(strings.NewReader(bad)); err == nil {
			t.Errorf("a malformed shape was accepted: %q", bad)
		}
	}
}

func TestChoose(t *testing.T) {
	shape := func(g, s int) emit.LaunchShape { return emit.LaunchShape{ThreadsPerSample: g, SamplesPerBlock: s} }
	cell := func(bound int, sh emit.LaunchShape, batch int, us float64) Cell {
		return Cell{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: bound, Shape: sh, Batch: batch, MedianUS: us}
	}
	for _, tc := range []struct {
		name  string
		cells []Cell
		want  emit.LaunchConfig
	}{{
		name: "one shape wins everywhere",
		cells: []Cell{
			cell(256, shape(1, 32), 1, 5), cell(256, shape(64, 1), 1, 6),
			cell(256, shape(1, 32), 65536, 100), cell(256, shape(64, 1), 65536, 900),
		},
		want: emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{{LaunchShape: shape(1, 32)}}},
	}, {
		name: "small batches prefer wide groups; threshold at the geometric mean",
		cells: []Cell{
			cell(256, shape(1, 32), 1, 50), cell(256, shape(64, 1), 1, 10),
			cell(256, shape(1, 32), 16, 50), cell(256, shape(64, 1), 16, 10),
			cell(256, shape(1, 32), 256, 60), cell(256, shape(64, 1), 256, 80),
			cell(256, shape(1, 32), 65536, 100), cell(256, shape(64, 1), 65536, 900),
		},
		want: emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{
			{MaxBatch: 64, LaunchShape: shape(64, 1)}, {LaunchShape: shape(1, 32)}}},
	}, {
		name: "within the margin the larger batch's shape is kept",
		cells: []Cell{
			cell(256, shape(1, 32), 1, 10.4), cell(256, shape(64, 1), 1, 10),
			cell(256, shape(1, 32), 65536, 100), cell(256, shape(64, 1), 65536, 900),
		},
		want: emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{{LaunchShape: shape(1, 32)}}},
	}, {
		name: "the build fastest at the largest batch decides the bound; baked and missing cells are ignored",
		cells: []Cell{
			cell(1024, shape(128, 1), 65536, 80), cell(1024, shape(128, 1), 1, 9),
			cell(256, shape(1, 32), 65536, 100), cell(256, shape(1, 32), 1, 5),
			cell(1024, emit.LaunchShape{}, 65536, 1),
			{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: shape(2, 64), Batch: 65536, Missing: "x"},
		},
		want: emit.LaunchConfig{MaxThreads: 1024, Steps: []emit.LaunchStep{{LaunchShape: shape(128, 1)}}},
	}, {
		name: "cells at other resource tiers are not chosen",
		cells: []Cell{
			cell(256, shape(1, 32), 1, 5), cell(256, shape(1, 32), 65536, 100),
			{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: shape(64, 1), Tier: "lite", Batch: 1, MedianUS: 1},
			{Robot: "r", Algo: "aba", Precision: "float", MaxThreads: 256, Shape: shape(64, 1), Tier: "lite", Batch: 65536, MedianUS: 1},
		},
		want: emit.LaunchConfig{MaxThreads: 256, Steps: []emit.LaunchStep{{LaunchShape: shape(1, 32)}}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := Choose(tc.cells)["r"]["aba"]["float"]
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Choose (-want +got):\n%s", d)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("chosen configuration invalid: %v", err)
			}
		})
	}
}
