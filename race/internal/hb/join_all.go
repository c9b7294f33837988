package hb

import (
	"math/bits"
	"slices"
)

// A merge of three or more chunks marks the entries it has in a 64-bit
// mask, one bit per thread of the chunk's run (see mergeRun).
const _ uint = 64 - 1<<chunkBits

// maxJoin is the most vclocks a joinAll holds without allocating room
// for them: a fence.sc's acquire parts and its instances' published
// views (see pthread.fenceSC), or the distinct vclocks of the threads a
// barrier meets, which share theirs since the last one.
const maxJoin = 8

// joinAll returns the least vclock above every vclock of ins (nil ones
// allowed) and every epoch of eps, counting in n the entries it walked
// and wrote. Where one input covers the rest and knows the epochs, it is
// the result; otherwise it makes one vclock, where joining the inputs
// two at a time would make one per join that adds something, each
// copying the chunks the join changed. The result continues an input's
// lineage where it can, as join's does.
func joinAll(ins []*vclock, eps []epoch, n *counters) *vclock {
	var buf [maxJoin]*vclock
	acc, rest := coverAll(ins, buf[:0], n)
	var es [scopeEpochs]epoch
	unknown := es[:0]
	for _, e := range eps {
		if !acc.knows(e) {
			unknown = append(unknown, e)
		}
	}
	switch {
	case len(rest) == 0 && len(unknown) == 0:
		return acc
	case len(rest) == 0:
		return withEpochs(acc, unknown, n)
	case len(unknown) > 0:
		ev := threadsClock(latestOf(unknown))
		if acc == nil {
			return ev // rest is empty: nothing but nil came in
		}
		rest = append(rest, ev)
	}
	return mergeAll(acc, rest, n)
}

// latestOf returns a new list of the epochs es, sorted by thread, with
// each thread's latest only.
func latestOf(es []epoch) []epoch {
	return latestIn(slices.Clone(es))
}

// latestIn sorts es by thread and keeps each thread's latest only, in
// place, returning the list kept.
func latestIn(es []epoch) []epoch {
	sortEpochs(es)
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].tid == e.tid {
			out[n-1].c = max(out[n-1].c, e.c)
			continue
		}
		out = append(out, e)
	}
	return out
}

// scopeEpochs is the most epochs a joinAll holds without allocating room
// for them: one per scope instance a fence.sc joins, and the fencer's
// own.
const scopeEpochs = 5

// coverAll returns an input of ins that covers as many of the others as
// a pass finds, each input compared with the one that covers the most
// so far, and those the result does not cover, appended to rest.
func coverAll(ins []*vclock, rest []*vclock, n *counters) (*vclock, []*vclock) {
	var acc *vclock
	for _, x := range ins {
		switch {
		case x == nil || x == acc:
		case acc == nil || x.descends(acc):
			acc = x
		case acc.descends(x):
		case x.size() <= acc.size() && acc.remembers(x, n):
		case x.remembers(acc, n):
			acc = x
		default:
			rest = append(rest, x)
		}
	}
	kept := rest[:0]
	for _, x := range rest {
		if !acc.remembers(x, n) {
			kept = append(kept, x)
		}
	}
	return acc, kept
}

// mergeAll returns the least vclock above acc and every vclock of rest,
// none of which acc covers: their block entries merged, and their chunks
// of each key, their tails' entries among them, merged into one,
// dropping the epochs the merged block entries imply. The result has
// no tail.
func mergeAll(acc *vclock, rest []*vclock, n *counters) *vclock {
	if t := tailsOf(acc, rest); len(t) > 0 {
		rest = append(rest, threadsClock(latestIn(t)))
	}
	bs := acc.b
	for _, x := range rest {
		bs = mergeBlocks(bs, x.b)
	}
	var lists [maxJoin + 1][]band
	ls := append(lists[:0], acc.bands)
	size := len(acc.bands)
	for _, x := range rest {
		ls, size = append(ls, x.bands), size+len(x.bands)
	}
	j := bandJoin{out: make([]band, 0, size), cj: chunkJoin{bs: bs}}
	if ok, _ := acc.coversBlocks(bs); ok {
		j.clean = acc.bands // acc's blocks are the join's: they imply none of its epochs
	}
	var in [maxJoin + 1]band
	for {
		gs := nextBands(ls, in[:0])
		if len(gs) == 0 {
			break
		}
		j.mergeAll(gs)
	}
	v := &vclock{b: bs, bands: j.out}
	v.ne = bandEpochs(v.bands)
	n.joined(j.wrote())
	if n == nil || !n.flat {
		v.descendFrom(append(rest, acc))
	}
	return v
}

// nextBands takes from the lists ls, each sorted by key, their bands
// of the lowest key any holds, appending them to into, once each.
func nextBands(ls [][]band, into []band) []band {
	k, any := int32(0), false
	for _, l := range ls {
		if len(l) > 0 && (!any || l[0].k < k) {
			k, any = l[0].k, true
		}
	}
	for i, l := range ls {
		if len(l) == 0 || l[0].k != k {
			continue
		}
		if !slices.ContainsFunc(into, l[0].is) {
			into = append(into, l[0])
		}
		ls[i] = l[1:]
	}
	return into
}

// mergeAll appends the merge of the bands gs of one key, as mergeAll
// merges vclocks: the chunks of each key merged into one.
func (j *bandJoin) mergeAll(gs []band) {
	if len(gs) == 1 {
		j.add(gs[0])
		return
	}
	cl, _ := j.cleanOf(gs[0])
	j.start(cl)
	var lists [maxJoin + 1][]chunk
	ls := lists[:0]
	for _, g := range gs {
		ls = append(ls, g.c())
	}
	var run [maxJoin + 1]chunk
	for {
		cs := nextRun(ls, run[:0])
		if len(cs) == 0 {
			break
		}
		c, wrote, made := mergeRun(cs)
		j.cj.wrote += wrote
		j.cj.add(c, made)
	}
	j.finish(gs[0].k, gs)
}

// nextRun takes from the lists ls, each sorted by key, their chunks of
// the lowest key any holds, appending them to into, once each.
func nextRun(ls [][]chunk, into []chunk) []chunk {
	k, any := int32(0), false
	for _, l := range ls {
		if len(l) > 0 && (!any || l[0].key() < k) {
			k, any = l[0].key(), true
		}
	}
	for i, l := range ls {
		if len(l) == 0 || l[0].key() != k {
			continue
		}
		if !holdsChunk(into, l[0]) {
			into = append(into, l[0])
		}
		ls[i] = l[1:]
	}
	return into
}

// holdsChunk reports whether cs holds chunk c.
func holdsChunk(cs []chunk, c chunk) bool {
	for _, d := range cs {
		if d.is(c) {
			return true
		}
	}
	return false
}

// mergeRun returns the merge of chunks cs of one key, reusing one whose
// entries cover the others', the entries it walked or wrote, and whether
// it made a new chunk.
func mergeRun(cs []chunk) (chunk, int, bool) {
	switch len(cs) {
	case 1:
		return cs[0], 0, false
	case 2:
		return mergeChunk(cs[0], cs[1])
	}
	var dense [1 << chunkBits]epoch
	var has uint64
	walked := 0
	for _, c := range cs {
		for _, e := range c.e() {
			i := e.tid & (1<<chunkBits - 1)
			if has&(1<<i) == 0 || dense[i].c < e.c {
				dense[i], has = e, has|1<<i
			}
		}
		walked += int(c.n)
	}
	out := make([]epoch, 0, bits.OnesCount64(has))
	for has != 0 {
		i := bits.TrailingZeros64(has)
		out, has = append(out, dense[i]), has&(has-1)
	}
	return runOf(out), walked + len(out), true
}
