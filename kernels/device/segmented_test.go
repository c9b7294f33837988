package device_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func TestSegmentedReduce(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 8, 1000)
		r := rand.New(rand.NewPCG(9, uint64(n)))
		offs := []int32{0}
		for last := 0; last < n; {
			last = min(n, last+r.IntN(100)) // empty segments too
			offs = append(offs, int32(last))
		}
		in, offsets := gpu.FromHost(d, "in", host), gpu.FromHost(d, "offsets", offs)
		out := gpu.Alloc[int32](d, "out", len(offs)-1)
		cfg.Block.X = 100 // a partial last warp
		require.NoError(t, device.SegmentedReduce(ctx, d, cfg, in, offsets, out, 1, gpu.Add[int32]))
		want := make([]int32, len(offs)-1)
		for s := range want {
			want[s] = 1
			for _, v := range host[offs[s]:offs[s+1]] {
				want[s] += v
			}
		}
		assert.Equal(t, want, out.Host(), "n=%d", n)
		done()
	}
}

func TestSegmentedReduceBadOffsets(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.Alloc[int32](d, "in", 10)
	offsets := gpu.FromHost(d, "offsets", []int32{0, 4, 3, 10})
	err := device.SegmentedReduce(ctx, d, gpu.LaunchConfig{}, in, offsets, gpu.Alloc[int32](d, "out", 3), 0, gpu.Add[int32])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device.SegmentedReduce: segment 1 is offsets[1:3] = [4, 3); want 0 <= begin <= end <= 10, the length of in (called at kernels/device/segmented_test.go:")
	var pe *gpu.PanicError
	assert.False(t, errors.As(err, &pe), "found before any launch, not a kernel's panic: %v", err)
}
