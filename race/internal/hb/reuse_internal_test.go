package hb

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestShadowKeepsFollowRecentPeak: a shadow serves again through a run
// of small cohorts between large ones, up to about ten, and is dropped
// after a longer run, or at once when it holds far more pages than any
// recent cohort touched.
func TestShadowKeepsFollowRecentPeak(t *testing.T) {
	t.Parallel()
	s := &shadow{pages: 10000}
	s.touched.Store(10000)
	assert.True(t, s.keeps(), "a cohort that touched every page")
	for i := range 10 {
		s.touched.Store(3)
		assert.True(t, s.keeps(), "small cohort %d after a large one", i+1)
	}
	s.touched.Store(3)
	assert.False(t, s.keeps(), "the eleventh small cohort in a row")

	far := &shadow{pages: 10000}
	far.touched.Store(100)
	assert.False(t, far.keeps(), "pages far beyond what its cohort touched")
}

// TestRenewEmptiesPagesLazily: a new generation empties a page at its
// first visit, not before, and counts it touched once; the shadow's
// pages, uncounted when its cohort ended, are counted again.
func TestRenewEmptiesPagesLazily(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	s := p.newShadow()
	pg := s.page(3)
	pg.cells[1].first.e.c = 5
	p.free(s)
	assert.Zero(t, p.Counts().MetadataBytes)
	s.renew(&p.totals)
	assert.Equal(t, pageBytes*s.pages, p.Counts().MetadataBytes, "the pages counted again")
	assert.Equal(t, uint64(5), pg.cells[1].first.e.c, "untouched until visited")
	pg.renew(s)
	pg.renew(s)
	assert.Zero(t, pg.cells[1].first.e.c)
	assert.Equal(t, int64(1), s.touched.Load())
}

// TestSparesStayFew: a spare per device, the latest, and no more than
// maxSpares devices' however many devices come and go.
func TestSparesStayFew(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	var keep []*shadow // held, so that the collector leaves the spares
	for dev := range uint64(3 * maxSpares) {
		for range 2 {
			sh := p.newShadow()
			keep = append(keep, sh)
			p.keepSpare(dev, sh)
		}
	}
	assert.Len(t, p.spares, maxSpares)
	assert.Same(t, keep[len(keep)-3], p.reused(3*maxSpares-2), "the device's latest, not the one kept after it")
	assert.Same(t, keep[len(keep)-1], p.reused(0), "the oldest device's went: it takes the one kept last")
	assert.Len(t, p.spares, maxSpares-2)
	for range maxSpares - 2 {
		require.NotNil(t, p.reused(99))
	}
	assert.Nil(t, p.reused(99), "none left")
}

// TestSpareDirectoryBounded: a shadow whose directory grew far past its
// pages, as one serving cohort after cohort of buffers at ever higher
// addresses would, does not serve again, though its pages alone would
// let it.
func TestSpareDirectoryBounded(t *testing.T) {
	t.Parallel()
	var s shadow
	k := uint64(0)
	for range 10 {
		s.page(k)
		k += uint64(s.slots()) + regionGap - 1 // near the region's end: it grows to reach it
	}
	require.LessOrEqual(t, s.pages, 2*s.touched.Load()+keepSlack, "the pages alone would keep it")
	require.Greater(t, s.slots(), slotsPerPage*(2*s.touched.Load()+keepSlack))
	assert.False(t, s.keeps())
}

// TestSpareBlocksServeNextLaunch: an ended launch's blocks' states serve
// the next launch's blocks, the latest first: whole for a block of the
// same size, only the shadow of shared memory for another size; one
// batch a launch, at most maxSpareBlocks kept in all, the oldest batches
// dropped first; a launch takes at most as many as it has blocks, the
// rest staying kept, and none is kept once taken.
func TestSpareBlocksServeNextLaunch(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	ended := func(n int) *plaunch {
		l := &plaunch{}
		for range n {
			l.spare = append(l.spare, blockStates{threads: make([]pthread, 64), shared: p.newShadow()})
		}
		return l
	}
	old, l := ended(3), ended(maxSpareBlocks+3) // each holds its spares, so that the collector leaves them
	p.keepBlocks(old)
	p.keepBlocks(l)
	require.Len(t, p.blocks, 1, "the older batch made room")
	require.Equal(t, maxSpareBlocks, p.keptBlocks())
	small, _ := p.takeBlocks(2)
	require.Len(t, small, 2, "a launch of two blocks takes two")
	assert.Same(t, &l.spare[maxSpareBlocks+2].threads[0], &small[1].threads[0], "the latest")
	require.Len(t, p.blocks, 1, "the rest stays kept")
	assert.Equal(t, maxSpareBlocks-2, p.keptBlocks())
	rest, _ := p.takeBlocks(maxSpareBlocks)
	require.Len(t, rest, maxSpareBlocks-2)
	assert.Same(t, &l.spare[maxSpareBlocks].threads[0], &rest[maxSpareBlocks-3].threads[0], "what the small launch left")
	_ = append(rest, blockStates{}) // a block of the second launch ends
	assert.Same(t, &l.spare[maxSpareBlocks+1].threads[0], &small[0].threads[0], "the parts share no room")
	p.keepBlocks(l)
	next := &plaunch{g: &gpu.Grid{BlockSize: 64}}
	next.spare, next.box = p.takeBlocks(maxSpareBlocks)
	assert.Empty(t, p.blocks, "a taken batch is the engine's no more")
	same := next.threads()
	assert.Same(t, &l.spare[maxSpareBlocks+2].threads[0], &same.threads[0], "the latest kept, whole")
	assert.Same(t, l.spare[maxSpareBlocks+2].shared, same.shared)
	next.g.BlockSize = 32
	other := next.threads()
	assert.Len(t, other.threads, 32, "new states for another size")
	assert.Same(t, l.spare[maxSpareBlocks+1].shared, other.shared, "with the spare's shadow")
	for range maxSpareBlocks - 2 {
		next.threads()
	}
	fresh := next.threads()
	assert.Len(t, fresh.threads, 32)
	assert.Nil(t, fresh.shared, "none left: new states and no shadow")
	none, _ := p.takeBlocks(1)
	assert.Nil(t, none, "nothing kept")
}

// TestLastSpareOutlivesCollection: the shadow kept last serves the next
// cohort even if the collector ran in between; one kept before it is the
// collector's to reclaim.
func TestLastSpareOutlivesCollection(t *testing.T) { //nolint:paralleltest // runtime.GC
	p := New(2, false, false, nil, nil, nil)
	p.keepSpare(1, p.newShadow())
	last := p.newShadow()
	last.page(7)
	p.keepSpare(2, last)
	last = nil
	runtime.GC()
	runtime.GC()
	sh := p.reused(2)
	require.NotNil(t, sh, "the last kept shadow is held")
	assert.NotNil(t, sh.find(7), "with its pages")
	assert.Nil(t, p.reused(1), "the earlier one was reclaimed")
}

// TestRelaunchKeepsItsBatchInOneBox: a launch that took a batch whole
// keeps its own blocks' states in that batch's box, under the same weak
// pointer, so a kernel launched again and again makes no new one; a
// launch that took part of a batch leaves the rest in the batch's box and
// keeps its own in a new one.
func TestRelaunchKeepsItsBatchInOneBox(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	first := &plaunch{spare: make([]blockStates, 4)}
	p.keepBlocks(first)
	w := p.blocks[0].states
	again := &plaunch{}
	again.spare, again.box = p.takeBlocks(4)
	require.Len(t, again.spare, 4)
	require.NotNil(t, again.box.p, "the launch took the batch whole")
	again.spare = append(again.spare[:0], make([]blockStates, 3)...)
	p.keepBlocks(again)
	require.Len(t, p.blocks, 1)
	assert.Equal(t, w, p.blocks[0].states, "the same weak pointer")
	assert.Equal(t, 3, p.blocks[0].n)
	assert.Len(t, *w.Value(), 3, "holding the launch's states")

	part := &plaunch{}
	part.spare, part.box = p.takeBlocks(1)
	require.Len(t, part.spare, 1)
	assert.Nil(t, part.box.p, "a part of a batch comes without its box")
	require.Len(t, p.blocks, 1)
	assert.Equal(t, w, p.blocks[0].states, "the rest stays in the batch's box")
	assert.Len(t, *w.Value(), 2)
	p.keepBlocks(part)
	require.Len(t, p.blocks, 2)
	assert.NotEqual(t, w, p.blocks[1].states, "the part's launch keeps its own in a new box")
	runtime.KeepAlive(again)
}
