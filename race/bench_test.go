package race_test

import (
	"context"
	"strings"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// perLaunch is how many accesses each thread makes per launch, enough to
// hide the launch's own cost.
const perLaunch = 1 << 14

// accessKernel returns a kernel in which each thread makes perLaunch
// accesses of one kind to x, all to one word or each to its own word.
func accessKernel(x gpu.Buffer[uint32], op string, spread bool) gpu.Kernel {
	return func(t *gpu.Thread) {
		for i := range perLaunch {
			w := 0
			if spread {
				w = i
			}
			switch op {
			case "store":
				x.Store(t, w, uint32(i))
			case "load":
				x.Load(t, w)
			case "atomicAdd":
				x.AtomicAdd(t, w, 1, scope.Device)
			}
		}
	}
}

// benchAccess measures ns per access of kernel k on blocks one-thread
// blocks (one goroutine each), with and without the detector.
func benchAccess(b *testing.B, blocks int, op string, spread bool) {
	type config struct {
		name string
		det  func() gpu.Observer
	}
	configs := []config{{"off", nil}, {"nop-observer", func() gpu.Observer { return nopObserver{} }}}
	for _, name := range race.Configs()[1:] {
		opt, _ := race.Config(name)
		configs = append(configs, config{name, func() gpu.Observer { return race.New(opt) }})
	}
	for _, name := range []string{"opt:mutex", "opt:striped", "opt:history", "opt:full", "exact:history", "exact:full"} {
		configs = append(configs, config{strings.ReplaceAll(name, ":", "-"), configured(name)})
	}
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			d, err := gpu.NewDevice(gpu.DeviceConfig{})
			if err != nil {
				b.Fatal(err)
			}
			x := gpu.Alloc[uint32](d, "x", perLaunch)
			cfg := gpu.LaunchConfig{Name: "bench", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 1}}
			if c.det != nil {
				cfg.Observer = c.det()
			}
			b.ReportAllocs()
			k := accessKernel(x, op, spread)
			for b.Loop() {
				if err := d.Launch(context.Background(), cfg, k); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perLaunch), "ns/access")
		})
	}
}

// nopObserver observes nothing: the runtime's own cost of reporting an
// access, which every detector pays.
type nopObserver struct{}

func (nopObserver) LaunchStart(*gpu.Grid)                     {}
func (nopObserver) LaunchEnd(*gpu.Grid, error)                {}
func (nopObserver) BlockStart(*gpu.Grid, int)                 {}
func (nopObserver) BlockEnd(*gpu.Grid, int)                   {}
func (nopObserver) Access(*gpu.Thread, *gpu.Access)           {}
func (nopObserver) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (nopObserver) Sync(*gpu.Thread, gpu.Sync)                {}

// BenchmarkAccess is the cost of one instrumented access under each
// detector configuration (race.Configs), the opt configuration with the
// other locking disciplines and with history (sites), beside the same
// access with no observer ("off") and with an observer that does nothing
// ("nop-observer", the runtime's share of the cost). "uncontended" is one thread;
// "same-word" repeats one word (program order decides every check),
// "spread" touches a new word each time (metadata made per launch, or,
// under the exact family, renewed from the last launch's when it is kept);
// "contended" is two blocks, so two goroutines, on one word.
func BenchmarkAccess(b *testing.B) {
	for _, op := range []string{"store", "load", "atomicAdd"} {
		b.Run("uncontended/same-word/"+op, func(b *testing.B) { benchAccess(b, 1, op, false) })
		b.Run("uncontended/spread/"+op, func(b *testing.B) { benchAccess(b, 1, op, true) })
	}
	b.Run("contended/two-goroutines/atomicAdd", func(b *testing.B) { benchAccess(b, 2, "atomicAdd", false) })
	b.Run("contended/two-goroutines/store", func(b *testing.B) { benchAccess(b, 2, "store", false) })
	b.Run("contended/two-goroutines/load", func(b *testing.B) { benchAccess(b, 2, "load", false) })
}
