package gpu

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotResident is the cause of a launch stopped because every resident
// block spins waiting while blocks that were never scheduled are left: the
// spinning blocks wait on blocks that cannot become resident until they
// finish, which on a GPU hangs forever. A cooperative launch rules this
// out up front (see [ErrCooperativeLaunchTooLarge]).
var ErrNotResident = errors.New("gpu: blocks wait on blocks that are not resident")

// residencyGrace is how long every resident block may spin with no thread
// finishing and no barrier completing, while unscheduled blocks remain,
// before the launch is judged to wait on blocks that can never run. Only
// spinning threads (yielding at strong or atomic accesses) start the
// clock, so a block busy with plain work never counts as stuck.
const residencyGrace = 2 * time.Second

// quiet is a block's watch for spinning without progress.
type quiet struct {
	live, rounds int       // the progress marks when the watch began
	since        time.Time // when they last changed
	watching     bool
	stuck        bool // counted in the launch's stuck slots
}

// watchResidency runs when a thread of b yields while spinning and blocks
// wait to be scheduled. It marks b stuck once it has made no progress for
// residencyGrace, and stops the launch when every slot is stuck.
// Preconditions: block locked.
func (b *block) watchResidency() {
	now := time.Now()
	q := &b.quiet
	if !q.watching || q.live != b.live || q.rounds != b.rounds {
		b.setStuck(false)
		*q = quiet{live: b.live, rounds: b.rounds, since: now, watching: true}
		return
	}
	if !q.stuck && now.Sub(q.since) >= residencyGrace {
		b.setStuck(true)
	}
}

// setStuck records whether b is stuck in the launch's count of stuck
// slots, and stops the launch when that count reaches every slot.
func (b *block) setStuck(stuck bool) {
	if b.quiet.stuck == stuck {
		return
	}
	b.quiet.stuck = stuck
	if !stuck {
		b.l.stuckSlots.Add(-1)
		return
	}
	if int(b.l.stuckSlots.Add(1)) == b.l.slots {
		pending := b.l.g.Blocks - int(min(b.l.next.Load(), int64(b.l.g.Blocks)))
		b.l.stall(fmt.Errorf("%w: every one of the %d resident blocks spun for %v with no thread finishing while %d of %d blocks were never scheduled; blocks that wait on each other must all be resident (launch with LaunchConfig.Cooperative, which checks it, or with fewer blocks)",
			ErrNotResident, b.l.slots, residencyGrace, pending, b.l.g.Blocks))
	}
}

// unscheduled reports whether blocks of the launch wait to be scheduled.
func (l *launch) unscheduled() bool { return l.next.Load() < int64(l.g.Blocks) }
