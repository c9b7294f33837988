package race

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// reports is the bounded, deduplicated list of races found.
type reports struct {
	max     int
	list    []Report
	seen    map[reportKey]bool
	dropped int
}

// reportKey identifies a race for deduplication: its kind and both sites,
// as `go test -race` reports each pair of racing lines once.
type reportKey struct {
	kind      Kind
	cur, prev location
}

// location is a site by value: gpu.Site values of one line reached
// through different call stacks are not always equal.
type location struct {
	file string
	line int
}

func locate(s gpu.Site) location { return location{s.File(), s.Line()} }

func newReports(max int) reports { return reports{max: max, seen: make(map[reportKey]bool)} }

// add keeps r unless a race with the same key was kept; it reports whether
// r is new.
func (rs *reports) add(r Report) bool {
	k := reportKey{r.Kind, locate(r.Current.Site), locate(r.Previous.Site)}
	if rs.seen[k] {
		return false
	}
	rs.seen[k] = true
	if len(rs.list) >= rs.max {
		rs.dropped++
		return true
	}
	rs.list = append(rs.list, r)
	return true
}

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

// found records a race that access a of thread th found. t is th's
// gpu.Thread when the check runs on it (inline), else nil (central), and
// then the site was captured at the access. path is the slot of the
// access's call path, if cached.
func (d *Detector) found(th *thread, t *gpu.Thread, a *gpu.Access, c *access, path *siteSlot, f *finding) {
	if c.site.IsZero() && t != nil {
		// The site cache keys by the frames above found, which are as
		// fixed per call path as Access's: a racy loop pays one
		// frame-pointer walk per repeat of its race, not a stack walk.
		c.site, path = d.sites.of(t)
	}
	if d.known(f.kind, c.site, f.site) {
		return // a race already reported: skip building its evidence
	}
	r := Report{Kind: f.kind, Launch: th.l.g.Name, Mem: a.Mem, Index: a.Index,
		Current: side(&c.rec, c.site, th.l.g, d.stack(t, path)), Previous: side(&f.prev, f.site, th.l.g, f.stack), Evidence: evidence(f, c)}
	d.keep(r, t)
}

// stack returns the call stack of the access t makes now, whose site's
// slot is path: the slot's, or, with history and no stack cached, t's
// own. Without history it is nil.
func (d *Detector) stack(t *gpu.Thread, path *siteSlot) []gpu.Site {
	if s := path.stackOf(); s != nil || !d.opt.History || t == nil {
		return s
	}
	return t.CallerStack(stackDepth)
}

// keep records race r, found by the thread t runs (nil when the central
// checker found it), and halts the launch if it is the first and
// HaltOnFirst is set.
func (d *Detector) keep(r Report, t *gpu.Thread) {
	d.mu.Lock()
	fresh := d.reports.add(r)
	d.mu.Unlock()
	if !fresh || !d.opt.HaltOnFirst || !d.halted.CompareAndSwap(false, true) {
		return
	}
	if t == nil {
		d.halt.Store(&Halt{Report: r}) // the next access raises it
		return
	}
	t.Halt(&Halt{Report: r})
}

// known reports whether the race of kind between sites cur and prev was
// reported already. Most races a kernel makes repeat one pair of lines
// thousands of times, and building a report walks stacks and formats
// text, so a repeat is dropped before any of that.
func (d *Detector) known(kind Kind, cur, prev gpu.Site) bool {
	k := reportKey{kind, locate(cur), locate(prev)}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reports.seen[k]
}

// Reports returns the races found since the detector was made or reset,
// in the order they were found.
func (d *Detector) Reports() []Report {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Report(nil), d.reports.list...)
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
	d.mu.Lock()
	defer d.mu.Unlock()
	var taken []Report
	keep := d.reports.list[:0]
	for _, r := range d.reports.list {
		if match(r) {
			taken = append(taken, r)
			continue
		}
		keep = append(keep, r)
	}
	clear(d.reports.list[len(keep):])
	d.reports.list = keep
	return taken
}

// Dropped returns how many distinct races were found past MaxReports.
func (d *Detector) Dropped() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reports.dropped
}

// Reset forgets every report and the access counters, and re-arms
// HaltOnFirst.
func (d *Detector) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reports = newReports(d.opt.MaxReports)
	d.halted.Store(false)
	d.halt.Store(nil)
	d.totals = totals{}
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
