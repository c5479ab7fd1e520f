package emit

import (
	"fmt"
	"slices"
	"strings"
)

// LaunchShape is how a batched kernel maps samples to threads (kernels/grid/launch.cuh): ThreadsPerSample
// threads cooperate on each sample and SamplesPerBlock samples share a block.
type LaunchShape struct {
	ThreadsPerSample int `json:"threads_per_sample"`
	SamplesPerBlock  int `json:"samples_per_block"`
}

func (s LaunchShape) threads() int { return s.ThreadsPerSample * s.SamplesPerBlock }

// LimbsShape is grid::LIMBS_LAUNCH_SHAPE: a block per sample, a warp per limb of the tree, for the entry points
// with a limb kernel (entry.limbs).
var LimbsShape = LaunchShape{-1, 1}

func (s LaunchShape) String() string {
	return fmt.Sprintf("%dx%d", s.ThreadsPerSample, s.SamplesPerBlock)
}

// valid mirrors grid::valid_launch_shape: groups of 2..32 threads sharing a block are powers of two, larger
// ones multiples of 32 with at most 15 per block (named barriers).
func (s LaunchShape) valid(maxThreads int) bool {
	g := s.ThreadsPerSample
	switch {
	case s == LimbsShape: // not a sample group: its kernel's bounds are its own
		return true
	case g < 1 || s.SamplesPerBlock < 1 || s.threads() > maxThreads:
		return false
	case s.SamplesPerBlock == 1 || g == 1:
		return true
	case g <= 32:
		return g&(g-1) == 0
	default:
		return g%32 == 0 && s.SamplesPerBlock <= 15
	}
}

// LaunchStep applies Shape to launches of at most MaxBatch samples; MaxBatch 0 means any batch.
type LaunchStep struct {
	MaxBatch int `json:"max_batch"`
	LaunchShape
}

// LaunchConfig is one kernel's baked launch configuration in one precision: its __launch_bounds__ (which
// sets ptxas's register budget), the shape by batch size and the resource tier its sample-group shapes run
// at (Tier: "shared", "lite" or "minimal"; empty is TIER_SHARED).
type LaunchConfig struct {
	MaxThreads int          `json:"max_threads"`
	Steps      []LaunchStep `json:"steps"`
	Tier       string       `json:"tier,omitempty"`
}

// usesLimbs reports whether a step launches the limb kernel.
func (c LaunchConfig) usesLimbs() bool {
	return slices.ContainsFunc(c.Steps, func(s LaunchStep) bool { return s.LaunchShape == LimbsShape })
}

// Tiers are the resource tiers by their names in the launch tables, as grid/launch.cuh numbers them.
var Tiers = []string{"shared", "lite", "minimal"}

// tierName returns a tier's name, "shared" for "".
func tierName(tier string) string {
	if tier == "" {
		return "shared"
	}
	return tier
}

// tierNumber returns a tier's value in grid/launch.cuh (TIER_SHARED 0, TIER_LITE 1, TIER_MINIMAL 2).
func tierNumber(tier string) int { return slices.Index(Tiers, tierName(tier)) }

// tierConstant returns the C++ constant of a tier name ("" is TIER_SHARED).
func tierConstant(tier string) string { return "TIER_" + strings.ToUpper(tierName(tier)) }

// Validate checks that the steps ascend to a final any-batch step and fit MaxThreads, and the tier's name.
func (c LaunchConfig) Validate() error {
	if c.MaxThreads < 1 || c.MaxThreads > 1024 {
		return fmt.Errorf("max_threads %d is outside 1..1024", c.MaxThreads)
	}
	if c.Tier != "" && !slices.Contains(Tiers, c.Tier) {
		return fmt.Errorf("tier %q is none of %s", c.Tier, strings.Join(Tiers, ", "))
	}
	if len(c.Steps) == 0 || c.Steps[len(c.Steps)-1].MaxBatch != 0 {
		return fmt.Errorf("the last step must have max_batch 0 (any batch)")
	}
	prev := 0
	for i, s := range c.Steps {
		if i < len(c.Steps)-1 && s.MaxBatch <= prev {
			return fmt.Errorf("step %d: max_batch %d does not ascend", i, s.MaxBatch)
		}
		prev = s.MaxBatch
		if !s.valid(c.MaxThreads) {
			return fmt.Errorf("step %d: shape %s (threads per sample x samples per block) is not a supported shape within %d threads",
				i, s.LaunchShape, c.MaxThreads)
		}
	}
	return nil
}

// LaunchTable holds launch configurations by entry point and precision ("float" or "double"); missing
// ones fall back to Options.BlockThreads threads per sample, one sample per block.
type LaunchTable map[string]map[string]LaunchConfig

// precisions are the C++ types a LaunchTable names, in emission order.
var precisions = []string{"float", "double"}

// threadKernelDefault is the launch of template entries without a tuned configuration: one sample per
// thread, 128 threads per block, registers budgeted for 256.
var threadKernelDefault = LaunchConfig{MaxThreads: 256, Steps: []LaunchStep{{LaunchShape: LaunchShape{1, 128}}}}

// launchConfig returns the configuration of an entry point in a precision.
// Options.Tier, when set, replaces its tier.
func (o Options) launchConfig(e *entry, precision string) LaunchConfig {
	c, ok := o.Launch[e.name][precision]
	switch {
	case ok:
	case e.algorithm != "":
		c = threadKernelDefault
	default:
		c = LaunchConfig{MaxThreads: 1024, Steps: []LaunchStep{{LaunchShape: LaunchShape{o.BlockThreads, 1}}}}
	}
	if o.Tier != "" {
		c.Tier = o.Tier
	}
	return c
}

// validateLaunch checks every configuration of the table against the entry points that exist.
func (o Options) validateLaunch(entries []*entry) error {
	known := map[string]*entry{}
	for _, e := range entries {
		known[e.name] = e
	}
	for algo, byPrecision := range o.Launch {
		e := known[algo]
		if e == nil {
			return fmt.Errorf("launch configuration for unknown entry point %q", algo)
		}
		for p, c := range byPrecision {
			if p != "float" && p != "double" {
				return fmt.Errorf("launch configuration of %s: precision %q is neither float nor double", algo, p)
			}
			if err := c.Validate(); err != nil {
				return fmt.Errorf("launch configuration of %s (%s): %w", algo, p, err)
			}
			if c.usesLimbs() && !e.limbs {
				return fmt.Errorf("launch configuration of %s (%s): shape %s, but %s has no limb kernel for this robot",
					algo, p, LimbsShape, algo)
			}
		}
	}
	return nil
}

// emitLaunchConfig writes <NAME>_MAX_THREADS<T>(), <NAME>_LAUNCH_SHAPE<T>(num_samples), the entry's number
// GRID_ALGO_<NAME> and its launch_cfg<GRID_ALGO_<NAME>, T> (the baked tier, bounds and shapes together).
func emitLaunchConfig(w *writer, e *entry, opt Options) {
	up := e.upper()
	cfg := map[string]LaunchConfig{}
	for _, p := range precisions {
		cfg[p] = opt.launchConfig(e, p)
	}
	w.line("/// Most threads per block %s_kernel takes: its __launch_bounds__, from which ptxas budgets registers.", e.name)
	w.line("/// Defining GRID_MAX_THREADS overrides it for every kernel.")
	w.line("template <typename T>")
	w.block(fmt.Sprintf("constexpr int %s_MAX_THREADS()", up), func() {
		w.line("return max_threads_override(std::is_same<T, float>::value ? %d : %d);", cfg["float"].MaxThreads, cfg["double"].MaxThreads)
	})
	w.line("/// Launch shape %s_launch uses for num_samples samples, chosen per precision and batch size.", e.name)
	w.line("template <typename T>")
	w.block(fmt.Sprintf("constexpr LaunchShape %s_LAUNCH_SHAPE(int num_samples)", up), func() {
		w.line("(void)num_samples;")
		for _, p := range precisions {
			var body []string
			for _, s := range cfg[p].Steps {
				ret := fmt.Sprintf("return LaunchShape{%d, %d};", s.ThreadsPerSample, s.SamplesPerBlock)
				if s.MaxBatch > 0 {
					ret = fmt.Sprintf("if (num_samples <= %d) %s", s.MaxBatch, ret)
				}
				body = append(body, ret)
			}
			w.line("if (std::is_same<T, %s>::value) {", p)
			for _, l := range body {
				w.line("    %s", l)
			}
			w.line("}")
		}
		w.line("return LaunchShape{1, 1};")
	})
	w.line("#define GRID_ALGO_%s %d", up, e.number)
	w.line("/// %s's baked launch configuration: TIER, the resource tier its sample-group shapes run at where the", e.name)
	w.line("/// launch is left to the configuration (the XLA FFI handlers; TIER_SHARED where the robot was not tuned),")
	w.line("/// MAX_THREADS and shape(num_samples).")
	w.line("template <typename T>")
	w.block(fmt.Sprintf("struct launch_cfg<GRID_ALGO_%s, T>", up), func() {
		w.line("static constexpr int TIER = std::is_same<T, float>::value ? %s : %s;",
			tierConstant(cfg["float"].Tier), tierConstant(cfg["double"].Tier))
		w.line("static constexpr int MAX_THREADS = %s_MAX_THREADS<T>();", up)
		w.line("static constexpr LaunchShape shape(int num_samples) { return %s_LAUNCH_SHAPE<T>(num_samples); }", up)
	}, ";")
	w.blank()
}
