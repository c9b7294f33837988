package race

// Stats are a detector's counters. The access counters cover the blocks
// that have ended: read them after a launch. The Exact family counts
// accesses, checks, checks a first record settled (Firsts) or a repeat
// of the thread's recorded access skipped (Repeats), checks made under
// a shadow page's lock (Locks: all but the repeated reads a thread
// settles alone), its shadow's pages, and the vector clock work of its
// joins (Joins); the other counters are the IGUARD family's.
type Stats struct {
	Reports int // distinct races kept
	Dropped int // distinct races past MaxReports
	// Repeated counts the races found whose kind and two lines a kept or
	// dropped report already names, which Reports lists once, as `go test
	// -race` does: the Exact family's race on another granule reached
	// through the same two lines, and the IGUARD family's also when a
	// granule races again.
	Repeated      int
	MetadataBytes int64 // memory metadata allocated now
	PeakMetadata  int64 // the most metadata allocated at a block's end

	Accesses  uint64 // accesses observed
	Checks    uint64 // granule checks: under the entry's lock, or first touches
	Firsts    uint64 // checks settled with no lock and no entry: a granule's first access, or a store superseding it (see Options.FullEntries)
	Repeats   uint64 // accesses skipped as repeats of the same thread's access recorded at the granule, at the same epoch
	Coalesced uint64 // accesses skipped as repeats of a warp-mate's check (warp coalescing)
	Locks     uint64 // metadata lock acquisitions: checks that took their entry's lock (the Exact family: their shadow page's)
	Contended uint64 // acquisitions that found the entry locked, each counted once however long it then waited (see the package doc's "What the contention counters measure")
	Waits     uint64 // backoff steps those acquisitions took; none under a tight spin (NoBackoff), which takes no steps
	WaitNs    uint64 // ns those acquisitions spent waiting with backoff; not measured under a tight spin
	Widened   uint64 // entries whose records outgrew their packed fields and are kept whole (see the package doc on metadata)
	Joins     uint64 // vector clock entries the Exact family's joins and covers checks walked or wrote (see Options.FlatClocks)
	Pairs     uint64 // recorded accesses the Exact family's checks compared a new access with one by one: the walks that sets of morally strong accesses skip
	Pages     uint64 // shadow pages the Exact family made: a launch that starts after the last one ended may reuse their shadow of global memory, if the collector has not reclaimed it, and make none
}

// Stats returns the detector's counters.
func (d *Detector) Stats() Stats {
	kept, dropped, repeated := d.sink.Counts()
	if d.pre != nil {
		c := d.pre.Counts()
		return Stats{Reports: kept, Dropped: dropped, Repeated: repeated, MetadataBytes: c.MetadataBytes, PeakMetadata: c.PeakMetadata,
			Accesses: c.Accesses, Checks: c.Checks, Firsts: c.Firsts, Repeats: c.Repeats, Joins: c.Joins, Pairs: c.Pairs,
			Locks: c.Locks, Pages: c.Pages}
	}
	c := d.eng.Counts()
	return Stats{Reports: kept, Dropped: dropped, Repeated: repeated,
		MetadataBytes: c.MetadataBytes, PeakMetadata: c.PeakMetadata,
		Accesses: c.Accesses, Checks: c.Checks, Firsts: c.Firsts, Repeats: c.Repeats,
		Coalesced: c.Coalesced, Locks: c.Locks, Contended: c.Contended,
		Waits: c.Waits, WaitNs: c.WaitNs, Widened: c.Widened}
}
