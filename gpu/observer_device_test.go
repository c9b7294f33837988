package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestDeviceObserver: the device's observer sees every launch on the
// device, with the launch's own observer beside it when one is set.
func TestDeviceObserver(t *testing.T) {
	t.Parallel()
	dev := &recorder{}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: dev})
	require.NoError(t, err)
	closeAtEnd(t, d)
	x := gpu.Alloc[uint32](d, "x", 1)
	k := func(t *gpu.Thread) { x.Store(t, 0, 1) }
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "a", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, k))
	own := &recorder{}
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "b", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: own}, k))
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "c", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: dev}, k))
	launch := func(name string) []string {
		return []string{"start " + name + " 1", "block 0 start", "t0 store x[0] off=0 size=4 weak thread old=0 arg=1 cmp=0 ok=true", "block 0 end", "end " + name + " <nil>"}
	}
	want := append(append(launch("a"), launch("b")...), launch("c")...)
	require.Equal(t, want, dev.events, "the device's observer sees every launch, once")
	require.Equal(t, launch("b"), own.events)
}
