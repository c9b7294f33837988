package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrLivelock is the cause of a launch stopped by its watchdog: for the
// watchdog's window, every unfinished thread spun (yielded at strong or
// atomic accesses, or polled an element with weak loads) or waited at a
// barrier, and none made progress: no thread changed memory, completed a
// barrier or collective, or exited.
var ErrLivelock = errors.New("gpu: livelock: no thread made progress")

// DefaultWatchdog is the livelock window of a device whose
// DeviceConfig.Watchdog is zero.
const DefaultWatchdog = 5 * time.Second

// The slot states the watchdog reads in slotWatch.quietAt, besides the time
// a slot last confirmed that its block is quiet.
const (
	slotBusy    = 0  // the block made progress, or has not been quiet for a window
	slotDone    = -1 // the slot has no block left to run
	slotWaiting = -2 // every live thread of the block waits, one at a grid sync (see coop.setStalled)
)

// quietPeriods is how many periods of a quarter of the window a block must
// be quiet in a row before it counts as stuck.
const quietPeriods = 4

// livelock is a block's watch for spinning without progress. The window is
// cut into periods; a period is quiet if no thread of the block made
// progress during it and every live thread not waiting at a barrier
// yielded while spinning during it. A thread that runs plain code without
// calling into the runtime never yields, so its block is never quiet: a
// long computation cannot trip the watchdog.
type livelock struct {
	seq          uint64    // numbers the block's yields
	from         uint64    // seq when the current period began
	since        time.Time // when it began; zero before the first check
	live, rounds int       // the progress marks the period began with
	periods      int       // quiet periods in a row
}

// watchLivelock runs when t yields while spinning. It ends the quiet
// streak if the block made progress, and otherwise, once every quarter
// window, closes a period and, after a window of quiet ones, records the
// slot as stuck and stops the launch if every slot is.
// Preconditions: block locked; the launch's watchdog is on.
func (b *block) watchLivelock(t *Thread) {
	q := &b.ll
	q.seq++
	t.yieldSeq = q.seq
	if t.progress || q.live != b.live || q.rounds != b.rounds {
		b.resetLivelock()
		return
	}
	if q.seq%16 != 0 {
		return // read the clock once every 16 yields
	}
	now := time.Now()
	if q.since.IsZero() {
		q.since, q.from = now, q.seq
		return
	}
	if now.Sub(q.since) < b.l.window/quietPeriods {
		return
	}
	if b.allYielded(q.from) {
		q.periods++
	} else {
		q.periods = 0
	}
	q.since, q.from = now, q.seq
	if q.periods >= quietPeriods {
		b.l.watch[b.slot].quietAt.Store(now.UnixNano())
		b.l.checkLivelock(now)
	}
}

// resetLivelock starts the block's watch afresh from its current marks.
func (b *block) resetLivelock() {
	q := &b.ll
	if q.periods >= quietPeriods {
		b.l.watch[b.slot].quietAt.Store(slotBusy)
	}
	*q = livelock{seq: q.seq, live: b.live, rounds: b.rounds}
}

// allYielded reports whether every live thread of the block that is not
// waiting at a barrier or collective yielded after yield number from.
func (b *block) allYielded(from uint64) bool {
	for i := range b.threads {
		t := &b.threads[i]
		if !t.done && !t.parked && t.yieldSeq <= from {
			return false
		}
	}
	return true
}

// checkLivelock stops the launch with ErrLivelock when every slot that
// still runs a block confirmed it stuck within the last half window, or
// waits with it at a grid sync, and no block finished for half a window:
// a slot whose thread left its spin for plain code stops confirming
// within that time, and a block that finishes may have released one.
func (l *launch) checkLivelock(now time.Time) {
	recent := now.Add(-l.window / 2).UnixNano()
	done := 0
	for i := range l.watch {
		switch v := l.watch[i].quietAt.Load(); {
		case v == slotDone:
			done++
		case v == slotWaiting:
		case v < recent:
			return
		}
	}
	if !l.ends.still(l.ends.blocks.Load()+int64(done), now, l.window/2) {
		return
	}
	l.stall(fmt.Errorf("%w for %v: every unfinished thread spun or waited, and none changed memory, completed a barrier or exited (LaunchConfig.Watchdog sets the window; a negative one turns the watchdog off)",
		ErrLivelock, l.window))
}

// endMarks tracks how many blocks and slots of a launch have finished,
// for checkLivelock.
type endMarks struct {
	blocks atomic.Int64 // blocks finished
	mu     sync.Mutex
	n      int64     // blocks and slots finished at the last change
	since  time.Time // when n last changed, from the launch's start
}

// still reports whether the mark n has not changed for d.
func (e *endMarks) still(n int64, now time.Time, d time.Duration) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n != e.n {
		e.n, e.since = n, now
		return false
	}
	return now.Sub(e.since) >= d
}

// watchdog returns the livelock window of a launch of cfg on d, or 0 if
// the watchdog is off.
func (d *Device) watchdog(cfg LaunchConfig) time.Duration {
	w := cfg.Watchdog
	if w == 0 {
		w = d.cfg.Watchdog
	}
	return max(w, 0)
}
