package gpu

import (
	"context"
	"iter"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFibersReusedAcrossLaunches: the fibers of a launch go back to its
// device when it returns, and the next launch runs on the same ones
// rather than on new coroutines. One block, so that how many fibers a
// launch needs does not depend on how its blocks' slots interleave.
func TestFibersReusedAcrossLaunches(t *testing.T) {
	d, err := NewDevice(DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 64}}
	k := func(t *Thread) { t.SyncThreads() }
	idle := func() map[*fiber]bool {
		set := map[*fiber]bool{}
		for _, f := range d.fibers.idle.entries() {
			require.Nil(t, f.ex, "an idle fiber still points at its last launch")
			set[f] = true
		}
		return set
	}
	require.NoError(t, d.Launch(context.Background(), cfg, k))
	first := idle()
	require.Len(t, first, 64, "a fiber for each thread: all but the last parked at the barrier")
	for range 3 {
		require.NoError(t, d.Launch(context.Background(), cfg, k))
		require.Equal(t, first, idle(), "a later launch made new fibers")
	}
}

// unstartedFibers returns n fibers that have not run: stopping one ends
// it without running its loop.
func unstartedFibers(n int) []*fiber {
	fs := make([]*fiber, n)
	for i := range fs {
		f := &fiber{}
		f.next, f.stop = iter.Pull(f.loop)
		fs[i] = f
	}
	return fs
}

// ended reports whether f's coroutine has ended.
func ended(f *fiber) bool {
	_, ok := f.next()
	return !ok
}

// TestFiberPoolBounded: the pool keeps at most its max idle fibers and
// ends the rest; once closed it ends the idle ones and every one put.
func TestFiberPoolBounded(t *testing.T) {
	p := &fiberPool{idle: idlePool[*fiber]{max: 2}}
	fs := unstartedFibers(3)
	p.put(1, fs)
	require.Equal(t, [][]*fiber{nil, fs[:2]}, p.idle.shards)
	require.True(t, ended(fs[2]), "the fiber past the pool's max")
	p.close()
	require.Empty(t, p.idle.entries())
	require.True(t, ended(fs[0]) && ended(fs[1]), "close ends the idle fibers")
	late := unstartedFibers(1)
	p.put(0, late)
	require.Empty(t, p.idle.entries())
	require.True(t, ended(late[0]), "a fiber put after close")
	p.close() // idempotent
}

// TestFiberPoolSlotAffinity: a slot takes back the fibers its index gave
// back, and another slot's only when its own are gone.
func TestFiberPoolSlotAffinity(t *testing.T) {
	p := &fiberPool{idle: idlePool[*fiber]{max: 4}}
	a, b := unstartedFibers(2), unstartedFibers(2)
	p.put(0, a)
	p.put(1, b)
	e := &fiberExec{s: &slot{index: 1, l: &launch{}}}
	got := []*fiber{p.get(e), p.get(e)}
	require.ElementsMatch(t, b, got, "slot 1 takes its own fibers first")
	require.Contains(t, a, p.get(e), "then another slot's")
	require.Len(t, p.idle.entries(), 1)
	p.close()
	for _, f := range append(a, b...) {
		f.ex = nil
		f.stop()
	}
}
