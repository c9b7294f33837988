package shared

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/callsite"
	"github.com/warpguard/warpguard/scope"
)

// siteChecker is an Observer that resolves every access's site both
// through the cache and through gpu.Thread.Caller, and counts mismatches.
type siteChecker struct {
	c          Sites
	mu         sync.Mutex
	n, differs int
}

func (s *siteChecker) LaunchStart(*gpu.Grid)      {}
func (s *siteChecker) LaunchEnd(*gpu.Grid, error) {}
func (s *siteChecker) BlockStart(*gpu.Grid, int)  {}
func (s *siteChecker) BlockEnd(*gpu.Grid, int)    {}
func (s *siteChecker) Fence(*gpu.Thread, scope.Scope, gpu.Order) {
}
func (s *siteChecker) Sync(*gpu.Thread, gpu.Sync) {}
func (s *siteChecker) Access(t *gpu.Thread, _ *gpu.Access) {
	got, _ := s.c.Of(t)
	s.compare(got, t.Caller())
}

// compare counts an access whose cached site got is want, or is not.
func (s *siteChecker) compare(got, want gpu.Site) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if got.File() != want.File() || got.Line() != want.Line() || got.Function() != want.Function() {
		s.differs++
	}
}

//go:noinline
func helperStore(t *gpu.Thread, x gpu.Buffer[int32], i int) { x.Store(t, i, 1) }

func TestSiteCacheMatchesCaller(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 64)
	sc := &siteChecker{}
	for _, e := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: e, Observer: sc},
			func(t *gpu.Thread) {
				for i := range 4 {
					x.Store(t, t.Lane(), int32(i))
					helperStore(t, x, t.Lane())
					x.AtomicCAS(t, 32+t.Lane(), 0, 1, scope.Device)
				}
				helperStore(t, x, t.Lane())
				_ = x.LoadVolatile(t, t.Lane())
			}))
	}
	require.Equal(t, 2*64*14, sc.n)
	require.Zero(t, sc.differs)
}

// deepChecker is a siteChecker that asks the cache from depth frames
// below its Access method, as a detector's report does from deep in its
// checks: the cache's key (framePCsLen return addresses) then ends
// before the kernel's line.
type deepChecker struct {
	siteChecker
	depth int
}

func (s *deepChecker) Access(t *gpu.Thread, _ *gpu.Access) {
	got := s.deepOf(t, s.depth)
	s.compare(got, t.Caller())
}

//go:noinline
func (s *deepChecker) deepOf(t *gpu.Thread, depth int) gpu.Site {
	if depth == 0 {
		site, _ := s.c.Of(t)
		return site
	}
	return s.deepOf(t, depth-1)
}

// TestOpenKeysResolveEachAccess: paths from two lines of a kernel share
// a key too short to name either line; the cache keeps the key as open
// and gives each access its own line, through the longer key of each
// line's path, which reaches the kernel's frame (as far as
// gpu.Thread.Caller looks, and one frame further).
func TestOpenKeysResolveEachAccess(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{framePCsLen / 2, callsite.LongLen/2 - 1} {
		d, err := gpu.NewDevice(gpu.DeviceConfig{})
		require.NoError(t, err)
		x := gpu.Alloc[int32](d, "x", 32)
		sc := &deepChecker{depth: depth}
		require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Observer: sc},
			func(t *gpu.Thread) {
				for range 3 {
					x.Store(t, t.Lane(), 1)
					x.Store(t, t.Lane(), 2)
				}
			}))
		require.Equal(t, 32*6, sc.n)
		require.Zero(t, sc.differs, "depth %d: an open key's accesses get their own lines", depth)
		open := 0
		for _, s := range sc.c.ids.keyed {
			if s.open {
				open++
				require.Zero(t, s.handle, "an open key takes no handle")
			}
		}
		require.Equal(t, 1, open, "depth %d: the two lines' paths share one open key", depth)
		named := 0
		for i := range sc.c.long {
			if s := sc.c.long[i].Load(); s != nil {
				require.False(t, s.site.IsZero(), "depth %d: a long path reaches the kernel's line", depth)
				named++
			}
		}
		if walks() {
			require.Positive(t, named, "depth %d: long paths cached", depth)
		}
	}
}

// walks reports whether callsite walks frame pointers here; where it
// does not, every open key's access is resolved by gpu.Thread.Caller.
func walks() bool {
	var key [callsite.LongLen]uintptr
	n, _ := callsite.WalkLong(&key)
	return n > 0
}
