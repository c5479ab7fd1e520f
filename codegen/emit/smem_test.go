package emit

import (
	"testing"

	"github.com/grid-rbd/grid-rbd/codegen/model"
	"github.com/grid-rbd/grid-rbd/codegen/urdf"
	"github.com/grid-rbd/grid-rbd/internal/testrobots"
)

// hopperSmemBytes is the most dynamic shared memory one block may use on sm_90 (H100, H200).
const hopperSmemBytes = 232448

// TestKernelsFitHopperSharedMemory checks that every entry point of every shared robot fits one block's
// shared memory on sm_90 in double, so that no launch there fails for want of it.
func TestKernelsFitHopperSharedMemory(t *testing.T) {
	for _, tr := range testrobots.All(t) {
		t.Run(tr.Name, func(t *testing.T) {
			r, err := model.Load(tr.Path, urdf.Options{}, model.Options{FreeFlyer: tr.FreeFlyer})
			if err != nil {
				t.Fatal(err)
			}
			g := &gen{r: r, w: &writer{}}
			for _, emitAlgo := range algorithms {
				emitAlgo(g)
			}
			for _, e := range g.entries {
				if bytes := 8 * e.smem(); bytes > hopperSmemBytes {
					t.Errorf("%s needs %d bytes of shared memory per block in double; sm_90 allows %d", e.name, bytes, hopperSmemBytes)
				}
			}
		})
	}
}
