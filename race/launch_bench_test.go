package race_test

import (
	"context"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// BenchmarkFixedLaunch measures what observing costs a launch apart from
// its checks: two one-thread blocks making one atomic access each, with
// no observer, a do-nothing observer and the detector.
func BenchmarkFixedLaunch(b *testing.B) {
	for _, c := range []struct {
		name string
		obs  func() gpu.Observer
	}{{"off", nil}, {"nop", func() gpu.Observer { return nopObserver{} }}, {"opt", func() gpu.Observer { return race.New(race.Options{}) }}} {
		b.Run(c.name, func(b *testing.B) {
			d, err := gpu.NewDevice(gpu.DeviceConfig{})
			if err != nil {
				b.Fatal(err)
			}
			x := gpu.Alloc[uint32](d, "x", 4)
			cfg := gpu.Config{Name: "fixed", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
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
