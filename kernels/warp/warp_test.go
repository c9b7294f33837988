package warp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
	"github.com/warpguard/warpguard/race/racetest"
)

// blockSizes cover whole warps, a partial last warp and a block smaller
// than a warp, where the collectives fall back to shuffles.
var blockSizes = []int{64, 48, 20, 1}

// run launches k over one block of n threads on random inputs under the
// race detector and returns the inputs and what each thread stored.
func run[T gpu.Elem](t *testing.T, n int, gen func(*rand.Rand) T, k func(t *gpu.Thread, v T) T) (in, out []T) {
	t.Helper()
	return runOn(t, gpu.DeviceConfig{}, n, gen, k)
}

// runOn is run on a device described by dc.
func runOn[T gpu.Elem](t *testing.T, dc gpu.DeviceConfig, n int, gen func(*rand.Rand) T, k func(t *gpu.Thread, v T) T) (in, out []T) {
	t.Helper()
	d, err := gpu.NewDevice(dc)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	in = make([]T, n)
	for i := range in {
		in[i] = gen(r)
	}
	src, dst := gpu.FromHost(d, "in", in), gpu.Alloc[T](d, "out", n)
	racetest.Launch(t, d, gpu.Config{Name: "warp", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: n}}, func(th *gpu.Thread) {
		dst.Store(th, th.Rank(), k(th, src.Load(th, th.Rank())))
	})
	return in, dst.Host()
}

func small(r *rand.Rand) int32 { return r.Int32N(1000) - 500 }

// warps cuts in into the warps of a 32-lane device.
func warps[T any](in []T) [][]T { return warpsOf(in, 32) }

// warpsOf cuts in into warps of ws lanes.
func warpsOf[T any](in []T, ws int) [][]T {
	var out [][]T
	for lo := 0; lo < len(in); lo += ws {
		out = append(out, in[lo:min(lo+ws, len(in))])
	}
	return out
}

func TestReduce(t *testing.T) {
	for _, n := range blockSizes {
		in, out := run(t, n, small, func(th *gpu.Thread, v int32) int32 { return warp.Reduce(th, v, gpu.Max[int32]) })
		for w, lanes := range warps(in) {
			want := lanes[0]
			for _, v := range lanes {
				want = max(want, v)
			}
			for l := range lanes {
				assert.Equal(t, want, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}

func TestInclusiveScan(t *testing.T) {
	for _, n := range blockSizes {
		in, out := run(t, n, small, func(th *gpu.Thread, v int32) int32 { return warp.InclusiveScan(th, v, gpu.Add[int32]) })
		for w, lanes := range warps(in) {
			var sum int32
			for l, v := range lanes {
				sum += v
				assert.Equal(t, sum, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}

func TestExclusiveScan(t *testing.T) {
	gen := func(r *rand.Rand) float64 { return float64(r.IntN(100)) }
	for _, n := range blockSizes {
		in, out := run(t, n, gen, func(th *gpu.Thread, v float64) float64 { return warp.ExclusiveScan(th, v, 7, gpu.Add[float64]) })
		for w, lanes := range warps(in) {
			sum := 7.0
			for l, v := range lanes {
				assert.Equal(t, sum, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
				sum += v
			}
		}
	}
}

// TestScanOrder checks that lanes combine in lane order with an op that
// is associative but not commutative: the left operand.
func TestScanOrder(t *testing.T) {
	first := func(a, _ uint32) uint32 { return a }
	for _, n := range blockSizes {
		gen := func(r *rand.Rand) uint32 { return r.Uint32() }
		in, out := run(t, n, gen, func(th *gpu.Thread, v uint32) uint32 { return warp.InclusiveScan(th, v, first) })
		for w, lanes := range warps(in) {
			for l := range lanes {
				assert.Equal(t, lanes[0], out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}

// TestWarpSize runs the scans on devices of other warp sizes, with a
// partial last warp and with a block smaller than a warp.
func TestWarpSize(t *testing.T) {
	for _, ws := range []int{4, 8, 64} {
		for _, n := range []int{2*ws + ws/2, ws - 1} {
			in, out := runOn(t, gpu.DeviceConfig{WarpSize: ws}, n, small, func(th *gpu.Thread, v int32) int32 {
				return warp.InclusiveScan(th, v, gpu.Add[int32])*1000 + warp.ExclusiveScan(th, v, 0, gpu.Max[int32])
			})
			for w, lanes := range warpsOf(in, ws) {
				var sum int32
				top := int32(0)
				for l, v := range lanes {
					sum += v
					assert.Equal(t, sum*1000+top, out[w*ws+l], "warp size %d, block %d, warp %d, lane %d", ws, n, w, l)
					top = max(top, v)
				}
			}
		}
	}
}
