//go:build mage

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/tune"
)

// tuneDir holds what a launch-shape sweep needs on the GPU machine.
var tuneDir = filepath.Join("build", "tune")

// TunePrep writes the launch-shape sweep of the benchmark robots into build/tune/<robot>/ (grid.cuh with
// the untuned default launch configuration, metadata.json, sweep.cu and entries, the entry points it calls). On a machine with a GPU and nvcc:
// bash bench/launch/sweep.sh build/tune RESULTS_DIR, then here: go tool mage tune RESULTS_DIR/sweep.txt.
// -robots=a,b picks a subset; -roll=auto|always|never as for Gen (a rolled robot's sweep measures the rolled
// kernels; do not merge it into the tuned tables of the unrolled robot of the same name). -tuned keeps the
// baked launch tables instead: an entry point whose launch runs others' (forward_dynamics_gradient's phases
// at one thread per sample) is then measured with those at their tuned shapes, as the library runs it.
func TunePrep(robots, roll *string, tuned *bool) error {
	list, err := selectBenchRobots(robots)
	if err != nil {
		return err
	}
	opt := emit.Options{Untuned: tuned == nil || !*tuned}
	if opt.Roll, err = rollFlag(roll); err != nil {
		return err
	}
	if err := os.RemoveAll(tuneDir); err != nil {
		return err
	}
	for _, rb := range list {
		r, err := loadRobot(rb.urdf, &rb.floating, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", rb.name, err)
		}
		gen, err := emit.Generate(r, opt)
		if err != nil {
			return err
		}
		m, err := emit.ParseMetadata(gen.Metadata)
		if err != nil {
			return err
		}
		dir := filepath.Join(tuneDir, rb.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for name, data := range map[string]string{"grid.cuh": gen.Header, "metadata.json": string(gen.Metadata),
			"sweep.cu": tune.SweepDriver(m), "entries": strings.Join(tune.SweepEntries(m), ",") + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				return err
			}
		}
		fmt.Printf("%s: %s\n", rb.name, dir)
	}
	return nil
}

// Tune turns a sweep's output (bench/launch/sweep.sh's sweep.txt) into the tuned launch configurations the
// generator bakes, codegen/emit/launch_configs/h200.json: the entry points the sweep measured get new choices,
// the others keep theirs. A sweep with TIERS=all also bakes the resource tier of each configuration it timed
// at every tier (tune.ChooseTier).
// -gpu names the device (default: the GPU line the sweep recorded); -source says where the results live;
// -tiers bakes the tiers alone and keeps every launch shape (a sweep of a few shapes and batches); -below=N
// bakes the sweep's choices for batches up to N and keeps the file's above N (a sweep of the small batches,
// tune.SpliceBelow).
func Tune(results string, gpu, source *string, tiers *bool, below *int) error {
	f, err := os.Open(results)
	if err != nil {
		return err
	}
	defer f.Close()
	cells, err := tune.ParseSweep(f)
	if err != nil {
		return fmt.Errorf("%s: %w", results, err)
	}
	if len(cells) == 0 {
		return fmt.Errorf("%s holds no sweep lines", results)
	}
	chosen := tune.Choose(cells)
	if tiers != nil && *tiers {
		chosen = nil
	}
	fingerprints := map[string]string{}
	list, err := selectBenchRobots(nil)
	if err != nil {
		return err
	}
	for _, rb := range list {
		r, err := loadRobot(rb.urdf, &rb.floating, nil)
		if err != nil {
			return err
		}
		fingerprints[r.Name] = emit.Fingerprint(r)
	}
	file, err := emit.LoadLaunchFile(emit.TunedGPU)
	if err != nil {
		return err
	}
	if file.Robots == nil {
		file.Robots = map[string]emit.LaunchTable{}
	}
	var names []string
	for robot, table := range chosen {
		fp, ok := fingerprints[robot]
		if !ok {
			return fmt.Errorf("sweep robot %q is not a benchmark robot", robot)
		}
		// a sweep of some entry points (ALGORITHMS=...) replaces their choices and keeps the others'
		merged := file.Robots[fp]
		if merged == nil {
			merged = emit.LaunchTable{}
		}
		for entry, byPrecision := range table {
			if merged[entry] == nil {
				merged[entry] = map[string]emit.LaunchConfig{}
			}
			for precision, c := range byPrecision {
				if below != nil && *below > 0 {
					old, ok := merged[entry][precision]
					if !ok {
						return fmt.Errorf("%s %s %s: -below=%d needs a baked configuration to keep above it", robot, entry, precision, *below)
					}
					if c, err = tune.SpliceBelow(c, old, *below); err != nil {
						return fmt.Errorf("%s %s %s: %w", robot, entry, precision, err)
					}
				}
				merged[entry][precision] = c
			}
		}
		file.Robots[fp] = merged
		names = append(names, robot)
	}
	// the tiers of the configurations now in the file, by the sweep's robot names
	byName := map[string]emit.LaunchTable{}
	for name, fp := range fingerprints {
		if table, ok := file.Robots[fp]; ok {
			byName[name] = table
		}
	}
	for _, set := range tune.ChooseTiers(byName, cells) {
		robot, _, _ := strings.Cut(set, " ")
		if !slices.Contains(names, robot) {
			names = append(names, robot)
		}
	}
	sort.Strings(names)
	if gpu != nil && *gpu != "" {
		file.GPU = *gpu
	}
	if source != nil && *source != "" {
		file.Source = *source
	}
	data, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join("codegen", "emit", "launch_configs", emit.TunedGPU+".json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: tuned %s from %d cells\n", path, strings.Join(names, ", "), len(cells))
	return nil
}
