package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/scope"
)

// TestPendingJoinsOnlyAtAFence: a held release folded into what is
// pending keeps its parts as they are, allocating nothing; a fence takes
// the parts its scope reaches and leaves the wider ones pending.
func TestPendingJoinsOnlyAtAFence(t *testing.T) { //nolint:paralleltest // AllocsPerRun
	th := &pthread{tid: 1, c: 1}
	warp, block := threadsClock([]epoch{at(2, 0, 0, 1)}), threadsClock([]epoch{at(3, 0, 0, 1)})
	c, r := th.coldState(), &relInfo{}
	allocs := testing.AllocsPerRun(10, func() {
		c.pend = pending{}
		c.held = heldRelease{r: r, m: scope.Block, warp: warp, block: block}
		th.foldHeld()
	})
	assert.Zero(t, allocs, "folding joins nothing")
	require.Equal(t, 2, c.pend.n)
	assert.True(t, c.pend.knows(at(3, 0, 0, 1)))

	th.fenceAcquire(scope.Warp)
	assert.True(t, th.knows(at(2, 0, 0, 1)), "a warp fence takes the warp's part")
	assert.False(t, th.knows(at(3, 0, 0, 1)), "but not the block's")
	th.fenceAcquire(scope.Device)
	assert.True(t, th.knows(at(3, 0, 0, 1)), "a wider fence takes the rest")
	assert.Zero(t, c.pend.n)
}

// TestPendingCompactsByScope: parts past the room are joined, those of
// each scope into one, and still reach the fences their scopes reach.
func TestPendingCompactsByScope(t *testing.T) {
	t.Parallel()
	var p pending
	for i := range pendRoom + 3 {
		s := scope.Warp
		if i%2 == 1 {
			s = scope.Device
		}
		p.add(threadsClock([]epoch{at(int32(10+i), 0, 0, 1)}), s, nil)
	}
	require.LessOrEqual(t, p.n, pendRoom)
	got := joinAll(p.take(scope.Block, nil), nil, nil)
	for i := range pendRoom + 3 {
		assert.Equal(t, i%2 == 0, got.knows(at(int32(10+i), 0, 0, 1)), "part %d", i)
	}
	rest := joinAll(p.take(scope.System, nil), nil, nil)
	for i := 1; i < pendRoom+3; i += 2 {
		assert.True(t, rest.knows(at(int32(10+i), 0, 0, 1)), "part %d", i)
	}
	assert.Zero(t, p.n)
}
