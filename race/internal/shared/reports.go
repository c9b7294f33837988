package shared

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// reports is the bounded, deduplicated list of races found.
type reports struct {
	max     int
	list    []report.Report
	seen    map[reportKey]bool
	dropped int
	// repeated counts the races found whose key a race kept or dropped
	// already had: another granule raced through the same two lines, or,
	// where the engine checks a granule on after its race, the same again.
	repeated int
}

// reportKey identifies a race for deduplication: its kind and both sites,
// as `go test -race` reports each pair of racing lines once.
type reportKey struct {
	kind      kind.Kind
	cur, prev location
}

// location is a site by value: gpu.Site values of one line reached
// through different call stacks are not always equal.
type location struct {
	file string
	line int
}

func locate(s gpu.Site) location { return location{s.File(), s.Line()} }

// keyOf returns the key of a race of kind k between sites cur and prev.
// A read-only-written race is found from either side (the write meets
// the view, or the view's first load meets the write), and both may find
// it at once, so its two lines make one key in either order.
func keyOf(k kind.Kind, cur, prev gpu.Site) reportKey {
	key := reportKey{k, locate(cur), locate(prev)}
	if k == kind.ReadOnlyWritten && (key.prev.file < key.cur.file || key.prev.file == key.cur.file && key.prev.line < key.cur.line) {
		key.cur, key.prev = key.prev, key.cur
	}
	return key
}

func newReports(max int) reports { return reports{max: max, seen: make(map[reportKey]bool)} }

// add keeps r unless a race with the same key was kept; it reports whether
// r is new.
func (rs *reports) add(r report.Report) bool {
	k := keyOf(r.Kind, r.Current.Site, r.Previous.Site)
	if rs.seen[k] {
		rs.repeated++
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
