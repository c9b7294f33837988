package gpu_test

import (
	"context"
	"testing"

	"github.com/warpguard/warpguard/gpu"
)

// BenchmarkWarpCollective measures warp collectives in 256-thread blocks,
// in ns per thread per collective, beside __syncthreads as the baseline
// of a barrier every thread waits at; with divergence checked (the
// default, which records each arrival's call site) and not.
func BenchmarkWarpCollective(b *testing.B) {
	const blocks, bs, rounds = 16, 256, 32
	d := newDevice(b)
	kernels := map[string]gpu.Kernel{
		"op=syncwarp": func(t *gpu.Thread) {
			for range rounds {
				t.SyncWarp(gpu.FullMask)
			}
		},
		"op=shfl_down": func(t *gpu.Thread) {
			v := int32(t.ThreadRank())
			for range rounds {
				v += gpu.ShflDownSync(t, gpu.FullMask, v, 1, 32)
			}
		},
		"op=tile_reduce": func(t *gpu.Thread) {
			g := gpu.TiledPartition(t, 32)
			v := int32(t.ThreadRank())
			for range rounds {
				v = gpu.Reduce(g, v, gpu.Add[int32])
			}
		},
		"baseline=syncthreads": func(t *gpu.Thread) {
			for range rounds {
				t.SyncThreads()
			}
		},
	}
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for name, k := range kernels {
			for _, mode := range []gpu.DivergenceMode{gpu.DivergenceFail, gpu.DivergenceAllow} {
				b.Run("executor="+ex.String()+"/"+name+"/divergence="+mode.String(), func(b *testing.B) {
					cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: bs}, Executor: ex, Divergence: mode}
					for b.Loop() {
						if err := d.Launch(context.Background(), cfg, k); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(blocks*bs*rounds), "ns/thread/op")
				})
			}
		}
	}
}
