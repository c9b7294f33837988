package device_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func TestHistogramEven(t *testing.T) {
	for _, bins := range []int{1, 10, 3000} { // 3000 bins take the global path
		for _, n := range sizes(t) {
			d, cfg, done := checked(t)
			host := make([]float32, n)
			for i, v := range randInt32s(n, 4, 1200) {
				host[i] = float32(v) / 1000 // some below -0.5 and above 0.5
			}
			in, hist := gpu.FromHost(d, "in", host), gpu.Alloc[uint32](d, "hist", bins)
			hist.Fill(99) // overwritten
			require.NoError(t, device.HistogramEven(ctx, d, cfg, in, hist, -0.5, 0.5))
			want := make([]uint32, bins)
			for _, x := range host {
				if x >= -0.5 && x < 0.5 {
					want[min(int((float64(x)+0.5)*float64(bins)), bins-1)]++
				}
			}
			assert.Equal(t, want, hist.Host(), "bins=%d n=%d", bins, n)
			done()
		}
	}
}

func TestHistogramErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.Alloc[int32](d, "in", 4)
	err := device.HistogramEven(ctx, d, gpu.LaunchConfig{}, in, gpu.Alloc[int32](d, "hist", 4), 3, 3)
	assert.EqualError(t, err, "device.HistogramEven: lower 3 is not below upper 3")
	err = device.HistogramEven(ctx, d, gpu.LaunchConfig{}, in, gpu.Buffer[int32]{}, 0, 3)
	assert.EqualError(t, err, "device.HistogramEven: hist has length 0; it needs at least 1")
}

// TestHistogramRows counts with blocks that end in a partial warp, so the
// rows are per warp of the grid, not per full warp of the blocks, and at
// the most bins that take rows and the fewest that do not.
func TestHistogramRows(t *testing.T) {
	for _, bins := range []int{1024, 1025} {
		d, cfg, done := checked(t)
		cfg.Block.X = 100
		host := make([]int32, 20_000)
		for i, v := range randInt32s(len(host), 15, 3000) {
			host[i] = v
		}
		in, hist := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "hist", bins)
		require.NoError(t, device.HistogramEven(ctx, d, cfg, in, hist, -1000, 1000))
		want := make([]int32, bins)
		for _, x := range host {
			if x >= -1000 && x < 1000 {
				want[min(int((float64(x)+1000)*(float64(bins)/2000)), bins-1)]++ // the scale first, as HistogramEven computes it
			}
		}
		assert.Equal(t, want, hist.Host(), "bins=%d", bins)
		done()
	}
}
