package block_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/race/racetest"
)

// TestLoadStore moves a buffer whose length is not a multiple of the tile
// through both arrangements: blocked in and striped out, so each thread's
// items must land where the other arrangement expects them.
func TestLoadStore(t *testing.T) {
	const items, threads = 3, 40
	for _, n := range []int{0, 1, 119, 120, 121, 500} {
		d, _ := gpu.NewDevice(gpu.DeviceConfig{})
		host := make([]int64, n)
		for i := range host {
			host[i] = int64(i*7 + 1)
		}
		src, dst := gpu.FromHost(d, "src", host), gpu.Alloc[int64](d, "dst", n)
		blocked, striped := gpu.Alloc[int64](d, "blocked", n), gpu.Alloc[int64](d, "striped", n)
		tile := items * threads
		cfg := gpu.LaunchConfig{Name: "move", Grid: gpu.Dim3{X: max(1, (n+tile-1)/tile)}, Block: gpu.Dim3{X: threads}}
		racetest.Launch(t, d, cfg, func(th *gpu.Thread) {
			var v [items]int64
			off := th.BlockRank() * tile
			block.LoadBlocked(th, src, off, v[:], -1)
			block.StoreBlocked(th, blocked, off, v[:])
			block.LoadStriped(th, src, off, v[:], -1)
			block.StoreStriped(th, striped, off, v[:])
			for j := range v {
				if i := off + th.ThreadRank()*items + j; i < n {
					dst.Store(th, i, v[j]) // striped items of this thread, stored blocked
				}
			}
		})
		assert.Equal(t, host, blocked.Host(), "n=%d blocked", n)
		assert.Equal(t, host, striped.Host(), "n=%d striped", n)
		got := dst.Host()
		for i := range got {
			b, r, j := i/tile, i%tile/items, i%items
			want := int64(-1)
			if k := b*tile + j*threads + r; k < n {
				want = host[k]
			}
			assert.Equal(t, want, got[i], "n=%d, element %d", n, i)
		}
	}
}
