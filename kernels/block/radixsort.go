package block

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// sortBits is the digit width of [RadixSort]'s passes.
const sortBits = 4

// RadixSortLen returns the elements of int32 shared memory [RadixSort]
// needs in t's block for its ranks: [RadixRankLen] for its digits.
func RadixSortLen(t *gpu.Thread) int { return RadixRankLen(t, 1<<sortBits) }

// RadixSort sorts the block's keys, one per thread, CUB's
// BlockRadixSort: it returns to the thread of rank r the r-th smallest key
// of the block, ties in rank order. Every thread passes a key; pad a short
// tile with the largest value of K. 32- and 64-bit integer keys, signed or
// not, are sorted by value. The block needs at least 16 threads; keys is
// shared memory of at least the block's size, tmp of at least
// [RadixSortLen].
//
// Each pass of four bits ranks the keys by digit with [RadixRank], stores
// each key at its rank in keys, and after a __syncthreads reads the key at
// the thread's own rank back, followed by one more: eight __syncthreads a
// pass, eight passes for 32-bit keys and sixteen for 64-bit ones.
func RadixSort[K gpu.Integer](t *gpu.Thread, keys gpu.Buffer[K], tmp gpu.Buffer[int32], key K) K {
	g := t.Grid()
	if g.BlockSize < 1<<sortBits {
		panic(fmt.Sprintf("block.RadixSort: block of %d threads; it needs at least %d", g.BlockSize, 1<<sortBits))
	}
	needTemp(t, "RadixSort", keys, 0, g.BlockSize)
	for shift := 0; shift < KeyBits[K](); shift += sortBits {
		rank := RadixRank(t, tmp, Digit(key, shift, sortBits), 1<<sortBits)
		keys.Store(t, rank, key)
		t.SyncThreads()
		key = keys.Load(t, t.ThreadRank())
		t.SyncThreads()
	}
	return key
}

// KeyBits returns the bits in K: 32 or 64.
func KeyBits[K gpu.Integer]() int {
	var one K = 1
	if one<<31<<1 == 0 {
		return 32
	}
	return 64
}

// Digit returns the n bits of key from bit shift as a radix digit, with
// the sign bit of a signed K flipped so that digits order keys as their
// values do: the digit [RadixRank] ranks by in a radix sort.
func Digit[K gpu.Integer](key K, shift, n int) int {
	u := uint64(key)
	var zero K
	if zero-1 < zero { // signed
		u ^= 1 << (KeyBits[K]() - 1)
	}
	return int(u>>shift) & (1<<n - 1)
}
