package gpu_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestSpinnersGiveWay: on one processor, every thread of block 0 spins on a
// flag that block 1 sets. A block whose threads only switch among
// themselves holds the processor until Go's scheduler preempts it, 10 ms
// later, so twenty launches would take at least 200 ms; the runtime must
// give the processor up once its spinning threads have all had a turn.
func TestSpinnersGiveWay(t *testing.T) {
	if testing.Short() {
		t.Skip("a timing test; -short runs under -race")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d := newDevice(t)
	flag := gpu.Alloc[int32](d, "flag", 1)
	const launches = 20
	start := time.Now()
	for range launches {
		flag.Fill(0)
		require.NoError(t, launch1D(d, gpu.Fibers, 2, 64, func(t *gpu.Thread) {
			if t.Block() == 1 {
				flag.AtomicStore(t, 0, 1, scope.Device)
				return
			}
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
		}))
	}
	require.Less(t, time.Since(start), launches*10*time.Millisecond/2,
		"spinning blocks held the only processor until preempted")
}

// TestFailedCASYieldsSooner: thread 0 of a block yields while it holds a
// lock, and thread 1 spins on the lock with atomicCAS. A failed CAS
// counts double toward the thread's next yield, so the holder runs again
// after a couple of dozen failed attempts, not after spinYield (64).
func TestFailedCASYieldsSooner(t *testing.T) {
	d := newDevice(t)
	lock := gpu.Alloc[int32](d, "lock", 1)
	work := gpu.Alloc[int32](d, "work", 1)
	failed := gpu.Alloc[int32](d, "failed", 1)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
		if t.Rank() == 0 {
			lock.AtomicExch(t, 0, 1, scope.Block)
			for range 64 { // enough strong accesses to yield inside the critical section
				work.AtomicAdd(t, 0, 1, scope.Block)
			}
			lock.AtomicExch(t, 0, 0, scope.Block)
			return
		}
		n := int32(0)
		for lock.AtomicCAS(t, 0, 0, 1, scope.Block) != 0 {
			n++
		}
		failed.Store(t, 0, n)
	}))
	n := failed.Host()[0]
	require.Positive(t, n, "thread 1 found the lock held")
	require.LessOrEqual(t, n, int32(32), "failed CASes before the holder ran again")
}
