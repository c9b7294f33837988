package gpu_test

import (
	"context"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestSpinnersGiveWay: on one processor, every thread of block 0 spins on a
// flag that block 1 sets. A block whose threads only switch among
// themselves holds the processor until Go's scheduler preempts it, so
// twenty launches would take at least twenty preemption periods; the runtime must
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
			if t.BlockRank() == 1 {
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
// lock, and thread 1 spins on the lock with atomicCAS. A CAS that fails
// again at the address of the thread's last failure counts half a yield,
// so the holder runs again after three failed attempts, not after 64 (one
// yield's worth of strong accesses).
func TestFailedCASYieldsSooner(t *testing.T) {
	d := newDevice(t)
	lock := gpu.Alloc[int32](d, "lock", 1)
	work := gpu.Alloc[int32](d, "work", 1)
	failed := gpu.Alloc[int32](d, "failed", 1)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
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
	require.LessOrEqual(t, n, int32(4), "failed CASes before the holder ran again")
}

// TestFailedCASProbesCountOnce: the same, but thread 1's CASes fail at a
// new address each time, as a hash table's probes do. Such failures are
// not a lock's, and count one each: thread 1 makes a yield's worth of
// them (64) before thread 0 runs again and raises the flag.
func TestFailedCASProbesCountOnce(t *testing.T) {
	const slots = 256
	d := newDevice(t)
	table := gpu.Alloc[int32](d, "table", slots)
	table.Fill(1) // every slot taken: every CAS(0 -> 1) fails
	work := gpu.Alloc[int32](d, "work", 1)
	flag := gpu.Alloc[int32](d, "flag", 1)
	failed := gpu.Alloc[int32](d, "failed", 1)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
			for range 64 { // yield before raising the flag
				work.AtomicAdd(t, 0, 1, scope.Block)
			}
			flag.AtomicStore(t, 0, 1, scope.Block)
			return
		}
		n := int32(0)
		for k := 0; flag.AtomicLoad(t, 0, scope.Block) == 0 && k < slots; k++ {
			if table.AtomicCAS(t, k, 0, 1, scope.Block) != 0 {
				n++
			}
		}
		failed.Store(t, 0, n)
	}))
	n := failed.Host()[0]
	require.GreaterOrEqual(t, n, int32(24), "failed probes before thread 0 ran again")
}

// TestObservedPollsYieldSooner: thread 0 polls a flag that thread 1, which
// runs only once thread 0 yields, raises. Unobserved, thread 0 polls a
// yield's worth of times (64) first. Observed, a poll that repeats the
// thread's last access, element and value, counts four, so thread 0 yields
// after 17 polls; with a weak load between its polls, none repeats, and
// each counts one again. A read-modify-write that leaves the flag as it
// found it (atomicAdd of 0, atomicOr of 0, atomicExch of the value there)
// polls as a load does; one that changes the element, an atomicAdd of 1
// to a counter of polls, makes progress and counts one.
func TestObservedPollsYieldSooner(t *testing.T) {
	for _, c := range []struct {
		name        string
		obs         gpu.Observer
		poll        func(t *gpu.Thread, flag gpu.Buffer[int32]) int32
		interleaved bool
		lo, hi      int32
	}{
		{"unobserved", nil, loadPoll, false, 64, 64},
		{"observed", &syncRecorder{}, loadPoll, false, 17, 17},
		{"observed/interleaved", &syncRecorder{}, loadPoll, true, 64, 64},
		{"unobserved/add-0", nil, addPoll(0), false, 64, 64},
		{"observed/add-0", &syncRecorder{}, addPoll(0), false, 17, 17},
		{"observed/or-0", &syncRecorder{}, orPoll, false, 17, 17},
		{"observed/exch-same", &syncRecorder{}, exchPoll, false, 17, 17},
		{"observed/add-1", &syncRecorder{}, addPoll(1), false, 64, 64},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDevice(t)
			flag, data, polls := gpu.Alloc[int32](d, "flag", 1), gpu.Alloc[int32](d, "data", 1), gpu.Alloc[int32](d, "polls", 1)
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Executor: gpu.Fibers, Observer: c.obs}
			require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
				if t.ThreadRank() == 1 {
					flag.AtomicStore(t, 0, 1<<20, scope.Block)
					return
				}
				n := int32(0)
				for ; c.poll(t, flag) < 1<<20; n++ {
					if c.interleaved {
						data.Load(t, 0)
					}
				}
				polls.Store(t, 0, n)
			}))
			n := polls.Host()[0]
			require.GreaterOrEqual(t, n, c.lo, "polls before thread 1 ran")
			require.LessOrEqual(t, n, c.hi, "polls before thread 1 ran")
		})
	}
}

// loadPoll, addPoll, orPoll and exchPoll read a flag in the ways the
// kernels of TestObservedPollsYieldSooner poll it. exchPoll exchanges in
// the value there, as a spin on atomicExch(flag, 0) does while the flag is
// down; addPoll(1) adds to it, so each of its polls changes the flag.
func loadPoll(t *gpu.Thread, flag gpu.Buffer[int32]) int32 {
	return flag.AtomicLoad(t, 0, scope.Block)
}

func addPoll(v int32) func(*gpu.Thread, gpu.Buffer[int32]) int32 {
	return func(t *gpu.Thread, flag gpu.Buffer[int32]) int32 { return flag.AtomicAdd(t, 0, v, scope.Block) }
}

func orPoll(t *gpu.Thread, flag gpu.Buffer[int32]) int32 { return flag.AtomicOr(t, 0, 0, scope.Block) }

func exchPoll(t *gpu.Thread, flag gpu.Buffer[int32]) int32 {
	return flag.AtomicExch(t, 0, 0, scope.Block)
}

// TestThreadSize keeps Thread in two cache lines: a bigger Thread makes a
// block's threads stride more memory on every switch.
func TestThreadSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(gpu.Thread{}), uintptr(128))
}
