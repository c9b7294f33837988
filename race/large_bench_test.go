package race_test

import (
	"context"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// largeThreads is the thread count of the large-launch benchmarks: 4096
// blocks of 256.
const largeThreads = 1 << 20

// BenchmarkLargeLaunch measures the detector on a launch of 2^20 threads,
// side by side with detection off: an empty kernel (the launch's own
// cost) and SAXPY (two loads and a store per thread, every granule
// touched once). ns/op divided by largeThreads is the cost per thread.
func BenchmarkLargeLaunch(b *testing.B) {
	kernels := []struct {
		name string
		run  func(d *gpu.Device, cfg gpu.Config) error
	}{{"empty", launchEmpty}, {"saxpy", launchSAXPY}}
	for _, k := range kernels {
		for _, mode := range []string{"off", "opt"} {
			b.Run(k.name+"/"+mode, func(b *testing.B) {
				d, err := gpu.NewDevice(gpu.DeviceConfig{})
				if err != nil {
					b.Fatal(err)
				}
				cfg := gpu.Config{Name: k.name, Grid: gpu.Dim3{X: largeThreads / 256}, Block: gpu.Dim3{X: 256}}
				for b.Loop() {
					if mode == "opt" {
						cfg.Observer = race.New(race.Options{})
					}
					if err := k.run(d, cfg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func launchEmpty(d *gpu.Device, cfg gpu.Config) error {
	return d.Launch(context.Background(), cfg, func(*gpu.Thread) {})
}

// launchSAXPY runs y[i] = 2*x[i] + y[i] over largeThreads elements.
func launchSAXPY(d *gpu.Device, cfg gpu.Config) error {
	x := gpu.Alloc[float32](d, "x", largeThreads)
	y := gpu.Alloc[float32](d, "y", largeThreads)
	return d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		i := t.GlobalID()
		y.Store(t, i, 2*x.Load(t, i)+y.Load(t, i))
	})
}
