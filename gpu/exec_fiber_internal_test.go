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

// TestBarrierHandsOff: under the default schedule, a thread arriving at a
// barrier hands its block to the next thread itself, so that a round's
// last arrival runs on with every other thread held below it, and those
// resume from the top of the chain down: the reverse of their arrival,
// each resumed by the wait of the one above. Through the driver they
// resumed in arrival order, each a round trip through it, and nothing
// was ever held.
func TestBarrierHandsOff(t *testing.T) {
	d, err := NewDevice(DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	const n = 64
	var order []int // the order threads leave the first round; one runs at a time
	var depth int   // the chain below the last arrival, as it arrives at the second round
	err = d.Launch(context.Background(), LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: n}}, func(th *Thread) {
		th.SyncThreads()
		order = append(order, th.ThreadRank())
		if th.ThreadRank() == n-1 {
			depth = th.fib.ex.depth
		}
		th.SyncThreads()
	})
	require.NoError(t, err)
	want := make([]int, n)
	for i := range want {
		want[i] = n - 1 - i
	}
	require.Equal(t, want, order)
	require.Equal(t, n-1, depth)
}

// TestBarrierHandOffStops: a launch that stops while a block's threads
// are held in a hand-off chain ends each of them once, through the
// driver, and keeps every fiber for the device's next launch: a stopped
// waiter that went on by itself, still in the barrier's waiters, was
// resumed again from the run queue and given back to the pool twice.
func TestBarrierHandOffStops(t *testing.T) {
	d, err := NewDevice(DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	cfg := LaunchConfig{Grid: Dim3{X: 2}, Block: Dim3{X: 64}}
	for range 3 {
		err = d.Launch(context.Background(), cfg, func(th *Thread) {
			if th.ThreadRank() == 0 {
				th.SyncWarp(FullMask) // deadlocks with the rest of the block
				return
			}
			th.SyncThreads()
		})
		require.ErrorIs(t, err, ErrDeadlock)
		require.NoError(t, d.Launch(context.Background(), cfg, func(th *Thread) { th.SyncThreads() }))
	}
	seen := map[*fiber]bool{}
	for _, f := range d.fibers.idle.entries() {
		require.False(t, seen[f], "a fiber is in the device's pool twice")
		seen[f] = true
	}
}
