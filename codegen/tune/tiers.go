package tune

import (
	"math"
	"slices"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
)

// ChooseTier picks the resource tier a launch configuration's sample-group steps run at, from a sweep's
// cells of one robot, entry point and precision (TIERS=all: the same group shapes timed at every tier). Each
// tier is scored over the batches the sweep measured whose step is a sample group, by the geometric mean of
// its time over TIER_SHARED's at that step's shape; a tier replaces TIER_SHARED only when it is keepMargin
// faster, and only when it ran every such cell. It returns "" (TIER_SHARED) where the configuration has no
// group step, the cells come from a build of other launch bounds, or no tier beats TIER_SHARED.
func ChooseTier(cfg emit.LaunchConfig, cells []Cell) string {
	type key struct {
		tier  string
		shape emit.LaunchShape
		batch int
	}
	time := map[key]float64{}
	batchSet := map[int]bool{}
	for _, c := range cells {
		if c.Missing == "" && c.MaxThreads == cfg.MaxThreads && c.Shape.ThreadsPerSample > 1 {
			time[key{c.Tier, c.Shape, c.Batch}] = c.MedianUS
			batchSet[c.Batch] = true
		}
	}
	best, bestScore := "", math.Log(1/keepMargin)
	for _, tier := range emit.Tiers[1:] {
		sum, n, complete := 0.0, 0, true
		for b := range batchSet {
			shape := stepShape(cfg, b)
			if shape.ThreadsPerSample <= 1 {
				continue
			}
			shared, okShared := time[key{"", shape, b}]
			at, ok := time[key{tier, shape, b}]
			if !okShared || !ok {
				complete = false
				break
			}
			sum += math.Log(at / shared)
			n++
		}
		if !complete || n == 0 {
			continue
		}
		if score := sum / float64(n); score < bestScore {
			best, bestScore = tier, score
		}
	}
	return best
}

// stepShape is the shape a configuration launches batch samples at.
func stepShape(cfg emit.LaunchConfig, batch int) emit.LaunchShape {
	for _, s := range cfg.Steps {
		if s.MaxBatch == 0 || batch <= s.MaxBatch {
			return s.LaunchShape
		}
	}
	return emit.LaunchShape{}
}

// ChooseTiers sets the tier of every configuration of tables (by robot, as the sweep names it) that the
// sweep timed at other tiers, by ChooseTier; it reports the configurations it set, "robot entry precision", sorted.
func ChooseTiers(tables map[string]emit.LaunchTable, cells []Cell) []string {
	type key struct{ robot, algo, precision string }
	byConfig := map[key][]Cell{}
	tiered := map[key]bool{}
	for _, c := range cells {
		k := key{c.Robot, c.Algo, c.Precision}
		byConfig[k] = append(byConfig[k], c)
		if c.Tier != "" && c.Missing == "" {
			tiered[k] = true
		}
	}
	var set []string
	for robot, table := range tables {
		for algo, byPrecision := range table {
			for precision, cfg := range byPrecision {
				k := key{robot, algo, precision}
				if !tiered[k] {
					continue
				}
				cfg.Tier = ChooseTier(cfg, byConfig[k])
				byPrecision[precision] = cfg
				set = append(set, robot+" "+algo+" "+precision)
			}
		}
	}
	slices.Sort(set)
	return set
}
