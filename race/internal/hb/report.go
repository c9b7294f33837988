package hb

import (
	"fmt"
	"slices"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
	"github.com/warpguard/warpguard/scope"
)

// report records the race between x, access a of th, and y, an earlier
// access of the same location.
func (p *Engine) report(th *pthread, t *gpu.Thread, a *gpu.Access, x, y *prec) {
	xs, ys := p.slotOf(x), p.slotOf(y)
	site := xs.Site()
	if site.IsZero() && t != nil {
		site, xs = p.sites.Of(t)
	}
	k := th.kindOf(x, y)
	if p.sink.Known(k, site, ys.Site()) {
		return
	}
	l := th.l
	cur, prev := l.side(x, site), l.side(y, ys.Site())
	if prev.Launch != "" && !prev.Host {
		cur.Launch, prev.Launch = l.ss.names(l, l.ss.launchOf(y.e.tid))
	}
	cur.Stack, prev.Stack = p.sites.StackOf(t, xs), ys.Stack()
	r := report.Report{Kind: k, Launch: l.g.Name, Mem: a.Mem, Index: a.Index, Current: cur, Previous: prev,
		Evidence: th.evidence(k, cur, prev, x, y)}
	p.sink.Keep(r, t)
}

// names returns the names of launches a and b of the cohort for the two
// sides of a race between them: their names, each followed by "#n", its
// place in the order the cohort's launches started, when the two share
// one.
func (ss *cohort) names(a, b *plaunch) (string, string) {
	if a.g.Name != b.g.Name {
		return a.g.Name, b.g.Name
	}
	all := ss.launches()
	ia, ib := slices.Index(all, a)+1, slices.Index(all, b)+1
	return fmt.Sprintf("%s#%d", a.g.Name, ia), fmt.Sprintf("%s#%d", b.g.Name, ib)
}

// kindOf names the race by what was missing: a scope wide enough, for
// two strong accesses; else the synchronization the two threads' places
// call for.
func (th *pthread) kindOf(x, y *prec) kind.Kind {
	if x.strong() && y.strong() && !warpVolatile(x, y, th.place, th.l.placeOf(y.e.tid)) {
		return kind.ScopedAtomic
	}
	switch scope.Common(th.place, th.l.placeOf(y.e.tid)) {
	case scope.Warp:
		return kind.MissingSyncwarp
	case scope.Block:
		return kind.MissingBlockFence
	}
	return kind.MissingDeviceFence
}

// side describes recorded access x, made at site, an access of a launch
// of the cohort that may be another than l: then the side names its
// launch.
func (l *plaunch) side(x *prec, site gpu.Site) report.Side {
	xl := l.ss.launchOf(x.e.tid)
	gid := int(x.e.tid - xl.tid0)
	b, rank := gid/xl.g.BlockSize, gid%xl.g.BlockSize
	s := report.Side{
		Block: shared.DimIndex(xl.g.GridDim, b), Thread: shared.DimIndex(xl.g.BlockDim, rank),
		BlockID: b, GlobalID: gid, Warp: rank / xl.g.WarpSize, Lane: rank % xl.g.WarpSize,
		Op: x.op, Order: x.order, Scope: x.scope, Site: site,
	}
	if xl != l || xl.host != "" {
		s.Launch = xl.g.Name
	}
	s.Host = xl.host != ""
	return s
}

// evidence says what synchronization the pair lacks, from the current
// thread's side, and which synchronization would order it, in CUDA's
// words: a wider scope for two strong accesses, an acquire for a flag
// read without one, __syncwarp for lanes, else what the two threads'
// places call for (see fix).
func (th *pthread) evidence(k kind.Kind, cur, prev report.Side, x, y *prec) string {
	py := th.l.placeOf(y.e.tid)
	common := scope.Common(th.place, py)
	if k == kind.ScopedAtomic {
		narrow, other := prev, cur
		if prev.Scope.Covers(py, th.place) {
			narrow, other = cur, prev
		}
		return fmt.Sprintf("The %v at %s has %v scope, which does not include %s, and nothing orders the two accesses. Give it %v scope or wider, so that the pair is atomic between the two threads.",
			narrow.Op, narrow.Where(), narrow.Scope, other.Who(), common)
	}
	if host, other := th.l.hostPair(y); host != nil {
		return fmt.Sprintf("The host %s touched this word while launch %q ran, and only host order orders a host copy or fill with a launch's threads: make it before the launch or after the launch returned.",
			host.host, other.g.Name)
	}
	first := fmt.Sprintf("%s's %s at %s", prev.Who(), prev.What(), prev.Where())
	if warpVolatile(x, y, th.place, py) {
		return fmt.Sprintf("%s and this %s are volatile accesses of two lanes of one warp, which independent thread scheduling does not run in lockstep: volatile orders nothing between lanes. %s",
			first, cur.What(), laneFix(cur, prev))
	}
	if who, poll := th.unacquired(y.e); poll.mem != nil {
		flag := report.Report{Mem: poll.mem, Index: poll.idx}
		at := report.Side{Site: poll.site}
		return fmt.Sprintf("%s acquired nothing after reading %s at %s: no acquire load, and no fence of a scope that includes the writer followed that read, so %s is not ordered before this %s. Read the flag with an acquire load of %v scope (LoadAcquire), or put a fence of %v scope after the read (%s).",
			who, flag.Element(), at.Where(), first, cur.Op, max(common, scope.Block), max(common, scope.Block), fenceName(max(common, scope.Block)))
	}
	return fmt.Sprintf("Nothing orders %s before this %s: no barrier both threads passed, and no release of the first thread (a release store, or a fence then a strong write) reached the second through an acquire (an acquire load, or a strong read then a fence) with scopes that include both threads, directly or through a chain of such pairs. %s%s",
		first, cur.Op, fixFor(common, cur, prev), unobserved(x, y, common))
}

// laneFix names what orders two lanes' volatile accesses: for one
// statement's stores, an atomic store; for one statement's read and
// write (the warp-synchronous s[i] += s[i+16]), that statement split
// around a __syncwarp; else a __syncwarp between them, or atomics for a
// flag one lane waits on.
func laneFix(cur, prev report.Side) string {
	switch {
	case oneStatement(cur, prev) && cur.Op.Writes() && prev.Op.Writes():
		return fmt.Sprintf("Both are the store at %s, run by two lanes: make it an atomic store (AtomicExch or AtomicStore of block scope), which stays morally strong between lanes.", cur.Where())
	case oneStatement(cur, prev):
		return fmt.Sprintf("Both are the statement at %s, run by two lanes, and no __syncwarp can come between one statement's runs: split it, reading into a register, then __syncwarp, then writing, then __syncwarp.", cur.Where())
	}
	return "Put a __syncwarp (SyncWarp with both lanes in its mask) between them; or, where one lane waits for the other's store (a flag), make the flag's accesses atomic (AtomicStore and AtomicLoad, or StoreRelease and LoadAcquire), which stay morally strong between lanes."
}

// oneStatement reports whether the two sides are one line of the kernel,
// which two threads ran: no barrier can come between them.
func oneStatement(cur, prev report.Side) bool {
	return !cur.Site.IsZero() && !prev.Site.IsZero() && cur.Site.File() == prev.Site.File() && cur.Site.Line() == prev.Site.Line()
}

// fixFor names the synchronization that orders the sides cur and prev,
// whose threads' narrowest common scope is s: for threads of two
// launches that ran at once, what orders launches; else fix(s).
func fixFor(s scope.Scope, cur, prev report.Side) string {
	if cur.Launch == "" || prev.Launch == "" || cur.Launch == prev.Launch {
		if oneStatement(cur, prev) {
			return fmt.Sprintf("Both are the statement at %s, run by two threads, and no barrier can come between one statement's runs: where each thread updates the element (a count, x += v), make the update one atomic of %v scope (AtomicAdd, AtomicExch or AtomicCAS); where the statement reads one element and writes another (neighbours updated in place), read into a register, then %s, then write.",
				cur.Where(), max(s, scope.Block), barrierName(s))
		}
		return fix(s)
	}
	return fmt.Sprintf("The two are threads of launches %q and %q, which ran at once: only the host's order (one launch returning before the other starts) orders two launches, or a release and an acquire of device scope between their threads (after the write, __threadfence() then a strong write of a flag; before its access, the reader reads the flag with LoadAcquire of device scope, or a strong read then __threadfence()).",
		prev.Launch, cur.Launch)
}

// unobserved says, for a weak access x after a strong write y of the
// same element, what PTX would order that the model does not: if x's
// thread read y's value with a strong read first (a counter reset after
// the last atomicInc read it), PTX's causality order orders y before x
// through that observation, a term the model leaves out (see package
// race's doc). It names the fix that is right under both: making x a
// strong access of a scope that includes both threads.
func unobserved(x, y *prec, common scope.Scope) string {
	if x.strong() || !y.strong() || !y.write {
		return ""
	}
	return fmt.Sprintf(" If this thread read the element's value with a strong read before this access (a counter reset after the last atomicInc read it), PTX orders the pair through that read (its observation order), which warpguard's model leaves out: make this access strong instead, AtomicExch or AtomicStore of %v scope or StoreVolatile, which is morally strong with the earlier one.", max(common, scope.Block))
}

// fix names the synchronization that orders two threads whose narrowest
// common scope is s, in CUDA's words.
func fix(s scope.Scope) string {
	switch s {
	case scope.Warp:
		return "The two are lanes of one warp: put a __syncwarp (SyncWarp with both lanes in its mask) or a __syncthreads both pass between the accesses."
	case scope.Block:
		return "The two are threads of one block: put a __syncthreads (SyncThreads) both pass between the accesses. A __threadfence_block alone orders another thread only if that thread's own fence ran after it (the fence.sc order), which a kernel cannot count on: order through a flag written after it and acquired by the reader."
	}
	return "The two are threads of different blocks: after the write, __threadfence() then a strong write of a flag (or StoreRelease of device scope); before its access, the reader acquires the flag (LoadAcquire of device scope, or a strong read then __threadfence()). In a cooperative launch, a grid sync both pass also orders them."
}

// barrierName is CUDA's barrier for threads whose narrowest common scope
// is s.
func barrierName(s scope.Scope) string {
	switch s {
	case scope.Warp:
		return "__syncwarp"
	case scope.Block:
		return "__syncthreads"
	}
	return "a grid sync (in a cooperative launch) or the end of a launch"
}

// fenceName is CUDA's name of the fence of scope s.
func fenceName(s scope.Scope) string {
	switch s {
	case scope.Block:
		return "__threadfence_block()"
	case scope.System:
		return "__threadfence_system()"
	}
	return "__threadfence()"
}

// unacquired finds a strong read that would have ordered e before th had
// a fence followed it: th's own, or that of a thread of its block, which
// th may have met at a barrier since. It names the reader.
func (th *pthread) unacquired(e epoch) (string, pollNote) {
	if poll, ok := th.pendingFor(e); ok {
		return "The reader", poll
	}
	for i := range th.blk.threads {
		o := &th.blk.threads[i]
		if poll, ok := o.pendingFor(e); ok {
			rank := int(o.tid-th.l.tid0) - th.l.local(th.place.Block)*th.l.g.BlockSize
			return fmt.Sprintf("Thread %v of the reader's block", shared.DimIndex(th.l.g.BlockDim, rank)), poll
		}
	}
	return "", pollNote{}
}

// pendingFor returns the thread's last unacquired strong read if what
// its strong reads found pending knows e. Another thread may call it
// while the thread runs: it reads under the thread's mu.
func (o *pthread) pendingFor(e epoch) (pollNote, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.cold
	if c == nil {
		return pollNote{}, false // no strong read yet
	}
	return c.poll, (c.pend.knows(e) || o.heldKnows(e)) && c.poll.mem != nil
}

// hostPair returns, if th's launch l or y's is a host copy's (see
// HostAccess), that one and the other; else nil.
func (l *plaunch) hostPair(y *prec) (host, other *plaunch) {
	yl := l.ss.launchOf(y.e.tid)
	switch {
	case l.host != "":
		return l, yl
	case yl.host != "":
		return yl, l
	}
	return nil, nil
}
