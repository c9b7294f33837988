package shared

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/report"
)

// halt stops the launch at r, the race that set s halted (see Keep). On
// t's own flow the thread halts at once; found off it (t nil, the
// central checker), the halt waits for Raise.
func (s *Sink) halt(r report.Report, t *gpu.Thread) {
	err := s.newHalt(r)
	if t == nil {
		s.pending.Store(&err) // the next access raises it
		return
	}
	t.Halt(err)
}

// Halted reports whether a race halted the launch: the detector records
// nothing more until Reset. Its load synchronizes after the store of the
// halt that set it.
func (s *Sink) Halted() bool { return s.halted.Load() }

// Raise halts t's launch with the halt a checker off the thread found,
// once, in the thread whose access came next; a race found on its own
// thread halts at once.
func (s *Sink) Raise(t *gpu.Thread) {
	if err := s.pending.Swap(nil); err != nil {
		t.Halt(*err)
	}
}
