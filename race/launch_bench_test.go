package race_test

import (
	"context"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// BenchmarkFixedLaunch measures what observing costs a launch apart from
// its checks, in the shapes of ScoR's micro kernels: two one-thread blocks
// (interblock) and one 33-thread block (interwarp), each thread making
// one atomic access, with no observer, a do-nothing observer and the
// detector: the default (the exact family), the IGUARD family's opt, and
// opt with a full entry per granule from its first touch.
func BenchmarkFixedLaunch(b *testing.B) {
	for _, shape := range []struct {
		name           string
		blocks, thread int
	}{{"2x1", 2, 1}, {"1x33", 1, 33}} {
		for _, c := range []struct {
			name string
			obs  func() gpu.Observer
		}{{"off", nil}, {"nop", func() gpu.Observer { return nopObserver{} }}, {"exact", configured("exact")},
			{"opt", configured("opt")}, {"opt-full", configured("opt:full")}} {
			b.Run("shape="+shape.name+"/"+c.name, func(b *testing.B) {
				d, err := gpu.NewDevice(gpu.DeviceConfig{})
				if err != nil {
					b.Fatal(err)
				}
				x := gpu.Alloc[uint32](d, "x", 4)
				cfg := gpu.LaunchConfig{Name: "fixed", Grid: gpu.Dim3{X: shape.blocks}, Block: gpu.Dim3{X: shape.thread}}
				if c.obs != nil {
					cfg.Observer = c.obs()
				}
				b.ReportAllocs()
				for b.Loop() {
					err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) })
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// configured returns a maker of detectors of the named configuration
// (race.Config); a name it does not know is a bug of the benchmark.
func configured(name string) func() gpu.Observer {
	o, err := race.Config(name)
	if err != nil {
		panic(err)
	}
	return func() gpu.Observer { return race.New(o) }
}
