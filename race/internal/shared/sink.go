package shared

import (
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// A Sink keeps the races a detector's engine finds: a bounded list,
// deduplicated by kind and the pair of sites, and, with a halt set, the
// halting of the launch at the first. One mutex guards the list: keeping
// a report synchronizes before every later read of the list (Reports,
// Take, Counts), so a race found by a launch that returned is seen by
// the caller that waited for it.
type Sink struct {
	mu      sync.Mutex
	reports reports
	// newHalt makes the error that halts a launch at its first race; nil
	// when the detector does not halt.
	newHalt func(report.Report) error
	halted  atomic.Bool           // the first race was kept: record nothing more
	pending atomic.Pointer[error] // a halt found off its thread, for the next access to raise
}

// Init readies s to keep at most max reports and, when newHalt is not
// nil, to halt the launch at its first race with the error newHalt
// makes of it. It is called once, before any use.
func (s *Sink) Init(max int, newHalt func(report.Report) error) {
	s.reports = newReports(max)
	s.newHalt = newHalt
}

// Keep records race r, found by the thread t runs (nil when a checker
// off the thread found it), and halts the launch if it is the first and
// s halts. A halting sink that halted keeps nothing more: races found on
// other threads before the halt reached them are dropped, uncounted, as
// the halt is decided under the same lock as the keeping.
func (s *Sink) Keep(r report.Report, t *gpu.Thread) {
	s.mu.Lock()
	if s.newHalt != nil && s.halted.Load() {
		s.mu.Unlock()
		return
	}
	first := s.reports.add(r) && s.newHalt != nil
	if first {
		s.halted.Store(true)
	}
	s.mu.Unlock()
	if first {
		s.halt(r, t)
	}
}

// Known reports whether the race of kind k between sites cur and prev
// was kept already, counting it as repeated if so. Most races a kernel makes repeat one pair of lines
// thousands of times, and building a report walks stacks and formats
// text, so an engine drops a repeat before any of that.
func (s *Sink) Known(k kind.Kind, cur, prev gpu.Site) bool {
	key := keyOf(k, cur, prev)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reports.seen[key] {
		s.reports.repeated++
		return true
	}
	return false
}

// Reports returns the races kept, in the order they were found.
func (s *Sink) Reports() []report.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]report.Report(nil), s.reports.list...)
}

// Take removes the reports match accepts and returns them in the order
// they were found; match is called once per report, in that order. A
// race taken stays known.
func (s *Sink) Take(match func(report.Report) bool) []report.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	var taken []report.Report
	keep := s.reports.list[:0]
	for _, r := range s.reports.list {
		if match(r) {
			taken = append(taken, r)
			continue
		}
		keep = append(keep, r)
	}
	clear(s.reports.list[len(keep):])
	s.reports.list = keep
	return taken
}

// Counts returns how many races are kept, how many distinct races were
// found past the bound, and how many repeated the kind and lines of one
// kept or dropped.
func (s *Sink) Counts() (kept, dropped, repeated int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reports.list), s.reports.dropped, s.reports.repeated
}

// Reset forgets every race, known ones included, and re-arms the halt.
func (s *Sink) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reports = newReports(s.reports.max)
	s.halted.Store(false)
	s.pending.Store(nil)
}
