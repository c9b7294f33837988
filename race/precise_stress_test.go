package race_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// stressLaunches is how many times the stress test launches each correct
// kernel under each parallel executor: thousands under the long tag,
// fewer by default and fewer still under -short.
func stressLaunches() int {
	switch {
	case long:
		return 10000
	case testing.Short():
		return 300
	}
	return 2000
}

// stressKernels are correct kernels whose synchronization runs through
// strong operations on many cores: a device-scope CAS spin lock fenced
// after taking and before releasing, message passing from a block's
// leader after a barrier, and a grid barrier built from a fenced
// counter.
var stressKernels = map[string]struct {
	blocks, block int
	kernel        func(d *gpu.Device) gpu.Kernel
}{
	"spin-lock": {4, 1, func(d *gpu.Device) gpu.Kernel {
		lock, n := gpu.Alloc[uint32](d, "lock", 1), gpu.Alloc[uint32](d, "n", 1)
		return func(t *gpu.Thread) {
			for lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
			}
			t.ThreadFence()
			n.Store(t, 0, n.Load(t, 0)+1)
			t.ThreadFence()
			lock.AtomicExch(t, 0, 0, scope.Device)
		}
	}},
	"leader-message": {2, 32, func(d *gpu.Device) gpu.Kernel {
		data, flag := gpu.Alloc[int32](d, "data", 32), gpu.Alloc[uint32](d, "flag", 1)
		return func(t *gpu.Thread) {
			r := t.ThreadRank()
			if t.BlockRank() == 0 {
				data.Store(t, r, int32(r))
				t.SyncThreads()
				if r == 0 {
					t.ThreadFence()
					flag.AtomicStore(t, 0, 1, scope.Device)
				}
				return
			}
			if r == 0 {
				for flag.LoadVolatile(t, 0) == 0 {
				}
				t.ThreadFence()
				flag.AtomicStore(t, 0, 0, scope.Device) // for the next launch
			}
			t.SyncThreads()
			data.Load(t, (r+1)%32)
		}
	}},
	"grid-barrier": {2, 32, func(d *gpu.Device) gpu.Kernel {
		data, count := gpu.Alloc[int32](d, "data", 64), gpu.Alloc[uint32](d, "count", 1)
		return func(t *gpu.Thread) {
			i := t.GlobalID()
			data.Store(t, i, int32(i))
			t.SyncThreads()
			if t.ThreadRank() == 0 {
				t.ThreadFence()
				count.AtomicAdd(t, 0, 1, scope.Device)
				for count.LoadVolatile(t, 0)%2 != 0 {
				}
				t.ThreadFence()
			}
			t.SyncThreads()
			data.Load(t, (i+32)%64)
		}
	}},
}

// TestPreciseStress launches correct kernels many times under both
// parallel executors with at least two processors, and fails on any
// report: the precise mode checks each strong read against the write it
// read from, so no interleaving makes a correct kernel racy.
func TestPreciseStress(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	n := stressLaunches()
	for name, k := range stressKernels {
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			t.Run(name+"/"+ex.String(), func(t *testing.T) {
				det := race.New(race.Options{Precise: true, MaxReports: 1 << 20})
				d := newDevice(t)
				cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: k.blocks}, Block: gpu.Dim3{X: k.block},
					Executor: ex, Observer: det, Cooperative: true}
				kernel := k.kernel(d)
				for i := range n {
					require.NoError(t, d.Launch(context.Background(), cfg, kernel), "launch %d", i)
				}
				require.Empty(t, det.Reports(), "%d reports in %d launches", len(det.Reports()), n)
			})
		}
	}
}
