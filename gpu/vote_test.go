package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// preds are per-lane predicate patterns, one bit per lane.
var preds = []uint64{0, 0xffffffff, 0x1, 0x80000000, 0x55555555, 0x0000ffff, 0xdeadbeef}

// voteResults are what one lane got from every vote for one pattern.
type voteResults struct {
	ballot        uint64
	any, all, uni bool
	matchAny      uint64
	matchAll      uint64
	matchAllOK    bool
}

// refVotes is the sequential reference for lane of part (the participating
// lanes) with predicate bits p and per-lane values val.
func refVotes(part, p uint64, lane int, val func(int) uint32) voteResults {
	var r voteResults
	r.ballot = part & p
	r.any = r.ballot != 0
	r.all = r.ballot == part
	r.uni = r.ballot == 0 || r.ballot == part
	for l := range 64 {
		if part&(1<<l) != 0 && val(l) == val(lane) {
			r.matchAny |= 1 << l
		}
	}
	if r.matchAny == part {
		r.matchAll, r.matchAllOK = part, true
	}
	return r
}

func TestVotesReference(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		for _, threads := range []int{32, 20} {
			for _, mask := range testMasks {
				for _, p := range preds {
					val := func(l int) uint32 { return uint32(l % 3) }
					if p == 0 {
						val = func(int) uint32 { return 9 }
					}
					got := make([]voteResults, threads)
					require.NoError(t, launch1D(d, ex, 1, threads, func(t *gpu.Thread) {
						l := t.Lane()
						if mask&(1<<l) == 0 {
							return
						}
						pred := p&(1<<l) != 0
						var r voteResults
						r.ballot = gpu.BallotSync(t, mask, pred)
						r.any = gpu.AnySync(t, mask, pred)
						r.all = gpu.AllSync(t, mask, pred)
						r.uni = gpu.UniSync(t, mask, pred)
						r.matchAny = gpu.MatchAnySync(t, mask, val(l))
						r.matchAll, r.matchAllOK = gpu.MatchAllSync(t, mask, val(l))
						got[l] = r // each lane writes only its own element
					}))
					part := mask & (1<<threads - 1)
					for l := range threads {
						if part&(1<<l) != 0 {
							require.Equal(t, refVotes(part, p, l, val), got[l], "threads %d mask %#x pred %#x lane %d", threads, mask, p, l)
						}
					}
				}
			}
		}
	})
}

// FuzzVote checks ballot, any, all and match_any for arbitrary masks,
// predicates and values.
func FuzzVote(f *testing.F) {
	f.Add(uint64(0xffffffff), uint64(0x12345678), uint32(3))
	f.Add(uint64(0x00ff00ff), uint64(0), uint32(1))
	f.Add(uint64(0x1), uint64(1), uint32(7))
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(f, err)
	closeAtEnd(f, d)
	f.Fuzz(func(t *testing.T, mask, p uint64, mod uint32) {
		mask &= 0xffffffff
		if mask == 0 {
			return
		}
		mod = mod%7 + 1
		val := func(l int) uint32 { return uint32(l) % mod }
		got := make([]voteResults, 32)
		require.NoError(t, launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) {
			l := t.Lane()
			if mask&(1<<l) == 0 {
				return
			}
			pred := p&(1<<l) != 0
			r := &got[l]
			r.ballot = gpu.BallotSync(t, mask, pred)
			r.any = gpu.AnySync(t, mask, pred)
			r.all = gpu.AllSync(t, mask, pred)
			r.uni = gpu.UniSync(t, mask, pred)
			r.matchAny = gpu.MatchAnySync(t, mask, val(l))
			r.matchAll, r.matchAllOK = gpu.MatchAllSync(t, mask, val(l))
		}))
		for l := range 32 {
			if mask&(1<<l) != 0 {
				require.Equal(t, refVotes(mask, p, l, val), got[l], "lane %d", l)
			}
		}
	})
}
