package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outsider returns a vclock that knows thread tid, of no block of the
// test's launch, at step c.
func outsider(tid int32, c uint32) *vclock {
	return threadsClock([]epoch{at(tid, 9, 0, c)})
}

// TestBlockBarrierJoinsWhatAllKnew: after a block barrier every thread
// shares one vclock that knows what each knew, and the block's events
// before the barrier as one block entry, no thread entry of the block
// left beside it; each starts the next generation.
func TestBlockBarrierJoinsWhatAllKnew(t *testing.T) {
	t.Parallel()
	ths := blockThreads(64)
	l := ths[0].l
	for i := range ths {
		if i%3 != 2 { // some threads share their neighbour's vclock, as after a barrier
			ths[i].know = join(outsider(int32(1000+i), 2), threadsClock([]epoch{ths[(i+1)%len(ths)].self()}), nil)
		} else {
			ths[i].know = ths[i-1].know
		}
	}
	v := l.blockBarrier(ths, nil)
	for i := range ths {
		require.Same(t, v, ths[i].know, "thread %d", i)
		assert.Equal(t, uint32(1), ths[i].self().gen(), "thread %d starts the next generation", i)
		if i%3 != 2 {
			assert.True(t, v.knows(at(int32(1000+i), 9, 0, 2)), "what thread %d knew", i)
		}
	}
	assert.Equal(t, uint32(1), v.blockK(int32(ths[0].place.Block)))
	for _, e := range v.epochs() {
		assert.NotEqual(t, int32(ths[0].place.Block), e.blk, "the block entry implies its threads' epochs")
	}
}

// TestWarpBarrierJoinsItsLanes: a partial barrier joins what the threads
// its mask names knew and their epochs into one vclock they share, and
// leaves the others alone.
func TestWarpBarrierJoinsItsLanes(t *testing.T) {
	t.Parallel()
	ths := blockThreads(32)
	knew := make([]*vclock, len(ths))
	for i := range ths {
		knew[i] = outsider(int32(2000+i), 1)
		ths[i].know = knew[i]
	}
	before := make([]epoch, len(ths))
	for i := range ths {
		accessed(&ths[i])
		before[i] = ths[i].self()
	}
	mask := uint64(0b1011)
	ths[0].l.barrier(ths, mask, nil)
	v := ths[0].know
	for i := range ths {
		if !takes(mask, i) {
			assert.Same(t, knew[i], ths[i].know, "lane %d is untouched", i)
			assert.Equal(t, before[i], ths[i].self())
			continue
		}
		require.Same(t, v, ths[i].know, "lane %d", i)
		assert.Equal(t, before[i].c+1, ths[i].self().c, "lane %d starts a new epoch", i)
		for j := range ths {
			assert.Equal(t, takes(mask, j), v.knows(before[j]), "lane %d's epoch", j)
			assert.Equal(t, takes(mask, j), v.knows(at(int32(2000+j), 9, 0, 1)), "what lane %d knew", j)
		}
	}
}

// TestWarpBarrierAfterAnotherMakesNoVclock: lanes that made no access
// since their last __syncwarp pass another: each already knows every
// lane's last access, so the second barrier leaves them the first one's
// vclock; a lane that accessed in between is joined in.
func TestWarpBarrierAfterAnotherMakesNoVclock(t *testing.T) {
	t.Parallel()
	ths := blockThreads(32)
	for i := range ths {
		ths[i].know = outsider(int32(2000+i), 1)
		accessed(&ths[i])
	}
	l, all := ths[0].l, uint64(1<<32-1)
	l.barrier(ths, all, nil)
	v := ths[0].know
	l.barrier(ths, all, nil)
	for i := range ths {
		require.Same(t, v, ths[i].know, "lane %d", i)
	}
	accessed(&ths[7])
	e := ths[7].self()
	l.barrier(ths, all, nil)
	assert.NotSame(t, v, ths[0].know)
	assert.True(t, ths[0].knows(e), "lane 7's access between the barriers")
}
