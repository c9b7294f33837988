package device_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
	"github.com/warpguard/warpguard/race"
)

// TestExecutors runs every primitive under the default detector, the
// device's observer, on both executors, on an input that takes two levels
// of combining launches and ends in a partial warp and block: the
// detector finds no race, and the results are right.
func TestExecutors(t *testing.T) {
	const n = 32*32*3 + 17
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			det := race.New(race.Options{})
			d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: det})
			require.NoError(t, err)
			cfg := gpu.LaunchConfig{Executor: ex, Block: gpu.Dim3{X: 40}}
			host := randInt32s(n, 14, 50)
			in := gpu.FromHost(d, "in", host)
			runAll(t, d, cfg, in, host)
			assert.Empty(t, reports(det), "races")
		})
	}
}

// runAll runs each primitive on in, whose contents are host, and checks
// what it returns against a loop's.
func runAll(t *testing.T, d *gpu.Device, cfg gpu.LaunchConfig, in gpu.Buffer[int32], host []int32) {
	n := len(host)
	out := gpu.Alloc[int32](d, "out", n)
	require.NoError(t, device.Reduce(ctx, d, cfg, in, out, 0, gpu.Add[int32]))
	assert.Equal(t, loopSum(host), out.Host()[0], "Reduce")

	require.NoError(t, device.ExclusiveScan(ctx, d, cfg, in, out, 0, gpu.Add[int32]))
	assert.Equal(t, loopSum(host[:n-1]), out.Host()[n-1], "ExclusiveScan")

	hist := gpu.Alloc[int32](d, "hist", 7)
	require.NoError(t, device.HistogramEven(ctx, d, cfg, in, hist, -25, 25))
	assert.Equal(t, int32(n), loopSum(hist.Host()), "HistogramEven")

	m, err := device.Select(ctx, d, cfg, in, out, even)
	require.NoError(t, err)
	assert.Equal(t, countEven(host), m, "Select")

	m, err = device.Partition(ctx, d, cfg, in, out, even)
	require.NoError(t, err)
	assert.Equal(t, countEven(host), m, "Partition")

	counts := gpu.Alloc[int32](d, "counts", n)
	m, err = device.RunLengthEncode(ctx, d, cfg, in, out, counts)
	require.NoError(t, err)
	assert.Equal(t, int32(n), loopSum(counts.Host()[:m]), "RunLengthEncode")

	offsets := gpu.FromHost(d, "offsets", []int32{0, 5, 5, int32(n)})
	require.NoError(t, device.SegmentedReduce(ctx, d, cfg, in, offsets, out, 0, gpu.Add[int32]))
	assert.Equal(t, []int32{loopSum(host[:5]), 0, loopSum(host[5:])}, out.Host()[:3], "SegmentedReduce")

	keys := gpu.FromHost(d, "keys", host)
	require.NoError(t, device.SortKeys(ctx, d, cfg, keys))
	assert.Equal(t, sorted(host), keys.Host(), "SortKeys")
}

func loopSum(xs []int32) int32 {
	var s int32
	for _, x := range xs {
		s += x
	}
	return s
}

func sorted(xs []int32) []int32 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
