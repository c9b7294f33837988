package gpu_test

import (
	"context"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

var benchExecutors = []gpu.Executor{gpu.Fibers, gpu.Goroutines}

// BenchmarkLaunch measures a barrier-free kernel of 2^20 threads, each
// writing its own element, in ns per thread, beside plain-Go ways to run
// the same 2^20 writes.
func BenchmarkLaunch(b *testing.B) {
	const n, bs = 1 << 20, 256
	d := newDevice(b)
	out := gpu.Alloc[uint32](d, "out", n)
	perThread := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread") }
	for _, ex := range benchExecutors {
		b.Run("executor="+ex.String(), func(b *testing.B) {
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: n / bs}, Block: gpu.Dim3{X: bs}, Executor: ex}
			k := func(t *gpu.Thread) { out.Store(t, t.GlobalID(), uint32(t.GlobalID())) }
			for b.Loop() {
				if err := d.Launch(context.Background(), cfg, k); err != nil {
					b.Fatal(err)
				}
			}
			perThread(b)
		})
	}
	words := make([]uint32, n)
	b.Run("baseline=loop", func(b *testing.B) {
		for b.Loop() {
			for i := range words {
				atomic.StoreUint32(&words[i], uint32(i))
			}
		}
		perThread(b)
	})
	b.Run("baseline=errgroup-per-block", func(b *testing.B) {
		for b.Loop() {
			var g errgroup.Group
			g.SetLimit(runtime.GOMAXPROCS(0))
			for lo := 0; lo < n; lo += bs {
				g.Go(func() error {
					for i := lo; i < lo+bs; i++ {
						atomic.StoreUint32(&words[i], uint32(i))
					}
					return nil
				})
			}
			_ = g.Wait()
		}
		perThread(b)
	})
	b.Run("baseline=waitgroup-per-thread", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for i := range words {
				wg.Go(func() { atomic.StoreUint32(&words[i], uint32(i)) })
			}
			wg.Wait()
		}
		perThread(b)
	})
}

// BenchmarkEmptyLaunch measures the fixed cost of a launch of one thread
// that does nothing, in ns per launch.
func BenchmarkEmptyLaunch(b *testing.B) {
	d := newDevice(b)
	for _, ex := range benchExecutors {
		b.Run("executor="+ex.String(), func(b *testing.B) {
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Executor: ex}
			for b.Loop() {
				if err := d.Launch(context.Background(), cfg, func(*gpu.Thread) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("baseline=go-and-wait", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Go(func() {})
			wg.Wait()
		}
	})
}

// BenchmarkSyncThreads measures __syncthreads in 256-thread blocks, in ns
// per thread per barrier round, beside the floor of the fiber executor's
// design (an iter.Pull next/yield round trip among 256 live coroutines
// per thread per round, blocks spread over GOMAXPROCS goroutines as the
// slots spread them) and a goroutine-per-thread block with a sync.Cond
// barrier.
func BenchmarkSyncThreads(b *testing.B) {
	const blocks, bs, rounds = 16, 256, 32
	d := newDevice(b)
	perRound := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(blocks*bs*rounds), "ns/thread/round")
	}
	k := func(t *gpu.Thread) {
		for range rounds {
			t.SyncThreads()
		}
	}
	for _, ex := range benchExecutors {
		// divergence=fail, the default, records each arrival's call site;
		// allow shows the bare barrier.
		for _, mode := range []gpu.DivergenceMode{gpu.DivergenceFail, gpu.DivergenceAllow} {
			b.Run("executor="+ex.String()+"/divergence="+mode.String(), func(b *testing.B) {
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: bs}, Executor: ex, Divergence: mode}
				for b.Loop() {
					if err := d.Launch(context.Background(), cfg, k); err != nil {
						b.Fatal(err)
					}
				}
				perRound(b)
			})
		}
	}
	b.Run("baseline=iter-pull-round-trip", func(b *testing.B) {
		workers := runtime.GOMAXPROCS(0)
		cos := make([][]func() (struct{}, bool), workers)
		for w := range cos {
			cos[w] = pullBlock(b, bs)
		}
		for b.Loop() {
			var g errgroup.Group
			next := make(chan int, blocks)
			for i := range blocks {
				next <- i
			}
			close(next)
			for w := range workers {
				g.Go(func() error {
					for range next {
						pullRounds(cos[w], rounds)
					}
					return nil
				})
			}
			_ = g.Wait()
		}
		perRound(b)
	})
	b.Run("baseline=cond-goroutine-per-thread", func(b *testing.B) {
		for b.Loop() {
			var g errgroup.Group
			g.SetLimit(runtime.GOMAXPROCS(0))
			for range blocks {
				g.Go(func() error { condBlock(bs, rounds); return nil })
			}
			_ = g.Wait()
		}
		perRound(b)
	})
}

// pullBlock returns the next functions of n live iter.Pull coroutines
// that yield forever, stopped when b ends.
func pullBlock(b *testing.B, n int) []func() (struct{}, bool) {
	nexts := make([]func() (struct{}, bool), n)
	for i := range nexts {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		b.Cleanup(stop)
		nexts[i] = next
	}
	return nexts
}

// pullRounds resumes every coroutine of nexts once per round: one
// next/yield round trip per coroutine per round, the floor of a barrier
// that parks each thread on a coroutine of its own.
func pullRounds(nexts []func() (struct{}, bool), rounds int) {
	for range rounds {
		for _, next := range nexts {
			next()
		}
	}
}

// condBlock runs n goroutines meeting at a sync.Cond barrier rounds times:
// the textbook Go barrier.
func condBlock(n, rounds int) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	arrived, gen := 0, 0
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for range rounds {
				mu.Lock()
				if arrived++; arrived == n {
					arrived, gen = 0, gen+1
					cond.Broadcast()
				} else {
					for g := gen; g == gen; {
						cond.Wait()
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// BenchmarkAccess measures one element access with no observer, in ns per
// access, beside the bare sync/atomic operation it wraps. The ops ending
// in 8 access 1-byte elements, which the runtime reaches through their
// 4-byte word (see narrow.go): a load, or a compare-and-swap loop.
func BenchmarkAccess(b *testing.B) {
	const perThread = 1 << 16 // amortizes the launch's fixed cost (see BenchmarkEmptyLaunch)
	d := newDevice(b)
	buf := gpu.Alloc[uint32](d, "x", 64)
	buf8 := gpu.Alloc[uint8](d, "x8", 64)
	kinds := []struct {
		name string
		k    func(t *gpu.Thread)
	}{
		{"load", func(t *gpu.Thread) {
			var s uint32
			for i := range perThread {
				s += buf.Load(t, i&63)
			}
			buf.Store(t, 0, s)
		}},
		{"store", func(t *gpu.Thread) {
			for i := range perThread {
				buf.Store(t, i&63, uint32(i))
			}
		}},
		{"atomicAdd", func(t *gpu.Thread) {
			for i := range perThread {
				buf.AtomicAdd(t, i&63, 1, scope.Device)
			}
		}},
		{"load8", func(t *gpu.Thread) {
			var s uint8
			for i := range perThread {
				s += buf8.Load(t, i&63)
			}
			buf8.Store(t, 0, s)
		}},
		{"store8", func(t *gpu.Thread) {
			for i := range perThread {
				buf8.Store(t, i&63, uint8(i))
			}
		}},
		{"atomicAdd8", func(t *gpu.Thread) {
			for i := range perThread {
				buf8.AtomicAdd(t, i&63, 1, scope.Device)
			}
		}},
	}
	perAccess := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/perThread, "ns/access")
	}
	for _, ex := range benchExecutors {
		for _, kind := range kinds {
			b.Run("executor="+ex.String()+"/op="+kind.name, func(b *testing.B) {
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Executor: ex}
				for b.Loop() {
					if err := d.Launch(context.Background(), cfg, kind.k); err != nil {
						b.Fatal(err)
					}
				}
				perAccess(b)
			})
		}
	}
	words := make([]uint32, 64)
	bare := map[string]func(){
		"load": func() {
			var s uint32
			for i := range perThread {
				s += atomic.LoadUint32(&words[i&63])
			}
			atomic.StoreUint32(&words[0], s)
		},
		"store": func() {
			for i := range perThread {
				atomic.StoreUint32(&words[i&63], uint32(i))
			}
		},
		"atomicAdd": func() {
			for i := range perThread {
				atomic.AddUint32(&words[i&63], 1)
			}
		},
	}
	for _, kind := range kinds {
		f, ok := bare[kind.name]
		if !ok {
			continue // no sync/atomic operation is a byte wide
		}
		b.Run("baseline=sync-atomic/op="+kind.name, func(b *testing.B) {
			for b.Loop() {
				f()
			}
			perAccess(b)
		})
	}
}
