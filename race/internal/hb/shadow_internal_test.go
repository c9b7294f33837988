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
	assert.Nil(t, s.find(5001), "a lone touch makes its page alone")
	assert.Equal(t, int64(1), s.pages)
	assert.Equal(t, 1, regionCount(&s))
}

// TestShadowSweepMakesGroups: a touch beside a made page makes the rest
// of its group too, inside its region, skipping pages already made; a
// touch far from any made page makes its page alone.
func TestShadowSweepMakesGroups(t *testing.T) {
	t.Parallel()
	var s shadow
	base := uint64(1 << 20) // the first page of a group
	first := s.page(base + 3)
	s.page(base + 4)
	assert.Equal(t, int64(1<<groupBits-3), s.pages, "the group from the region's start, base+3, on")
	assert.NotNil(t, s.find(base+1<<groupBits-1))
	assert.Nil(t, s.find(base+1<<groupBits), "not the next group")
	mid := s.page(base + 2) // below the region: it grows down and absorbs the first
	assert.Same(t, first, s.page(base+3), "pages survive the absorption")
	assert.Same(t, mid, s.page(base+2))
	assert.NotNil(t, s.find(base), "the group's pages below the old region")
	assert.Equal(t, int64(1<<groupBits), s.pages, "no page made twice")
	s.page(base + 40*(1<<groupBits))
	assert.Equal(t, int64(1<<groupBits+1), s.pages, "a lone touch makes one page")
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
