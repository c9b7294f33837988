package device_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func even(x int32) bool { return x%2 == 0 }

func TestSelect(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 5, 1000)
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", n)
		got, err := device.Select(ctx, d, cfg, in, out, even)
		require.NoError(t, err)
		want := []int32{}
		for _, v := range host {
			if even(v) {
				want = append(want, v)
			}
		}
		require.Equal(t, len(want), got, "n=%d", n)
		assert.Equal(t, want, out.Host()[:got], "n=%d", n)
		done()
	}
}

func TestSelectShortOut(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in, out := gpu.FromHost(d, "in", []int32{2, 4, 5, 6}), gpu.Alloc[int32](d, "out", 2)
	n, err := device.Select(ctx, d, gpu.LaunchConfig{}, in, out, even)
	assert.EqualError(t, err, "device.Select: out has length 2; it needs at least 3")
	assert.Zero(t, n)
	assert.Equal(t, []int32{0, 0}, out.Host())
}

func TestPartition(t *testing.T) {
	for _, n := range sizes(t) {
		d, cfg, done := checked(t)
		host := randInt32s(n, 6, 1000)
		in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", n)
		got, err := device.Partition(ctx, d, cfg, in, out, even)
		require.NoError(t, err)
		yes, no := []int32{}, []int32{}
		for _, v := range host {
			if even(v) {
				yes = append(yes, v)
			} else {
				no = append(no, v)
			}
		}
		require.Equal(t, len(yes), got, "n=%d", n)
		assert.Equal(t, append(yes, no...), append([]int32{}, out.Host()...), "n=%d", n)
		done()
	}
}

func TestPartitionErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	_, err := device.Partition(ctx, d, gpu.LaunchConfig{}, gpu.Alloc[int32](d, "in", 5), gpu.Alloc[int32](d, "out", 4), even)
	assert.EqualError(t, err, "device.Partition: in has length 5 but out has length 4; they must agree")
}
