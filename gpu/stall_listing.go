package gpu

import (
	"fmt"
	"strings"
)

// A stall listing names, per block, each place its unfinished threads
// were (a barrier or collective, or a line they were running, with the
// access they were making) and the threads there. Its size is bounded
// whatever the block's: at most maxPlaces places per block, and per place
// a list of threads of about listBudget bytes.

// maxPlaces bounds the places a block's listing names; threads elsewhere
// are counted.
const maxPlaces = 6

// listBudget bounds, in bytes, the list of threads of one place; past it
// the threads are named per warp, and warps past it are counted.
const listBudget = 64

// shortLanes bounds, in bytes, a warp's list of lanes; past it only their
// count is given.
const shortLanes = 16

// place is where some unfinished threads of a block were.
type place struct {
	at, access string
	site       Site
}

// writeBlock writes one block's unfinished threads, ts in rank order,
// grouped by where they were: per place, "threads (0,0,0)-(31,0,0)" while
// that is short, else the count of threads and their lanes per warp, as
// "487 threads [warp 0: 17 lanes; warps 1-3: all lanes; 28 more warps]".
func writeBlock(b *strings.Builder, ts []Stuck, dim Dim3, warp int) {
	fmt.Fprintf(b, "\n\tblock %v:", ts[0].Block)
	groups := map[place][]int{}
	var places []place
	for _, t := range ts {
		k := place{t.At, t.Access, t.Site}
		if _, ok := groups[k]; !ok {
			places = append(places, k)
		}
		groups[k] = append(groups[k], t.Rank)
	}
	for i, k := range places {
		if i == maxPlaces {
			writeElsewhere(b, groups, places[i:])
			return
		}
		fmt.Fprintf(b, "\n\t\t%s %s", threadList(groups[k], dim, warp), k.at)
		if k.access != "" {
			fmt.Fprintf(b, " (%s)", k.access)
		}
		fmt.Fprintf(b, " at %s", k.site)
	}
}

// writeElsewhere counts the threads at the places past maxPlaces.
func writeElsewhere(b *strings.Builder, groups map[place][]int, rest []place) {
	n := 0
	for _, k := range rest {
		n += len(groups[k])
	}
	fmt.Fprintf(b, "\n\t\tand %d %s at %d other places", n, plural(n, "thread", "threads"), len(rest))
}

// threadList names the sorted ranks of a block of extent dim: by their
// coordinates while that fits listBudget, else per warp.
func threadList(ranks []int, dim Dim3, warp int) string {
	if s := coordRanges(ranks, rankName(dim)); len(s) <= listBudget || warp <= 0 {
		return "threads " + s
	}
	return fmt.Sprintf("%d threads [%s]", len(ranks), warpList(ranks, warp, dim.Size()))
}

// A warpEntry is a run of warps whose threads a listing names together:
// one warp and its lanes, or consecutive warps with all their lanes.
type warpEntry struct {
	first, last int
	lanes       []int // of first; nil for warps with all their lanes
}

// String writes the entry as "warp 3: lanes 0-3,9", "warp 3: 17 lanes" or
// "warps 1-3: all lanes".
func (e warpEntry) String() string {
	switch {
	case e.lanes == nil && e.first == e.last:
		return fmt.Sprintf("warp %d: all lanes", e.first)
	case e.lanes == nil:
		return fmt.Sprintf("warps %d-%d: all lanes", e.first, e.last)
	}
	if s := ranges(e.lanes); len(s) <= shortLanes {
		return fmt.Sprintf("warp %d: lanes %s", e.first, s)
	}
	return fmt.Sprintf("warp %d: %d lanes", e.first, len(e.lanes))
}

// warpList writes the sorted ranks of a block of size threads per warp,
// within about listBudget bytes, counting the warps past it.
func warpList(ranks []int, warp, size int) string {
	entries := warpEntries(ranks, warp, size)
	var b strings.Builder
	for i, e := range entries {
		s := e.String()
		if i > 0 && b.Len()+len(s) > listBudget {
			fmt.Fprintf(&b, "; %d more warps", warpsIn(entries[i:]))
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// warpEntries groups sorted ranks by warp, merging consecutive warps
// whose every lane is listed.
func warpEntries(ranks []int, warp, size int) []warpEntry {
	var out []warpEntry
	for i := 0; i < len(ranks); {
		w := ranks[i] / warp
		j := i
		for j < len(ranks) && ranks[j]/warp == w {
			j++
		}
		e := warpEntry{first: w, last: w}
		if j-i < min(warp, size-w*warp) {
			for _, r := range ranks[i:j] {
				e.lanes = append(e.lanes, r-w*warp)
			}
		}
		if n := len(out); n > 0 && e.lanes == nil && out[n-1].lanes == nil && out[n-1].last == w-1 {
			out[n-1].last = w
		} else {
			out = append(out, e)
		}
		i = j
	}
	return out
}

// warpsIn counts the warps of entries.
func warpsIn(entries []warpEntry) int {
	n := 0
	for _, e := range entries {
		n += e.last - e.first + 1
	}
	return n
}
