package hb

import (
	"sync/atomic"
	"unsafe"
)

// Counts are the engine's counters. Accesses, Checks, Firsts (granule
// checks a first record settled, with no full state), Repeats (granule
// checks that repeat their thread's record at one epoch, neither checked
// nor recorded: see ploc.repeats, readRepeats, strongRepeats and
// seen.go), Joins (vector
// clock entries that joins and covers checks walked or wrote) and Pairs
// (recorded accesses a check compared a new access with, one by one)
// and Locks (granule checks made under their page's lock, the engine's
// or the runtime's sequencing one: every check but those the thread's
// memo of its same-epoch reads settles, see seen.go) cover the blocks
// that have ended; Pages counts the shadow pages made
// (not those a cohort reused from an earlier one, see reuse.go);
// MetadataBytes is the shadow allocated now, PeakMetadata the most at
// once.
type Counts struct {
	Accesses, Checks, Firsts, Repeats, Joins, Pairs, Locks, Pages uint64
	MetadataBytes, PeakMetadata                                   int64
}

// counters are one thread's share of the access counters, added to the
// engine's totals when its block ends, so that no check touches a shared
// counter; and flat, the engine's ablation of lineages, which the joins
// that count here obey (see vclock.descend).
type counters struct {
	accesses, checks, firsts, repeats, joins, pairs, locks uint64
	flat                                                   bool
}

// joined counts k vector clock entries a join or covers check walked or
// wrote; n may be nil, counting nothing.
func (n *counters) joined(k int) {
	if n != nil {
		n.joins += uint64(k)
	}
}

// totals are the engine's counters.
type totals struct {
	accesses, checks, firsts, repeats, joins, pairs, locks atomic.Uint64
	made                                                   atomic.Uint64 // shadow pages made
	bytes, peak                                            atomic.Int64
}

// sum adds c's counts to n's.
func (n *counters) sum(c *counters) {
	n.accesses += c.accesses
	n.checks += c.checks
	n.firsts += c.firsts
	n.repeats += c.repeats
	n.joins += c.joins
	n.pairs += c.pairs
	n.locks += c.locks
}

// add adds counters, a thread's or a block's sum, to the totals.
func (t *totals) add(c counters) {
	t.accesses.Add(c.accesses)
	t.checks.Add(c.checks)
	t.firsts.Add(c.firsts)
	t.repeats.Add(c.repeats)
	t.joins.Add(c.joins)
	t.pairs.Add(c.pairs)
	t.locks.Add(c.locks)
}

// grow counts n more bytes of shadow, and the peak.
func (t *totals) grow(n int64) {
	now := t.bytes.Add(n)
	for peak := t.peak.Load(); now > peak && !t.peak.CompareAndSwap(peak, now); peak = t.peak.Load() {
	}
}

// pageBytes is what one shadow page costs, its granules' full states
// and their table left out.
const pageBytes = int64(unsafe.Sizeof(page{}))

// Counts returns the engine's counters.
func (p *Engine) Counts() Counts {
	t := &p.totals
	return Counts{Accesses: t.accesses.Load(), Checks: t.checks.Load(), Firsts: t.firsts.Load(), Repeats: t.repeats.Load(), Joins: t.joins.Load(),
		Pairs: t.pairs.Load(), Locks: t.locks.Load(), Pages: t.made.Load(), MetadataBytes: t.bytes.Load(), PeakMetadata: t.peak.Load()}
}

// ResetCounts zeroes the access counters and the pages made; metadata
// bytes stay counted.
func (p *Engine) ResetCounts() {
	p.totals.accesses.Store(0)
	p.totals.checks.Store(0)
	p.totals.firsts.Store(0)
	p.totals.repeats.Store(0)
	p.totals.joins.Store(0)
	p.totals.pairs.Store(0)
	p.totals.locks.Store(0)
	p.totals.made.Store(0)
}

// newShadow returns an empty shadow whose pages the engine counts.
func (p *Engine) newShadow() *shadow { return &shadow{t: &p.totals, counted: true} }

// free uncounts the pages of sh, which the engine no longer uses; sh may
// be nil.
func (p *Engine) free(sh *shadow) {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.counted {
		p.totals.grow(-pageBytes * sh.pages)
		sh.counted = false
	}
}
