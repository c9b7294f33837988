package block

import (
	"fmt"
	"math/bits"

	"github.com/warpguard/warpguard/gpu"
)

// RadixRankLen returns the elements of shared memory [RadixRank] needs in
// t's block for radix digit values: a count per digit and warp, and one
// per warp for a scan.
func RadixRankLen(t *gpu.Thread, radix int) int { return (radix + 1) * t.Grid().Warps }

// RadixRank ranks the block's keys stably by digit, one key per thread,
// CUB's BlockRadixRank: it returns the number of keys of the block with a
// smaller digit, or with the same digit and a lower rank. A digit outside
// [0, radix) is no key: RadixRank returns -1 to its thread and does not
// count it. radix must be at most the block size, and tmp shared memory of
// at least [RadixRankLen] elements.
//
// __match_any_sync groups a warp's lanes by digit; each group's highest
// lane stores the group's size at tmp[d*Warps+w]; one thread per digit
// turns the counts of its digit into offsets over the warps, and a block
// scan of the digits' totals adds each digit's start. On return
// tmp[d*Warps] holds the number of the block's keys with a digit below d,
// for every d < radix, until the block passes tmp to another call.
//
// It executes six __syncthreads: one before it zeroes tmp, so the block
// may read tmp between calls, and the last after its last access to it.
func RadixRank(t *gpu.Thread, tmp gpu.Buffer[int32], digit, radix int) int {
	g := t.Grid()
	if radix < 1 || radix > g.BlockSize {
		panic(fmt.Sprintf("block.RadixRank: radix %d; want 1 to the block size %d", radix, g.BlockSize))
	}
	needTemp(t, "RadixRank", tmp, 0, RadixRankLen(t, radix))
	valid := digit >= 0 && digit < radix
	if !valid {
		digit = -1
	}
	peers := gpu.MatchAnySync(t, gpu.FullMask, int32(digit))
	countDigits(t, tmp, radix, valid && t.Lane() == 63-bits.LeadingZeros64(peers), digit, bits.OnesCount64(peers))
	offsetDigits(t, tmp, radix)
	if !valid {
		return -1
	}
	return int(tmp.Load(t, digit*g.Warps+t.Warp())) + bits.OnesCount64(peers&(1<<t.Lane()-1))
}

// countDigits zeroes the counts and stores each warp's count of each
// digit; leader says the thread stores n for its digit. Three
// __syncthreads.
func countDigits(t *gpu.Thread, tmp gpu.Buffer[int32], radix int, leader bool, digit, n int) {
	g := t.Grid()
	t.SyncThreads()
	for i := t.ThreadRank(); i < radix*g.Warps; i += g.BlockSize {
		tmp.Store(t, i, 0)
	}
	t.SyncThreads()
	if leader {
		tmp.Store(t, digit*g.Warps+t.Warp(), int32(n))
	}
	t.SyncThreads()
}

// offsetDigits turns the counts into offsets: thread d sums digit d over
// the warps, a block scan of the sums gives each digit's start, and thread
// d adds it. Three __syncthreads.
func offsetDigits(t *gpu.Thread, tmp gpu.Buffer[int32], radix int) {
	g := t.Grid()
	d := t.ThreadRank()
	var sum int32
	if d < radix {
		for w := range g.Warps {
			c := tmp.Load(t, d*g.Warps+w)
			tmp.Store(t, d*g.Warps+w, sum)
			sum += c
		}
	}
	start, _ := exclusiveScan(t, tmp, radix*g.Warps, sum, 0, gpu.Add[int32])
	if d < radix {
		for w := range g.Warps {
			tmp.Store(t, d*g.Warps+w, tmp.Load(t, d*g.Warps+w)+start)
		}
	}
	t.SyncThreads()
}
