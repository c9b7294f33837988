package block_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

func TestRadixSort(t *testing.T) {
	for _, n := range []int{256, 100, 16} {
		testRadixSort(t, n, func(r *rand.Rand) int32 { return r.Int32N(2000) - 1000 })
	}
	testRadixSort(t, 100, func(r *rand.Rand) uint64 { return r.Uint64() }) // sixteen passes
}

func testRadixSort[K gpu.Integer](t *testing.T, n int, gen func(*rand.Rand) K) {
	t.Helper()
	in, out := launch(t, n, gen, func(th *gpu.Thread, v K) K {
		keys := gpu.Shared[K](th, "keys", th.Grid().BlockSize)
		return block.RadixSort(th, keys, gpu.Shared[int32](th, "ranks", block.RadixSortLen(th)), v)
	})
	for b, vs := range blocks(in, n) {
		want := slices.Clone(vs)
		slices.Sort(want)
		assert.Equal(t, want, out[b*n:(b+1)*n], "block size %d, block %d, %T", n, b, want)
	}
}

func TestDigit(t *testing.T) {
	assert.Equal(t, 0, block.Digit(int32(-1<<31), 28, 4))
	assert.Equal(t, 7, block.Digit(int32(-1), 28, 4))
	assert.Equal(t, 8, block.Digit(int32(0), 28, 4))
	assert.Equal(t, 8, block.Digit(uint64(1<<63), 60, 4))
	assert.Equal(t, 0xab, block.Digit(uint32(0xabcd), 8, 8))
	assert.Equal(t, 64, block.KeyBits[int64]())
	assert.Equal(t, 32, block.KeyBits[uint32]())
}
