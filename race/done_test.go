package race_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// TestEndedWriter: on a device that holds one block at a time, block 0
// writes x[0], fencing or not, and ends; its state is recycled for the
// blocks that then read x[0]. The readers still see whether the writer
// fenced: a device fence orders the write, and its absence is a missing
// device fence, whether the write sat in a first record or in an entry.
func TestEndedWriter(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{false, true} {
		for _, fence := range []bool{false, true} {
			t.Run(fmt.Sprintf("full=%v/fence=%v", full, fence), func(t *testing.T) {
				d, err := gpu.NewDevice(gpu.DeviceConfig{SMs: 1, MaxBlocksPerSM: 1})
				require.NoError(t, err)
				x := gpu.Alloc[uint32](d, "x", 1)
				det := race.New(race.Options{Family: race.IGUARD, FullEntries: full})
				err = d.Launch(context.Background(), gpu.LaunchConfig{Name: "ended", Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 2}, Observer: det},
					func(t *gpu.Thread) {
						switch {
						case t.GlobalID() == 0:
							x.Store(t, 0, 1)
							if fence {
								t.Fence(scope.Device)
							}
						case t.BlockRank() > 0 && t.ThreadRank() == 0:
							x.Load(t, 0)
						}
					})
				require.NoError(t, err)
				rs := det.Reports()
				if fence {
					assert.Empty(t, rs)
					return
				}
				require.Len(t, rs, 1)
				assert.Equal(t, race.MissingDeviceFence, rs[0].Kind)
				assert.Equal(t, 0, rs[0].Previous.GlobalID, "the ended writer")
				assert.Equal(t, 2, rs[0].Current.GlobalID, "block 1's reader")
			})
		}
	}
}
