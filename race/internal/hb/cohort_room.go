package hb

import (
	"errors"
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
// while such a launch waits, a launch that fits waits too, so that
// launches that fit do not keep the cohort running past the one waiting.
// A launch that waits on one that has not started, as a spin on a flag
// the other sets does, cannot end, so the wait is bounded: past the
// engine's roomWait, or once the waiting launch's context ends
// (gpu.Grid.Done), it fails, naming the launches it waited for, and
// those that fit go on.

// cohortWait is how long a launch waits, by default, for the launches of
// a cohort it does not fit in to end.
const cohortWait = time.Minute

// awaitRoom returns, with p.mu held as on entry, once launch g has room
// (see hasRoom), counting itself among the running cohort's waiting
// launches while it does not fit. It panics, as LaunchStart fails, if g
// still has no room after p.roomWait or once g.Done is closed.
func (p *Engine) awaitRoom(g *gpu.Grid) {
	var in *cohort // the cohort g counts itself a waiting launch of
	defer func() {
		if in != nil {
			in.waiting--
			in.signal()
		}
	}()
	var timeout <-chan time.Time
	var waited time.Duration
	for ss := p.coh; !p.hasRoom(ss, g); ss = p.coh {
		if in != ss && !p.fits(ss, g) {
			in = ss
			ss.waiting++
		}
		if timeout == nil {
			waited = p.roomWait
			t := time.NewTimer(waited)
			defer t.Stop()
			timeout = t.C
		}
		if how := p.sleep(ss.wakeup(), timeout, g.Done, waited); how != "" {
			if !p.hasRoom(p.coh, g) {
				panic(errors.New(p.noRoom(g, p.coh, how)))
			}
			return
		}
	}
}

// sleep releases p.mu until wake is closed, and returns "", or until
// timeout fires, after waited, or done is closed, and returns how the
// wait ended, in noRoom's words. p.mu is held again on return.
func (p *Engine) sleep(wake <-chan struct{}, timeout <-chan time.Time, done <-chan struct{}, waited time.Duration) string {
	p.mu.Unlock()
	defer p.mu.Lock()
	select {
	case <-wake:
		return ""
	case <-timeout:
		return fmt.Sprintf("waited %v", waited)
	case <-done:
		return "stopped waiting, its context ended,"
	}
}

// hasRoom reports whether launch g may start now beside the launches of
// cohort ss: none runs (g starts a new cohort), or g fits and no launch
// that does not waits.
func (p *Engine) hasRoom(ss *cohort, g *gpu.Grid) bool {
	return ss.running == 0 || p.fits(ss, g) && ss.waiting == 0
}

// fits reports whether launch g's threads can be numbered in cohort ss.
func (p *Engine) fits(ss *cohort, g *gpu.Grid) bool {
	return int64(ss.threads)+int64(g.Threads) <= p.roomThreads
}

// noRoom is the error of launch g, which waited for the launches of the
// running cohort ss to end, in vain; how says how its wait ended.
func (p *Engine) noRoom(g *gpu.Grid, ss *cohort, how string) string {
	var names []string
	for _, l := range ss.launches() {
		if !l.ended {
			names = append(names, fmt.Sprintf("%q", l.g.Name))
		}
	}
	slices.Sort(names)
	return fmt.Sprintf("race: launch %q (%d threads) %s for the launches running beside it to end (%s): launches that overlap, and those that started while they ran, number their threads together, at most %d, and %d are numbered; a launch that waits for one that has not started cannot end",
		g.Name, g.Threads, how, strings.Join(names, ", "), p.roomThreads, ss.threads)
}

// wakeup returns a channel closed at the cohort's next signal.
func (ss *cohort) wakeup() <-chan struct{} {
	if ss.wake == nil {
		ss.wake = make(chan struct{})
	}
	return ss.wake
}

// signal wakes the launches waiting for room in the cohort: its last
// launch ended, or a launch that did not fit stopped waiting.
func (ss *cohort) signal() {
	if ss.wake != nil {
		close(ss.wake)
		ss.wake = nil
	}
}
