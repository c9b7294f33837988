package block_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/racetest"
)

// blockSizes cover whole warps, a partial last warp, a block smaller than
// a warp, and one thread.
var blockSizes = []int{256, 100, 20, 1}

const grid = 3 // blocks per test launch

// launch runs k over grid blocks of n threads under the race detector, on
// random inputs from gen, one a thread, and returns them with what each
// thread stored.
func launch[T gpu.Elem](t *testing.T, n int, gen func(*rand.Rand) T, k func(th *gpu.Thread, v T) T) (in, out []T) {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(uint64(n), 2))
	in = make([]T, n*grid)
	for i := range in {
		in[i] = gen(r)
	}
	src, dst := gpu.FromHost(d, "in", in), gpu.Alloc[T](d, "out", len(in))
	racetest.Launch(t, d, gpu.LaunchConfig{Name: "block", Grid: gpu.Dim3{X: grid}, Block: gpu.Dim3{X: n}}, func(th *gpu.Thread) {
		dst.Store(th, th.GlobalID(), k(th, src.Load(th, th.GlobalID())))
	})
	return in, dst.Host()
}

func small(r *rand.Rand) int32 { return r.Int32N(1000) - 500 }

// blocks cuts in into the inputs of each block of n threads.
func blocks[T any](in []T, n int) [][]T {
	var bs [][]T
	for lo := 0; lo < len(in); lo += n {
		bs = append(bs, in[lo:lo+n])
	}
	return bs
}
