package race_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/warpguard/warpguard/gpu"
)

// BenchmarkLargeLaunch measures the detector on launches of 2^20, 2^22
// and 2^24 threads in blocks of 256, under the default (exact) and the
// IGUARD family's opt, side by side with detection off: an
// empty kernel (the launch's own cost) and SAXPY (two loads and a store
// per thread, every granule touched by one thread). A launch's time
// divided by the thread count is the cost per thread. Select one size to
// measure a process's peak RSS.
func BenchmarkLargeLaunch(b *testing.B) {
	kernels := []struct {
		name string
		run  func(d *gpu.Device, cfg gpu.LaunchConfig, n int) error
	}{{"empty", launchEmpty}, {"saxpy", launchSAXPY}}
	for _, k := range kernels {
		for _, n := range []int{1 << 20, 1 << 22, 1 << 24} {
			for _, mode := range []string{"off", "exact", "opt"} {
				b.Run(fmt.Sprintf("%s/threads=%d/%s", k.name, n, mode), func(b *testing.B) {
					d, err := gpu.NewDevice(gpu.DeviceConfig{})
					if err != nil {
						b.Fatal(err)
					}
					cfg := gpu.LaunchConfig{Name: k.name, Grid: gpu.Dim3{X: n / 256}, Block: gpu.Dim3{X: 256}}
					for b.Loop() {
						if mode != "off" {
							cfg.Observer = configured(mode)()
						}
						if err := k.run(d, cfg, n); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func launchEmpty(d *gpu.Device, cfg gpu.LaunchConfig, _ int) error {
	return d.Launch(context.Background(), cfg, func(*gpu.Thread) {})
}

// launchSAXPY runs y[i] = 2*x[i] + y[i] over n elements.
func launchSAXPY(d *gpu.Device, cfg gpu.LaunchConfig, n int) error {
	x := gpu.Alloc[float32](d, "x", n)
	y := gpu.Alloc[float32](d, "y", n)
	return d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		i := t.GlobalID()
		y.Store(t, i, 2*x.Load(t, i)+y.Load(t, i))
	})
}
