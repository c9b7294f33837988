package device_test

import (
	"math"
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
				want[(int(x)+1000)*bins/2000]++
			}
		}
		assert.Equal(t, want, hist.Host(), "bins=%d", bins)
		done()
	}
}

// TestHistogramEvenValuesAtTheEdges: int64 values just below an upper
// bound that float64 rounds up to are counted, a float64 range wider than
// float64 holds is split evenly, and Halves are binned by value.
func TestHistogramEvenValuesAtTheEdges(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	ints := gpu.FromHost(d, "ints", []int64{0, math.MaxInt64 - 1, math.MaxInt64 - 1000})
	hist := gpu.Alloc[int32](d, "hist", 2)
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, ints, hist, 0, math.MaxInt64))
	assert.Equal(t, []int32{1, 2}, hist.Host())

	wide := gpu.FromHost(d, "wide", []float64{-1e308, 1e308})
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, wide, hist, -math.MaxFloat64, math.MaxFloat64))
	assert.Equal(t, []int32{1, 1}, hist.Host())

	h := gpu.HalfFromFloat32
	halves := gpu.FromHost(d, "halves", []gpu.Half{h(1), h(2), h(3), h(-0.5), h(0.5)})
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, halves, hist, h(0), h(4)))
	assert.Equal(t, []int32{2, 2}, hist.Host(), "0.5 and 1 below 2, 2 and 3 above; -0.5 outside")
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, halves, hist, h(-1), h(1)), "-1 is below 1 by value")
	assert.Equal(t, []int32{1, 1}, hist.Host())
}

// TestHistogramEvenIntegerBoundaries: an integer on a bin's lower edge
// falls in that bin, as (x-lower)*bins/(upper-lower) computed exactly
// says (49 of [0, 98) in 2 bins is bin 1, where 49*(2/98) in float64 is
// below 1), for every bin count up to 64 and range up to 200, and for
// int64 and uint64 ranges too wide for a float64 to hold their values.
func TestHistogramEvenIntegerBoundaries(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	for bins := 1; bins <= 64; bins++ {
		hist := gpu.Alloc[int32](d, "hist", bins)
		for upper := int32(bins); upper <= 200; upper += 7 {
			host := make([]int32, upper)
			want := make([]int32, bins)
			for x := range upper {
				host[x] = x
				want[int(x)*bins/int(upper)]++
			}
			require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, gpu.FromHost(d, "in", host), hist, 0, upper))
			require.Equal(t, want, hist.Host(), "bins=%d upper=%d", bins, upper)
		}
	}
	wide := gpu.FromHost(d, "wide", []int64{math.MinInt64, -1, 0, math.MaxInt64 - 1})
	hist := gpu.Alloc[int32](d, "hist", 2)
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, wide, hist, math.MinInt64, math.MaxInt64))
	assert.Equal(t, []int32{2, 2}, hist.Host(), "-1 is below the middle, 0 above it")
	big := gpu.FromHost(d, "big", []uint64{1<<63 - 1, 1 << 63, math.MaxUint64 - 1})
	require.NoError(t, device.HistogramEven(ctx, d, gpu.LaunchConfig{}, big, hist, 0, math.MaxUint64))
	assert.Equal(t, []int32{1, 2}, hist.Host())
}
