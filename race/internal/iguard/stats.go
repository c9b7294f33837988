package iguard

import "sync/atomic"

// counters are one thread's share of the detector's counters. Only the
// goroutine checking the thread's accesses writes them; they are added to
// the detector's totals when the block ends, so no check touches a shared
// counter.
type counters struct {
	accesses  uint64 // accesses observed
	checks    uint64 // granule checks: under the entry's lock, or first touches
	firsts    uint64 // checks settled as a granule's first access (or a store superseding it), without a lock
	repeats   uint64 // accesses that repeated the entry's last update
	coalesced uint64 // accesses that repeated a warp-mate's check
	locks     uint64 // entry lock acquisitions
	contended uint64 // acquisitions that found the entry locked: one each, however many tries it took
	waits     uint64 // backoff steps of contended acquisitions; a tight spin takes none
	waitNs    uint64 // time spent acquiring contended spinlocks with backoff
}

// add adds o to c.
func (c *counters) add(o *counters) {
	c.accesses += o.accesses
	c.checks += o.checks
	c.firsts += o.firsts
	c.repeats += o.repeats
	c.coalesced += o.coalesced
	c.locks += o.locks
	c.contended += o.contended
	c.waits += o.waits
	c.waitNs += o.waitNs
}

// totals are the detector's counters of the blocks that have ended.
type totals struct {
	accesses, checks, firsts, repeats, coalesced, locks, contended, waits, waitNs atomic.Uint64
	// widened counts entries whose records went wide, as it happens (see
	// shadow.save): rare enough for a shared counter.
	widened atomic.Uint64
}

// add adds a block's counters: one atomic add per counter per block, not
// per thread, so a block's end costs the same whatever its size.
func (s *totals) add(c *counters) {
	s.accesses.Add(c.accesses)
	s.checks.Add(c.checks)
	s.firsts.Add(c.firsts)
	s.repeats.Add(c.repeats)
	s.coalesced.Add(c.coalesced)
	s.locks.Add(c.locks)
	s.contended.Add(c.contended)
	s.waits.Add(c.waits)
	s.waitNs.Add(c.waitNs)
}

// reset zeroes the counters, each by an atomic store, so that it may
// run beside the adds of ending blocks and the loads of Stats.
func (s *totals) reset() {
	for _, c := range []*atomic.Uint64{&s.accesses, &s.checks, &s.firsts, &s.repeats, &s.coalesced, &s.locks, &s.contended, &s.waits, &s.waitNs, &s.widened} {
		c.Store(0)
	}
}

// Counts are the engine's counters, as race.Stats reports them: the
// access counters cover the blocks that have ended.
type Counts struct {
	MetadataBytes int64 // memory metadata allocated now
	PeakMetadata  int64 // the most metadata allocated at a block's end

	Accesses, Checks, Firsts, Repeats, Coalesced uint64
	Locks, Contended, Waits, WaitNs, Widened     uint64
}

// Counts returns the engine's counters.
func (d *Engine) Counts() Counts {
	d.notePeak()
	t := &d.totals
	return Counts{MetadataBytes: d.bytes.Load(), PeakMetadata: d.peak.Load(),
		Accesses: t.accesses.Load(), Checks: t.checks.Load(), Firsts: t.firsts.Load(), Repeats: t.repeats.Load(),
		Coalesced: t.coalesced.Load(), Locks: t.locks.Load(), Contended: t.contended.Load(),
		Waits: t.waits.Load(), WaitNs: t.waitNs.Load(), Widened: t.widened.Load()}
}

// ResetCounts zeroes the access counters; metadata bytes stay counted.
func (d *Engine) ResetCounts() { d.totals.reset() }
