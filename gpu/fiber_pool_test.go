package gpu_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestLaunchMemoryFlat launches a barrier kernel thousands of times (a
// thousand with -short) and checks that the process's resident memory
// grows by less than a bound that does not depend on how many. It matters
// under -race, where each coroutine the runtime ends keeps its race-runtime
// state for good, so that fibers made per launch grew memory with every
// launch; a device reuses its fibers instead. What -race still costs is
// its history of each fiber's recent accesses, some hundreds of KiB a
// fiber at most, reached within the first launches and then recycled, so
// the bound is 1 MiB a thread of the block plus 16 MiB of slack for the
// allocator and the collector. Resident memory is read from
// /proc/self/status: Linux only.
func TestLaunchMemoryFlat(t *testing.T) {
	if _, err := residentMiB(); err != nil {
		t.Skipf("resident memory unknown here: %v", err)
	}
	const threads = 64
	launches := 3000
	if testing.Short() {
		launches = 1000
	}
	d := newDevice(t)
	for range 10 { // fills the device's pool and the heap
		require.NoError(t, launch1D(d, gpu.Fibers, 1, threads, barrierKernel))
	}
	before := settledResidentMiB(t)
	for range launches {
		require.NoError(t, launch1D(d, gpu.Fibers, 1, threads, barrierKernel))
	}
	grown := settledResidentMiB(t) - before
	bound := float64(threads + 16)
	t.Logf("%d launches of %d threads: resident memory grew %.1f MiB", launches, threads, grown)
	require.Less(t, grown, bound, "%d launches of %d threads grew resident memory by %.1f MiB", launches, threads, grown)
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
