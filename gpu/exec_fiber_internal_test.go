package gpu

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/scope"
)

// TestFiberRunQueueBounded: two threads of a block that spin, yielding
// to each other, keep the fiber executor's run queue non-empty at every
// pop. The queue must stay as small as the threads in it rather than
// grow by an entry per yield, or a spinning block's heap grows without
// bound.
func TestFiberRunQueueBounded(t *testing.T) {
	d, err := NewDevice(DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	flag := Alloc[int32](d, "flag", 1)
	const spins = 1 << 16
	var maxCap [2]int
	err = d.Launch(context.Background(), LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 2}}, func(th *Thread) {
		if th.ThreadRank() == 0 {
			for i := 0; i < spins; i++ {
				flag.LoadVolatile(th, 0)
				maxCap[0] = max(maxCap[0], cap(th.fib.ex.runq))
			}
			flag.AtomicStore(th, 0, 1, scope.Device)
			return
		}
		for flag.LoadVolatile(th, 0) == 0 {
			maxCap[1] = max(maxCap[1], cap(th.fib.ex.runq))
		}
	})
	require.NoError(t, err)
	require.LessOrEqual(t, max(maxCap[0], maxCap[1]), 64, "the run queue grew with the yields")
}
