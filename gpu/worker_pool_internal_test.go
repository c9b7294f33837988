package gpu

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// idleWorkers returns the set of d's idle workers.
func idleWorkers(d *Device) map[*worker]bool {
	set := map[*worker]bool{}
	for _, w := range d.workers.idle.entries() {
		set[w] = true
	}
	return set
}

// TestWorkersReusedAcrossLaunches: a device runs its later launches'
// slots, and the Goroutines executor's threads, on the goroutines of its
// first: each worker is back in the pool before the launch it ran for
// returns.
func TestWorkersReusedAcrossLaunches(t *testing.T) {
	d, err := NewDevice(DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	for _, c := range []struct {
		exec    Executor
		workers int
	}{{Fibers, 1}, {Goroutines, 65}} {
		cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 64}, Executor: c.exec}
		k := func(t *Thread) { t.SyncThreads() }
		require.NoError(t, d.Launch(context.Background(), cfg, k))
		first := idleWorkers(d)
		require.Len(t, first, c.workers, "%v: a goroutine for the block's slot, and under Goroutines for each thread", c.exec)
		for range 3 {
			require.NoError(t, d.Launch(context.Background(), cfg, k))
			require.Equal(t, first, idleWorkers(d), "%v: a later launch started new goroutines", c.exec)
		}
	}
}

// TestWorkerPoolBounded: the pool keeps at most its max idle workers, a
// worker past that ends, and close ends the idle ones and makes later
// ones end when they finish.
func TestWorkerPoolBounded(t *testing.T) {
	p := &workerPool{idle: idlePool[*worker]{max: 2}}
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	for range 3 {
		p.Go(&wg, func() { <-release })
	}
	close(release)
	wg.Wait() // each worker is back, or ended, before its Done
	idle := p.idle.entries()
	require.Len(t, idle, 2, "two kept")
	p.close()
	for _, w := range idle {
		select {
		case <-w.done:
		default:
			t.Fatal("close returned before an idle worker ended")
		}
	}
	wg.Add(1)
	p.Go(&wg, func() {}) // a new worker, returned after close
	wg.Wait()
	require.Empty(t, p.idle.entries())
	p.close() // idempotent
}

// TestWorkerGoexit: a task that ends its goroutine ends its worker, which
// does not come back to the pool.
func TestWorkerGoexit(t *testing.T) {
	p := &workerPool{idle: idlePool[*worker]{max: 2}}
	t.Cleanup(p.close)
	var wg sync.WaitGroup
	wg.Add(1)
	p.Go(&wg, runtime.Goexit)
	wg.Wait() // Done runs though the task ended the goroutine
	require.Empty(t, p.idle.entries())
}
