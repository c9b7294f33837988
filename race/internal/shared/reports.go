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

func newReports(max int) reports { return reports{max: max, seen: make(map[reportKey]bool)} }

// add keeps r unless a race with the same key was kept; it reports whether
// r is new.
func (rs *reports) add(r report.Report) bool {
	k := reportKey{r.Kind, locate(r.Current.Site), locate(r.Previous.Site)}
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
