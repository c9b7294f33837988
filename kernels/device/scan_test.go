package device_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func TestInclusiveScan(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 2, 1000)
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", n)
		require.NoError(t, device.InclusiveScan(ctx, d, cfg, in, out, gpu.Add[int32]))
		want := make([]int32, n)
		var sum int32
		for i, v := range host {
			sum += v
			want[i] = sum
		}
		assert.Equal(t, want, out.Host(), "n=%d", n)
		done()
	}
}

func TestExclusiveScan(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := make([]float64, n)
		for i, v := range randInt32s(n, 3, 1000) {
			host[i] = float64(v)
		}
		buf := gpu.FromHost(d, "buf", host)
		require.NoError(t, device.ExclusiveScan(ctx, d, cfg, buf, buf, 5, gpu.Add[float64])) // in place
		want := make([]float64, n)
		sum := 5.0
		for i, v := range host {
			want[i] = sum
			sum += v
		}
		assert.Equal(t, want, buf.Host(), "n=%d", n)
		done()
	}
}

// TestScanOrder scans with an op that is associative but not commutative,
// the first operand, and a block smaller than a warp.
func TestScanOrder(t *testing.T) {
	first := func(a, _ int64) int64 { return a }
	for _, n := range sizes(t)[1:4] { // up to 2048
		d, cfg, done := checked(t)
		host := make([]int64, n)
		for i := range host {
			host[i] = int64(i) + 10
		}
		cfg.Block.X = 20
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int64](d, "out", n)
		require.NoError(t, device.InclusiveScan(ctx, d, cfg, in, out, first))
		require.NoError(t, device.ExclusiveScan(ctx, d, cfg, in, in, -1, first))
		incl, excl := out.Host(), in.Host()
		for i := range n {
			assert.Equal(t, int64(10), incl[i], "n=%d, inclusive %d", n, i)
			assert.Equal(t, int64(-1), excl[i], "n=%d, exclusive %d", n, i)
		}
		done()
	}
}

func TestScanErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in, out := gpu.Alloc[int32](d, "in", 10), gpu.Alloc[int32](d, "out", 9)
	err := device.InclusiveScan(ctx, d, gpu.LaunchConfig{}, in, out, gpu.Add[int32])
	assert.EqualError(t, err, "device.InclusiveScan: out has length 9; it needs at least 10")
}
