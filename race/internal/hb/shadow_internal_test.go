package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// regionCount returns how many regions s's directory has.
func regionCount(s *shadow) int {
	if p := s.regs.Load(); p != nil {
		return len(*p)
	}
	return 0
}

func TestShadowPageIsMadeOnce(t *testing.T) {
	t.Parallel()
	var s shadow
	pg := s.page(5000)
	require.NotNil(t, pg)
	assert.Same(t, pg, s.page(5000), "a page is found again, not made anew")
	assert.Nil(t, s.find(5001), "a page no one touched is not made")
	assert.Equal(t, 1, regionCount(&s))
}

func TestShadowRegionGrowsBothWays(t *testing.T) {
	t.Parallel()
	var s shadow
	pages := map[uint64]*page{}
	for _, k := range []uint64{1 << 16, 1<<16 + regionGap + 5, 1<<16 - 3, 1<<16 + 4*regionGap, 1<<16 - 2*regionGap} {
		pages[k] = s.page(k)
	}
	assert.Equal(t, 1, regionCount(&s), "touches near a region grow it")
	for k, pg := range pages {
		assert.Same(t, pg, s.page(k), "page %d survives the growth", k)
	}
}

func TestShadowFarPagesStartRegions(t *testing.T) {
	t.Parallel()
	var s shadow
	a, b := s.page(10), s.page(1<<30)
	assert.Equal(t, 2, regionCount(&s), "a far page starts a region, not a directory spanning the gap")
	assert.Same(t, a, s.page(10))
	assert.Same(t, b, s.page(1<<30))
}

func TestShadowGrowthAbsorbsOverlappedRegions(t *testing.T) {
	t.Parallel()
	var s shadow
	pages := map[uint64]*page{}
	// Two regions a little more than a gap apart; growing the first
	// toward the second must take it in, so no page has two slots.
	for _, k := range []uint64{0, 3 * regionGap, regionGap + 10, 2*regionGap + 5} {
		pages[k] = s.page(k)
	}
	for k, pg := range pages {
		assert.Same(t, pg, s.page(k), "page %d", k)
	}
	regs := *s.regs.Load()
	for i, r := range regs {
		for _, o := range regs[i+1:] {
			assert.False(t, r.lo < o.lo+uint64(len(o.pages)) && o.lo < r.lo+uint64(len(r.pages)), "regions overlap")
		}
	}
}

// TestShadowDescendingPagesStayBounded: pages touched one by one in
// descending order, down to page 0, grow the directory geometrically
// downward, never past twice the span touched. A region that grew away
// from the page when page 0 left no room below it would double at each
// page instead.
func TestShadowDescendingPagesStayBounded(t *testing.T) {
	t.Parallel()
	var s shadow
	const top = 20000
	for k := uint64(top); ; k-- {
		s.page(k)
		if k == 0 {
			break
		}
	}
	assert.LessOrEqual(t, s.slots(), int64(2*(top+1)+2*regionMin+regionGap))
	for k := uint64(0); k <= top; k += 997 {
		assert.NotNil(t, s.find(k), "page %d", k)
	}
}
