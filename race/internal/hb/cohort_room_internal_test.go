package hb

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// roomGrid returns a grid of one block of n threads named name.
func roomGrid(name string, n int) *gpu.Grid {
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	return &gpu.Grid{Name: name, Device: &gpu.Device{}, GridDim: one, BlockDim: gpu.Dim3{X: n, Y: 1, Z: 1},
		Blocks: 1, BlockSize: n, Threads: n, WarpSize: 32, Warps: (n + 31) / 32}
}

// roomEngine returns an engine whose cohorts number at most threads
// threads, and whose launches wait at most wait for room.
func roomEngine(threads int64, wait time.Duration) *Engine {
	p := New(2, false, false, nil, nil, nil)
	p.roomThreads, p.roomWait = threads, wait
	return p
}

// roomRunning returns a roomEngine of 64 threads that waits at most wait,
// running a launch of n threads named name, and that launch.
func roomRunning(wait time.Duration, name string, n int) (*Engine, *gpu.Grid) {
	p := roomEngine(64, wait)
	g := roomGrid(name, n)
	p.LaunchStart(g)
	return p, g
}

// startAsync starts launch g on p on a goroutine, sending LaunchStart's
// panic, or nil, when it returns.
func startAsync(p *Engine, g *gpu.Grid) <-chan any {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		p.LaunchStart(g)
	}()
	return done
}

// cohortOf returns the cohort of running launch g.
func cohortOf(p *Engine, g *gpu.Grid) *cohort {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.launches[g]; l != nil {
		return l.ss
	}
	return nil
}

// awaitWaiting waits until n launches that do not fit wait in p's
// running cohort.
func awaitWaiting(t *testing.T, p *Engine, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.coh.waiting == n
	}, 10*time.Second, time.Millisecond, "%d launches waiting", n)
}

// TestLaunchWaitsForRoom: a launch that does not fit in the running
// cohort's numbering waits until its launches end and starts a new
// cohort; a launch that fits but starts while it waits waits too, and
// joins the new cohort; neither fails.
func TestLaunchWaitsForRoom(t *testing.T) {
	t.Parallel()
	p, a := roomRunning(time.Minute, "a", 32)
	b, c := roomGrid("b", 48), roomGrid("c", 8)
	bDone := startAsync(p, b)
	awaitWaiting(t, p, 1)
	cDone := startAsync(p, c)
	select {
	case r := <-bDone:
		t.Fatalf("b started beside a, which leaves it no room: %v", r)
	case r := <-cDone:
		t.Fatalf("c started while b waits: %v", r)
	case <-time.After(50 * time.Millisecond):
	}
	old := cohortOf(p, a)
	p.LaunchEnd(a)
	assert.Nil(t, <-bDone, "b's start")
	assert.Nil(t, <-cDone, "c's start")
	nb, nc := cohortOf(p, b), cohortOf(p, c)
	require.NotNil(t, nb)
	assert.NotSame(t, old, nb, "b starts a new cohort")
	assert.Same(t, nb, nc, "c joins it")
	assert.Zero(t, nb.waiting, "no launch waits in the new cohort")
	assert.Equal(t, int32(56), nb.threads, "b's and c's threads numbered anew")
	p.LaunchEnd(b)
	p.LaunchEnd(c)
}

// TestLaunchWaitsForRoomInVain: a launch whose cohort's launches do not
// end within the engine's wait fails, naming them, and a launch that
// fits starts once they have ended.
func TestLaunchWaitsForRoomInVain(t *testing.T) {
	t.Parallel()
	p, a := roomRunning(20*time.Millisecond, "spinner", 40)
	r := <-startAsync(p, roomGrid("setter", 32))
	require.NotNil(t, r, "the start of a launch with no room fails")
	msg := fmt.Sprint(r)
	assert.Contains(t, msg, `launch "setter" (32 threads) waited 20ms for the launches running beside it to end ("spinner")`)
	assert.Contains(t, msg, "at most 64, and 40 are numbered")
	p.LaunchEnd(a)
	g := roomGrid("next", 64)
	assert.Nil(t, <-startAsync(p, g), "a launch after the cohort ended")
	p.LaunchEnd(g)
}

// TestRoomWaitEndsWithContext: a launch waiting for room stops waiting
// when its context ends (gpu.Grid.Done), long before the engine's wait,
// and fails naming the launches it waited for; it no longer counts as
// waiting, so a launch that fits starts.
func TestRoomWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	p, a := roomRunning(time.Minute, "spinner", 40)
	g, done := roomGrid("setter", 32), make(chan struct{})
	g.Done = done
	gDone := startAsync(p, g)
	awaitWaiting(t, p, 1)
	close(done)
	select {
	case r := <-gDone:
		require.NotNil(t, r, "the start of a launch whose context ended fails")
		assert.Contains(t, fmt.Sprint(r), `launch "setter" (32 threads) stopped waiting, its context ended, for the launches running beside it to end ("spinner")`)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting launch did not see its context end")
	}
	c := roomGrid("c", 8)
	assert.Nil(t, <-startAsync(p, c), "a launch that fits starts beside the spinner")
	assert.Same(t, cohortOf(p, a), cohortOf(p, c))
	p.LaunchEnd(a)
	p.LaunchEnd(c)
}

// TestWaitInVainLetsOthersThrough: a launch that fits, waiting behind
// one that does not, starts in the running cohort once that one has
// given up.
func TestWaitInVainLetsOthersThrough(t *testing.T) {
	t.Parallel()
	p, a := roomRunning(30*time.Millisecond, "a", 40)
	bDone := startAsync(p, roomGrid("b", 32))
	awaitWaiting(t, p, 1)
	p.mu.Lock()
	p.roomWait = time.Minute // c's wait outlasts b's
	p.mu.Unlock()
	c := roomGrid("c", 8)
	cDone := startAsync(p, c)
	assert.NotNil(t, <-bDone, "b gives up")
	assert.Nil(t, <-cDone, "c starts")
	assert.Same(t, cohortOf(p, a), cohortOf(p, c), "beside a")
	p.LaunchEnd(a)
	p.LaunchEnd(c)
}

// TestLaunchLargerThanACohort: a launch with more threads than a cohort
// numbers fails at once, with no launch running.
func TestLaunchLargerThanACohort(t *testing.T) {
	t.Parallel()
	p := roomEngine(64, time.Minute)
	assert.PanicsWithError(t, `race: launch "huge" has 96 threads: the exact family numbers the threads of overlapping launches in 31 bits, two keys each, at most 64 in all`,
		func() { p.LaunchStart(roomGrid("huge", 96)) })
}
