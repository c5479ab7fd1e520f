package equiv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// Prepare writes into dir everything a CUDA equivalence run of the robot needs: grid.cuh, metadata.json,
// driver.cu, inputs.bin (n samples) and expected.bin (their reference outputs), generated with opt.
func Prepare(r *model.Robot, dir string, n int, seed uint64, opt emit.Options) error {
	gen, err := emit.Generate(r, opt)
	if err != nil {
		return err
	}
	m, err := emit.ParseMetadata(gen.Metadata)
	if err != nil {
		return err
	}
	samples := RandomSamples(r, n, seed)
	var in, exp bytes.Buffer
	put := func(buf *bytes.Buffer, v any) { binary.Write(buf, binary.LittleEndian, v) }
	put(&in, int32(n))
	put(&in, r.Gravity[:])
	put(&in, CondM(r, samples))
	for _, a := range m.Algorithms {
		for _, input := range a.Inputs {
			for _, s := range samples {
				v, err := s.Input(input.Name)
				if err != nil {
					return err
				}
				put(&in, v)
			}
		}
		for _, f := range Selectors(a, len(m.Frames)) {
			outs := make([][][]float64, n)
			for k, s := range samples {
				if outs[k], err = Reference(r, a.Name, s, f); err != nil {
					return err
				}
			}
			for o := range a.Outputs {
				for k := range samples {
					put(&exp, outs[k][o])
				}
			}
		}
	}
	shapes := make([]string, len(Shapes))
	for i, s := range Shapes {
		shapes[i] = fmt.Sprintf("grid::LaunchShape{%d, %d}", s[0], s[1])
	}
	driver := fmt.Sprintf("#define LAUNCH_SHAPES %s\n#define ROBOT %q\n", strings.Join(shapes, ", "), r.Name) + CUDADriver(m)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"grid.cuh": []byte(gen.Header), "metadata.json": gen.Metadata, "driver.cu": []byte(driver),
		"inputs.bin": in.Bytes(), "expected.bin": exp.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
