package shared

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// slotRecorder is an Observer that looks up every access's call path in
// its cache and keeps the slots it got, in order.
type slotRecorder struct {
	c     Sites
	mu    sync.Mutex
	slots []*SiteSlot
	evict bool // fill every cache line with a foreign slot after each lookup
}

func (s *slotRecorder) LaunchStart(*gpu.Grid)                     {}
func (s *slotRecorder) LaunchEnd(*gpu.Grid, error)                {}
func (s *slotRecorder) BlockStart(*gpu.Grid, int)                 {}
func (s *slotRecorder) BlockEnd(*gpu.Grid, int)                   {}
func (s *slotRecorder) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (s *slotRecorder) Sync(*gpu.Thread, gpu.Sync)                {}
func (s *slotRecorder) Access(t *gpu.Thread, _ *gpu.Access) {
	_, slot := s.c.Of(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots = append(s.slots, slot)
	if s.evict {
		foreign := &SiteSlot{key: [framePCsLen]uintptr{1}}
		for i := range s.c.slots {
			s.c.slots[i].Store(foreign)
		}
	}
}

// TestOneSlotPerPath: a call path keeps its slot, and so its handle, for
// the life of the cache, even when other paths take its cache line
// between its accesses; and the handle finds the slot again.
func TestOneSlotPerPath(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 4)
	rec := &slotRecorder{evict: true}
	rec.c.Stacks = true
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: rec},
		func(t *gpu.Thread) {
			for i := range 3 {
				x.Store(t, i, 1)
				helperStore(t, x, i)
			}
		}))
	require.Len(t, rec.slots, 6)
	a, b := rec.slots[0], rec.slots[1]
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.NotSame(t, a, b, "two paths")
	for i, s := range rec.slots {
		require.Same(t, rec.slots[i%2], s, "access %d", i)
	}
	for _, s := range []*SiteSlot{a, b} {
		h, ok := s.Handle()
		require.True(t, ok)
		require.NotZero(t, h)
		require.Same(t, s, rec.c.Slot(h))
		require.NotEmpty(t, s.Stack())
	}
}

// TestHandles: the nil slot is handle 0; a bare slot gets a handle the
// table resolves; once the handles run out, a new slot has none, and
// says so, rather than share one.
func TestHandles(t *testing.T) {
	var c Sites
	h, ok := (*SiteSlot)(nil).Handle()
	require.True(t, ok)
	require.Zero(t, h)
	require.Nil(t, c.Slot(0))

	s := c.BareSlot(gpu.Site{})
	h, ok = s.Handle()
	require.True(t, ok)
	require.EqualValues(t, 1, h)
	require.Same(t, s, c.Slot(h))
	require.Same(t, s, c.BareSlot(gpu.Site{}), "interned")

	c.ids.n = 1<<HandleBits - 1
	last := &SiteSlot{}
	c.ids.mu.Lock()
	c.ids.number(last)
	over := &SiteSlot{}
	c.ids.number(over)
	c.ids.mu.Unlock()
	h, ok = last.Handle()
	require.True(t, ok)
	require.EqualValues(t, 1<<HandleBits-1, h)
	require.Same(t, last, c.Slot(h))
	_, ok = over.Handle()
	require.False(t, ok, "past the last handle")
}

// TestOneSlotPerPathConcurrently: threads meeting a new path at once,
// each on its own goroutine, all get the one slot kept for it.
func TestOneSlotPerPathConcurrently(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 128)
	rec := &slotRecorder{}
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}, Executor: gpu.Goroutines, Observer: rec},
		func(t *gpu.Thread) { x.Store(t, t.GlobalID(), 1) }))
	require.Len(t, rec.slots, 128)
	for i, s := range rec.slots {
		require.Same(t, rec.slots[0], s, "thread %d's access", i)
	}
	h, ok := rec.slots[0].Handle()
	require.True(t, ok)
	require.EqualValues(t, 1, h, "one handle given out")
}
