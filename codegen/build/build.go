// Package build turns a robot description into what grid_rbd loads: it writes the generated header, the
// metadata, the XLA FFI bindings and the model JSON of a parsed robot in one pass, and compiles the XLA FFI
// handler libraries (xla_ffi/) against them. The mage targets find the tools and call it.
package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grid-rbd/grid-rbd/codegen/emit"
	"github.com/grid-rbd/grid-rbd/codegen/model"
)

// The files of a robot's build folder.
const (
	HeaderFile   = "grid.cuh"
	MetadataFile = "metadata.json"
	// ModelFile is the kinematic tree as JSON, for tools that model the robot themselves (the pure-JAX
	// benchmark peer and its oracle test).
	ModelFile   = "model.json"
	CPULibrary  = "libgrid_rbd_cpu.so"
	CUDALibrary = "libgrid_rbd_cuda.so"
)

// Generate writes a robot's grid.cuh, metadata.json, grid_ffi.h and model.json into dir (created if need
// be) and returns what the generator produced.
func Generate(r *model.Robot, dir string, opt emit.Options) (*emit.Output, error) {
	out, err := emit.Generate(r, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var modelJSON strings.Builder
	if err := r.WriteJSON(&modelJSON); err != nil {
		return nil, err
	}
	for name, data := range map[string]string{
		HeaderFile: out.Header, MetadataFile: string(out.Metadata), emit.FFIFile: out.FFI, ModelFile: modelJSON.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return out, nil
}
