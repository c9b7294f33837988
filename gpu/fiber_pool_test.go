package gpu_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// flatMiB bounds how much resident memory TestLaunchMemoryFlat's
// measured launches may add, whatever their number: slack for the
// allocator and the collector.
const flatMiB = 8.0

// TestLaunchMemoryFlat launches a barrier kernel thousands of times (1,500
// with -short), under each executor, and checks that once the
// first third has filled the device's pools the other two thirds add less
// than flatMiB of resident memory. It matters under -race, where each
// coroutine and goroutine that ends keeps its race-runtime state for good,
// so that fibers and goroutines made per launch grew memory with every
// launch; a device reuses both instead. What -race still costs is its
// history of each fiber's and goroutine's recent accesses, some hundreds
// of KiB each at most, reached within the first launches and then
// recycled. Resident memory is read from /proc/self/status: Linux only.
//
// The reading is the whole process's, which threads an earlier test left
// running (see TestSwallowedStop) may grow as they end; a window that
// grew past the bound is measured once more, and the test fails only if
// the second grows too, as launches that leak do window after window.
func TestLaunchMemoryFlat(t *testing.T) {
	if _, err := residentMiB(); err != nil {
		t.Skipf("resident memory unknown here: %v", err)
	}
	const threads = 64
	launches := 3000
	if testing.Short() {
		launches = 1500
	}
	d := newDevice(t)
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for range launches / 3 { // fills the device's pools, the heap and the race runtime's history
			require.NoError(t, launch1D(d, ex, 1, threads, barrierKernel))
		}
		n := launches - launches/3
		grown := launchesGrowth(t, d, ex, n, threads)
		if grown >= flatMiB {
			t.Logf("%v: measuring again", ex)
			grown = launchesGrowth(t, d, ex, n, threads)
		}
		require.Less(t, grown, flatMiB, "%v: %d launches of %d threads grew resident memory by %.1f MiB", ex, n, threads, grown)
	}
}

// launchesGrowth launches a barrier kernel n times and returns how many
// MiB of resident memory the launches added.
func launchesGrowth(t *testing.T, d *gpu.Device, ex gpu.Executor, n, threads int) float64 {
	before := settledResidentMiB(t)
	for range n {
		require.NoError(t, launch1D(d, ex, 1, threads, barrierKernel))
	}
	grown := settledResidentMiB(t) - before
	t.Logf("%v: %d launches of %d threads: resident memory grew %.1f MiB", ex, n, threads, grown)
	return grown
}

// TestFibersSharedByConcurrentLaunches: concurrent launches with
// barriers take fibers from one device's pool and give them back, launch
// after launch, and each still runs its own kernel: every thread reads,
// after the barrier, what its neighbour wrote before it. Under -race it
// checks that a fiber passing from one launch's slot to another's is
// ordered.
func TestFibersSharedByConcurrentLaunches(t *testing.T) {
	t.Parallel()
	const launchers, launches, blocks, threads = 4, 20, 3, 64
	d := newDevice(t)
	outs := make([]gpu.Buffer[int32], launchers)
	errs := make([]error, launchers)
	var wg sync.WaitGroup
	for i := range launchers {
		outs[i] = gpu.Alloc[int32](d, "out", blocks*threads)
		wg.Go(func() {
			for n := range launches {
				errs[i] = launch1D(d, gpu.Fibers, blocks, threads, func(t *gpu.Thread) {
					s := gpu.Shared[int32](t, "s", threads)
					s.Store(t, t.ThreadRank(), int32(t.GlobalID()+n))
					t.SyncThreads()
					outs[i].Store(t, t.GlobalID(), s.Load(t, (t.ThreadRank()+1)%threads))
				})
				if errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range launchers {
		require.NoError(t, errs[i])
		for g, v := range outs[i].Host() {
			b, r := g/threads, g%threads
			require.Equal(t, int32(b*threads+(r+1)%threads+launches-1), v, "launcher %d, thread %d", i, g)
		}
	}
}

// settledResidentMiB returns the resident memory after a collection that
// returns freed memory to the system, so that the heap's garbage does not
// count.
func settledResidentMiB(t *testing.T) float64 {
	runtime.GC()
	debug.FreeOSMemory()
	mib, err := residentMiB()
	require.NoError(t, err)
	return mib
}

// residentMiB reads the process's resident set size, VmRSS, from
// /proc/self/status.
func residentMiB() (float64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var kib float64
		if n, _ := fmt.Sscanf(sc.Text(), "VmRSS: %f kB", &kib); n == 1 {
			return kib / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS line in /proc/self/status")
}
