package tune

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

func TestSpliceBelow(t *testing.T) {
	step := func(maxBatch, g, s int) emit.LaunchStep {
		return emit.LaunchStep{MaxBatch: maxBatch, LaunchShape: emit.LaunchShape{ThreadsPerSample: g, SamplesPerBlock: s}}
	}
	cfg := func(tier string, steps ...emit.LaunchStep) emit.LaunchConfig {
		return emit.LaunchConfig{MaxThreads: 256, Tier: tier, Steps: steps}
	}
	tests := []struct {
		name         string
		below, above emit.LaunchConfig
		n            int
		want         emit.LaunchConfig
	}{
		{
			name:  "limbs at small batches, then the baked steps past n",
			below: cfg("", step(362, -1, 1), step(0, 128, 1)),
			above: cfg("lite", step(4, 256, 1), step(1024, 1, 32), step(16384, 1, 128), step(0, 1, 32)),
			n:     1024,
			want:  cfg("lite", step(362, -1, 1), step(1024, 128, 1), step(16384, 1, 128), step(0, 1, 32)),
		},
		{
			name:  "a shape on both sides of n becomes one step",
			below: cfg("", step(32, -1, 1), step(0, 1, 64)),
			above: cfg("", step(0, 1, 64)),
			n:     1024,
			want:  cfg("", step(32, -1, 1), step(0, 1, 64)),
		},
		{
			name:  "below's steps past n are dropped",
			below: cfg("", step(16, -1, 1), step(2048, 32, 4), step(0, 1, 32)),
			above: cfg("", step(8192, 1, 128), step(0, 1, 256)),
			n:     1024,
			want:  cfg("", step(16, -1, 1), step(1024, 32, 4), step(8192, 1, 128), step(0, 1, 256)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SpliceBelow(tc.below, tc.above, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("SpliceBelow (-want +got):\n%s", d)
			}
			for _, b := range []int{1, 16, 300, 1000, 1024, 1025, 5000, 20000, 100000} {
				from := tc.above
				if b <= tc.n {
					from = tc.below
				}
				if s, w := stepShape(got, b), stepShape(from, b); s != w {
					t.Errorf("batch %d launches %v, want %v", b, s, w)
				}
			}
		})
	}
	if _, err := SpliceBelow(emit.LaunchConfig{MaxThreads: 1024}, cfg(""), 64); err == nil {
		t.Error("splicing builds of different bounds: no error")
	}
}
