package race_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/warpguard/warpguard/gpu"
)

// BenchmarkFirstTouch is the cost of a granule's first access, which
// most accesses of a big kernel are: one thread stores once to each word
// of a buffer of n words, in order or in a random order, with no
// detector, with first records (opt, and exact, the default) and with a
// full entry per granule from its first touch (opt-full and exact-full,
// Options.FullEntries). In a random order over a big buffer, full
// entries miss the cache at every touch.
func BenchmarkFirstTouch(b *testing.B) {
	for _, n := range []int{1 << 12, 1 << 16, 1 << 18} {
		for _, order := range []string{"sequential", "random"} {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			if order == "random" {
				rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			}
			for _, c := range []struct {
				name string
				obs  func() gpu.Observer
			}{{"off", nil}, {"opt", configured("opt")}, {"opt-full", configured("opt:full")},
				{"exact", configured("exact")}, {"exact-full", configured("exact:full")}} {
				b.Run(fmt.Sprintf("words=%d/%s/%s", n, order, c.name), func(b *testing.B) {
					benchFirstTouch(b, idx, c.obs)
				})
			}
		}
	}
}

func benchFirstTouch(b *testing.B, idx []int, obs func() gpu.Observer) {
	d := newDevice(b)
	x := gpu.Alloc[uint32](d, "x", len(idx))
	cfg := gpu.LaunchConfig{Name: "first-touch", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
	if obs != nil {
		cfg.Observer = obs()
	}
	k := func(t *gpu.Thread) {
		for _, i := range idx {
			x.Store(t, i, 1)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Launch(context.Background(), cfg, k); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(idx)), "ns/access")
}
