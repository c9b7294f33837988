package race

import (
	"errors"
	"fmt"
)

// A Halt is the error with which a detector configured with HaltOnFirst
// stops a launch at its first race (through gpu.Thread.Halt). The launch's
// error wraps it, so errors.As finds it; the thread error around it names
// the racing thread and its kernel line.
type Halt struct{ Report Report }

// Error names the race in one line: its kind, the element and the other
// side. The full report is Report, which the detector also keeps (see
// [Detector.Reports]), so a test that prints both the launch's error and
// the detector's reports shows the report once.
func (h *Halt) Error() string {
	r := h.Report
	return fmt.Sprintf("race: halted at its first race: %v on %s with the %s at %s by %s (the detector keeps the full report)",
		r.Kind, r.Element(), r.Previous.What(), r.Previous.Where(), r.Previous.Who())
}

// haltWith returns how a detector configured by opt halts a launch at
// its first race: with a *Halt, under HaltOnFirst; else nil, not at all.
func haltWith(opt Options) func(Report) error {
	if !opt.HaltOnFirst {
		return nil
	}
	return func(r Report) error { return &Halt{Report: r} }
}

// Reports returns the races found since the detector was made or reset,
// in the order they were found.
func (d *Detector) Reports() []Report {
	return d.sink.Reports()
}

// Take removes the reports match accepts from those the detector keeps,
// and returns them in the order they were found; match is called once per
// report, in that order. A race taken stays
// known: the same pair of sites is not reported again until [Detector.Reset].
// Take lets a test consume the races it expects, so that a later check of
// the rest does not fail on them. Recording a report and Take hold one
// lock, so a race found by a launch that returned before Take was called
// (its return synchronizes before the call) is among those Take sees.
func (d *Detector) Take(match func(Report) bool) []Report {
	return d.sink.Take(match)
}

// Dropped returns how many distinct races were found past MaxReports.
func (d *Detector) Dropped() int {
	_, dropped, _ := d.sink.Counts()
	return dropped
}

// Reset forgets every report and the access counters, and re-arms
// HaltOnFirst.
func (d *Detector) Reset() {
	d.sink.Reset()
	d.eng.ResetCounts()
	if d.pre != nil {
		d.pre.ResetCounts()
	}
}

// String summarizes the detector's findings: how many races it keeps and
// how many it dropped past MaxReports.
func (d *Detector) String() string {
	rs := d.Reports()
	return fmt.Sprintf("race.Detector: %s, %d dropped", Count(len(rs)), d.Dropped())
}

// Count writes n races in words, as "1 race" or "3 races".
func Count(n int) string {
	if n == 1 {
		return "1 race"
	}
	return fmt.Sprintf("%d races", n)
}

// WithoutHalt returns err, a launch's error, less the [Halt] a detector
// with HaltOnFirst stopped the launch with: the race is among the
// detector's reports, and every other error of the launch (a thread's
// panic, an index out of range) is kept. It returns nil when the halt was
// the only error.
func WithoutHalt(err error) error {
	var h *Halt
	if !errors.As(err, &h) {
		return err // a stall error, say, which wraps errors of its own: keep it whole
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var keep []error
		for _, e := range j.Unwrap() {
			keep = append(keep, WithoutHalt(e))
		}
		return errors.Join(keep...)
	}
	return nil
}
