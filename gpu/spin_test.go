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
