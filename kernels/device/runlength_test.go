package device_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func TestRunLengthEncode(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 7, 3) // values -1, 0, 1: runs of every length
		in := gpu.FromHost(d, "in", host)
		unique, counts := gpu.Alloc[int32](d, "unique", n), gpu.Alloc[int32](d, "counts", n)
		runs, err := device.RunLengthEncode(ctx, d, cfg, in, unique, counts)
		require.NoError(t, err)
		wantU, wantC := []int32{}, []int32{}
		for i, v := range host {
			if i == 0 || v != host[i-1] {
				wantU, wantC = append(wantU, v), append(wantC, 0)
			}
			wantC[len(wantC)-1]++
		}
		require.Equal(t, len(wantU), runs, "n=%d", n)
		assert.Equal(t, wantU, unique.Host()[:runs], "n=%d unique", n)
		assert.Equal(t, wantC, counts.Host()[:runs], "n=%d counts", n)
		done()
	}
}

func TestRunLengthEncodeShort(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []uint64{1, 1, 2, 3})
	_, err := device.RunLengthEncode(ctx, d, gpu.LaunchConfig{}, in, gpu.Alloc[uint64](d, "u", 3), gpu.Alloc[int32](d, "c", 2))
	assert.EqualError(t, err, "device.RunLengthEncode: counts has length 2; it needs at least 3")
}

// TestRunLengthEncodeLongRuns encodes runs that cross many threads' items,
// so a run's length is found by reading past the items of the thread that
// stores it, through threads where no run starts, and NaNs, each a run of
// its own.
func TestRunLengthEncodeLongRuns(t *testing.T) {
	d, cfg, done := checked(t)
	var host []float64
	wantU, wantC := []float64{}, []int32{}
	for i, length := range []int{5000, 1, 100, 33, 31, 2} {
		for range length {
			host = append(host, float64(i%2))
		}
		wantU, wantC = append(wantU, float64(i%2)), append(wantC, int32(length))
	}
	nan := math.NaN()
	host = append(host, nan, nan)
	in := gpu.FromHost(d, "in", host)
	unique, counts := gpu.Alloc[float64](d, "unique", len(host)), gpu.Alloc[int32](d, "counts", len(host))
	runs, err := device.RunLengthEncode(ctx, d, cfg, in, unique, counts)
	require.NoError(t, err)
	require.Equal(t, len(wantU)+2, runs)
	assert.Equal(t, wantU, unique.Host()[:runs-2])
	assert.True(t, math.IsNaN(unique.Host()[runs-2]) && math.IsNaN(unique.Host()[runs-1]), "NaNs")
	assert.Equal(t, append(wantC, 1, 1), counts.Host()[:runs])
	done()
}
