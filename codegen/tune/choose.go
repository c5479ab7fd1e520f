package tune

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

// Cell is one line of a sweep's output: an entry point timed at one shape and batch in a build whose
// kernels take at most MaxThreads threads per block.
type Cell struct {
	Robot, Algo, Precision string
	MaxThreads             int
	// Shape is zero for the baked shape.
	Shape emit.LaunchShape
	// Tier is the resource tier of a sample-group cell timed at another tier than TIER_SHARED ("lite",
	// "minimal"; the shape's "@lite" suffix), empty at TIER_SHARED.
	Tier  string
	Batch int
	// MedianUS is the median time per launch in microseconds; Missing the CUDA error where it did not run.
	MedianUS float64
	Missing  string
}

// ParseSweep reads the lines SweepDriver's program prints; other lines are ignored.
func ParseSweep(r io.Reader) ([]Cell, error) {
	var cells []Cell
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || (f[2] != "float" && f[2] != "double") {
			continue
		}
		c := Cell{Robot: f[0], Algo: f[1], Precision: f[2]}
		var err error
		if c.MaxThreads, err = strconv.Atoi(f[3]); err != nil {
			return nil, fmt.Errorf("line %d: max threads %q", line, f[3])
		}
		if f[4] != "baked" {
			shape, tier, _ := strings.Cut(f[4], "@")
			if _, err := fmt.Sscanf(shape, "%dx%d", &c.Shape.ThreadsPerSample, &c.Shape.SamplesPerBlock); err != nil {
				return nil, fmt.Errorf("line %d: shape %q", line, f[4])
			}
			if tier != "" && tier != "lite" && tier != "minimal" {
				return nil, fmt.Errorf("line %d: tier %q in %q (want lite or minimal)", line, tier, f[4])
			}
			c.Tier = tier
		}
		if c.Batch, err = strconv.Atoi(f[5]); err != nil {
			return nil, fmt.Errorf("line %d: batch %q", line, f[5])
		}
		if f[6] == "missing" {
			c.Missing = strings.Join(f[7:], " ")
		} else if c.MedianUS, err = strconv.ParseFloat(f[6], 64); err != nil {
			return nil, fmt.Errorf("line %d: median %q", line, f[6])
		}
		cells = append(cells, c)
	}
	return cells, sc.Err()
}

// keepMargin is how much slower than the best a batch may run at the shape chosen for the next larger
// batch before it gets its own step: fewer steps, and no step for measurement noise.
const keepMargin = 1.05

// Choose picks, per robot, entry point and precision, the launch configuration from a sweep: the build
// (MaxThreads) and shape fastest at the largest batch, then, walking down the batches within that build,
// the shape of the next larger batch while it is within keepMargin of the fastest, else the fastest.
// Thresholds between steps sit at the geometric mean of the neighbouring batches.
func Choose(cells []Cell) map[string]emit.LaunchTable {
	type key struct{ robot, algo, precision string }
	groups := map[key][]Cell{}
	for _, c := range cells {
		// the launch tables run TIER_SHARED: cells of the other tiers are reported, not chosen
		if c.Missing == "" && (c.Shape.ThreadsPerSample > 0 || c.Shape == emit.LimbsShape) && c.Tier == "" {
			k := key{c.Robot, c.Algo, c.Precision}
			groups[k] = append(groups[k], c)
		}
	}
	out := map[string]emit.LaunchTable{}
	for k, cs := range groups {
		cfg, ok := chooseOne(cs)
		if !ok {
			continue
		}
		if out[k.robot] == nil {
			out[k.robot] = emit.LaunchTable{}
		}
		if out[k.robot][k.algo] == nil {
			out[k.robot][k.algo] = map[string]emit.LaunchConfig{}
		}
		out[k.robot][k.algo][k.precision] = cfg
	}
	return out
}

func chooseOne(cs []Cell) (emit.LaunchConfig, bool) {
	batchSet := map[int]bool{}
	for _, c := range cs {
		batchSet[c.Batch] = true
	}
	var batches []int
	for b := range batchSet {
		batches = append(batches, b)
	}
	sort.Ints(batches)
	largest := batches[len(batches)-1]
	// fastest (build, shape) at the largest batch; ties go to the smaller build, then the listing order
	var best *Cell
	for i := range cs {
		c := &cs[i]
		if c.Batch == largest && (best == nil || c.MedianUS < best.MedianUS ||
			(c.MedianUS == best.MedianUS && c.MaxThreads < best.MaxThreads)) {
			best = c
		}
	}
	if best == nil {
		return emit.LaunchConfig{}, false
	}
	time := map[int]map[emit.LaunchShape]float64{}
	for _, c := range cs {
		if c.MaxThreads != best.MaxThreads {
			continue
		}
		if time[c.Batch] == nil {
			time[c.Batch] = map[emit.LaunchShape]float64{}
		}
		time[c.Batch][c.Shape] = c.MedianUS
	}
	chosen := make([]emit.LaunchShape, len(batches))
	current := best.Shape
	for i := len(batches) - 1; i >= 0; i-- {
		fastest, fastestUS := current, math.Inf(1)
		for s, us := range time[batches[i]] {
			if us < fastestUS || (us == fastestUS && shapeLess(s, fastest)) {
				fastest, fastestUS = s, us
			}
		}
		if us, ok := time[batches[i]][current]; !ok || us > keepMargin*fastestUS {
			current = fastest
		}
		chosen[i] = current
	}
	cfg := emit.LaunchConfig{MaxThreads: best.MaxThreads}
	for i, s := range chosen {
		if i+1 < len(chosen) && chosen[i+1] == s {
			continue
		}
		step := emit.LaunchStep{LaunchShape: s}
		if i+1 < len(chosen) {
			step.MaxBatch = int(math.Sqrt(float64(batches[i]) * float64(batches[i+1])))
		}
		cfg.Steps = append(cfg.Steps, step)
	}
	return cfg, true
}

// shapeLess orders shapes for ties: fewer threads per sample, then fewer samples per block.
func shapeLess(a, b emit.LaunchShape) bool {
	if a.ThreadsPerSample != b.ThreadsPerSample {
		return a.ThreadsPerSample < b.ThreadsPerSample
	}
	return a.SamplesPerBlock < b.SamplesPerBlock
}
