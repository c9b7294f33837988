package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
	"github.com/warpguard/warpguard/race/racetest"
)

func TestReduce(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 1, 1000)
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", 2)
		require.NoError(t, device.Reduce(ctx, d, cfg, in, out, 3, gpu.Add[int32]))
		want := int32(3)
		for _, v := range host {
			want += v
		}
		assert.Equal(t, []int32{want, 0}, out.Host(), "n=%d", n)
		done()
	}
}

// TestReduceOrder reduces with an op that is associative but not
// commutative, the last operand, so any reordering shows.
func TestReduceOrder(t *testing.T) {
	last := func(_, b uint64) uint64 { return b }
	for _, n := range sizes(t)[1:] {
		d, cfg, done := checked(t)
		host := make([]uint64, n)
		for i := range host {
			host[i] = uint64(i) + 10
		}
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[uint64](d, "out", 1)
		require.NoError(t, device.Reduce(ctx, d, cfg, in, out, 0, last))
		assert.Equal(t, host[n-1], out.Host()[0], "n=%d", n)
		done()
	}
}

func TestReduceErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.Alloc[float32](d, "in", 10)
	err := device.Reduce(ctx, d, gpu.LaunchConfig{}, in, gpu.Buffer[float32]{}, 0, gpu.Add[float32])
	assert.EqualError(t, err, "device.Reduce: out has length 0; it needs at least 1")
}

// TestObserved checks that the config's observer watches the primitive's
// launches: the detector sees at least every input element loaded.
func TestObserved(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	det := racetest.New()
	in, out := gpu.FromHost(d, "in", randInt32s(5000, 12, 100)), gpu.Alloc[int32](d, "out", 1)
	require.NoError(t, device.Reduce(ctx, d, gpu.LaunchConfig{Observer: det}, in, out, 0, gpu.Add[int32]))
	assert.GreaterOrEqual(t, det.Stats().Accesses, uint64(5000))
}

// TestCancelled checks that the context reaches the launches.
func TestCancelled(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	c, cancel := context.WithCancel(ctx)
	cancel()
	keys := gpu.Alloc[uint32](d, "keys", 100)
	assert.ErrorIs(t, device.SortKeys(c, d, gpu.LaunchConfig{}, keys), context.Canceled)
}
