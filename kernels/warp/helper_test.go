package warp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
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
	racetest.Launch(t, d, gpu.LaunchConfig{Name: "warp", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: n}}, func(th *gpu.Thread) {
		dst.Store(th, th.ThreadRank(), k(th, src.Load(th, th.ThreadRank())))
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
