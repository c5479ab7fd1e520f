package tune

import (
	"fmt"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

// SpliceBelow joins a configuration chosen from a sweep of the small batches (below) with the one already baked
// (above): below's shapes for batches up to n, above's for larger ones. A sweep of the batches where one
// sample's latency counts is cheap; its larger batches are not, and need not be re-timed. The two must come
// from builds of the same bounds; the result keeps above's tier (tune.ChooseTier sets it from its own sweep).
func SpliceBelow(below, above emit.LaunchConfig, n int) (emit.LaunchConfig, error) {
	if n <= 0 {
		return emit.LaunchConfig{}, fmt.Errorf("splice below batch %d: the batch must be positive", n)
	}
	if below.MaxThreads != above.MaxThreads {
		return emit.LaunchConfig{}, fmt.Errorf("splice below batch %d: the sweep's build has %d-thread bounds, the baked configuration %d",
			n, below.MaxThreads, above.MaxThreads)
	}
	out := emit.LaunchConfig{MaxThreads: above.MaxThreads, Tier: above.Tier}
	add := func(s emit.LaunchStep) {
		if k := len(out.Steps); k > 0 && out.Steps[k-1].LaunchShape == s.LaunchShape {
			out.Steps[k-1].MaxBatch = s.MaxBatch
			return
		}
		out.Steps = append(out.Steps, s)
	}
	for _, s := range below.Steps {
		if s.MaxBatch != 0 && s.MaxBatch < n {
			add(s)
			continue
		}
		add(emit.LaunchStep{MaxBatch: n, LaunchShape: s.LaunchShape})
		break
	}
	for _, s := range above.Steps {
		if s.MaxBatch == 0 || s.MaxBatch > n {
			add(s)
		}
	}
	return out, nil
}
