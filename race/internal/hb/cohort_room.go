package hb

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/warpguard/warpguard/gpu"
)

// Room in a cohort. A cohort numbers its launches' threads one after
// another, and its numbers last until its last running launch ends: two
// goroutines that launch in turn on one engine can keep a cohort running
// for as long as they launch, and its numbers would run out (see
// cohortThreads). So a launch that does not fit in the running cohort
// waits for the cohort's launches to end, and then starts a new cohort;
// a launch that starts while one waits waits too (the cohort is closed),
// so that launches that fit do not keep the cohort running past the one
// waiting. A launch that waits on one that has not started, as a spin on
// a flag the other sets does, cannot end, so the wait is bounded: past
// the engine's roomWait, the waiting launch fails, naming the launches
// it waited for.

// cohortWait is how long a launch waits, by default, for the launches of
// a cohort it does not fit in to end.
const cohortWait = time.Minute

// awaitRoom returns, with p.mu held as on entry, once launch g fits in
// the running cohort, or no launch runs (g then starts a new cohort). It
// closes the cohort when g does not fit, and waits while it is closed;
// it panics, as LaunchStart fails, if the cohort still runs after
// p.roomWait.
func (p *Engine) awaitRoom(g *gpu.Grid) {
	var timeout <-chan time.Time
	for ss := p.coh; ss.running > 0 && (ss.closed || int64(ss.threads)+int64(g.Threads) > p.roomThreads); ss = p.coh {
		ss.closed = true
		if ss.drained == nil {
			ss.drained = make(chan struct{})
		}
		if timeout == nil {
			t := time.NewTimer(p.roomWait)
			defer t.Stop()
			timeout = t.C
		}
		drained := ss.drained
		p.mu.Unlock()
		select {
		case <-drained:
			p.mu.Lock()
		case <-timeout:
			p.mu.Lock()
			panic(p.noRoom(g, ss))
		}
	}
}

// noRoom is the error of launch g, which waited for the launches of the
// running cohort ss to end, in vain.
func (p *Engine) noRoom(g *gpu.Grid, ss *cohort) string {
	var names []string
	for _, l := range ss.launches() {
		if !l.ended {
			names = append(names, fmt.Sprintf("%q", l.g.Name))
		}
	}
	slices.Sort(names)
	return fmt.Sprintf("race: launch %q (%d threads) waited %v for the launches running beside it to end (%s): launches that overlap, and those that started while they ran, number their threads together, at most %d, and %d are numbered; a launch that waits for one that has not started cannot end",
		g.Name, g.Threads, p.roomWait, strings.Join(names, ", "), p.roomThreads, ss.threads)
}

// drain notes that cohort ss has no launch running: launches waiting for
// room go on.
func (ss *cohort) drain() {
	if ss.drained != nil {
		close(ss.drained)
		ss.drained = nil
	}
}
