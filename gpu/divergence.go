package gpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/warpguard/warpguard/internal/callsite"
)

// A DivergenceMode chooses what happens when the threads of a barrier or
// collective do not all reach it together, the errors compute-sanitizer's
// synccheck reports: a thread that exits while others wait at
// SyncThreads, SyncWarp, a warp collective or a group sync, or that waits
// at a different call site of it. SyncWarp and a tile's Sync of up to a
// warp are the exception: their lanes meet from different call sites, as
// bar.warp.sync's do from Volta on.
type DivergenceMode uint8

// The divergence modes.
const (
	// DivergenceFail, the default, fails the launch with a
	// *DivergenceError naming the barrier's file:line and the threads on
	// each side; the launch stops and every waiting thread is released.
	DivergenceFail DivergenceMode = iota
	// DivergenceWarn lets the launch go on, exited threads counting as
	// arrived, and returns a *DivergenceError with Warn set (once per
	// barrier site and block) among Launch's errors.
	DivergenceWarn
	// DivergenceAllow lets the launch go on silently, as the hardware
	// does. Lanes that name each other at different collectives, which
	// can never meet, still fail the launch.
	DivergenceAllow
)

// String returns "fail", "warn" or "allow".
func (m DivergenceMode) String() string {
	switch m {
	case DivergenceFail:
		return "fail"
	case DivergenceWarn:
		return "warn"
	case DivergenceAllow:
		return "allow"
	}
	return fmt.Sprintf("divergence(%d)", uint8(m))
}

// A DivergenceError reports a barrier or collective the threads named in
// it did not reach together. Threads are named by their rank in the block
// (for Block >= 0) or by global id (grid sync, Block -1).
type DivergenceError struct {
	Launch  string
	Block   int    // linear block id; -1 for a grid sync
	Warp    int    // warp index in the block for warp collectives; -1 otherwise
	Barrier string // "syncthreads", "syncwarp", "shfl", "tile.sync", "grid.sync", ...
	Site    Site   // where the waiting threads wait
	Waiting []int  // the threads that reached it at Site
	// Exited are threads that should have taken part but had exited.
	Exited []int
	// Elsewhere are threads that met the waiting ones at another call
	// site, or called the collective with another mask or operation.
	Elsewhere []Divergent
	Warn      bool // DivergenceWarn: the launch went on

	grid, block Dim3 // the launch's extents, for coordinates
	warp        int  // the launch's warp size, for naming many threads per warp
}

// A Divergent is a group of threads that reached a barrier at a different
// site, or with a different mask or operation, than the others.
type Divergent struct {
	What    string // the barrier or collective, with its mask if any
	Site    Site
	Threads []int
}

// Error names the barrier, its site and the threads on each side.
func (e *DivergenceError) Error() string {
	var b strings.Builder
	kind := "error"
	if e.Warn {
		kind = "warning"
	}
	fmt.Fprintf(&b, "gpu: %s: divergence %s: %s at %s", e.Launch, kind, e.Barrier, e.Site)
	if e.Block >= 0 {
		if e.grid.X > 0 {
			fmt.Fprintf(&b, " in block %v", e.grid.index(e.Block))
		} else {
			fmt.Fprintf(&b, " in block %d", e.Block)
		}
	}
	if e.Warp >= 0 {
		fmt.Fprintf(&b, " warp %d", e.Warp)
	}
	fmt.Fprintf(&b, ": %s wait there", e.threads(e.Waiting))
	if len(e.Exited) > 0 {
		fmt.Fprintf(&b, "; %s exited", e.threads(e.Exited))
	}
	for _, d := range e.Elsewhere {
		fmt.Fprintf(&b, "; %s are at %s at %s", e.threads(d.Threads), d.What, d.Site)
	}
	return b.String()
}

// threads names the threads of ids, ranks in the block or, for a grid
// sync, global ids: by their coordinates while that stays short, as a
// stall listing names them, else per warp.
func (e *DivergenceError) threads(ids []int) string {
	if e.Block < 0 {
		return gridThreads(ids, e.grid, e.block, e.warp)
	}
	return threadList(ids, e.block, e.warp)
}

// place records the launch e was found in, for its coordinates.
func (e *DivergenceError) place(l *launch) {
	e.Launch, e.grid, e.block, e.warp = l.g.Name, l.g.GridDim, l.g.BlockDim, l.g.WarpSize
}

// A callSite is the return address of the exported gpu function a kernel
// called for a barrier or collective (a PC in the kernel) and the kernel's
// own return address: enough to tell barrier sites apart and to resolve
// one to a Site.
type callSite [callsite.Len]uintptr

// mark records the call site of the barrier or collective t is entering,
// under every divergence mode: checking compares the sites of a round's
// arrivals, a convergence point groups lanes by them, and a mismatch,
// fatal under every mode, names them. It must be called, and is inlined,
// directly in the exported function the kernel called, so that the frame
// pointers it reads are that function's: two loads per arrival, where a
// runtime.Callers walk would cost as much as the barrier. Every exported
// function that calls mark is //go:noinline: their inlining cost keeps
// them out of kernels today, but a profile-guided build may raise the
// budget, and an inlined barrier would report its caller's caller.
//
// A Thread used after its kernel returned records nothing: most
// collectives mark before their stop check, and such a Thread's
// syncState may by then be a later launch's thread's (see statePool).
func (t *Thread) mark() {
	if !t.done {
		callsite.Return((*[callsite.Len]uintptr)(&t.waitPC))
	}
}

// site resolves a callSite to the kernel's file:line.
func (d *Device) site(c callSite) Site {
	if c[0] == 0 {
		return Site{}
	}
	return d.sites.lookupReturn(c)
}

// checks reports whether the launch checks divergence at all.
func (l *launch) checks() bool { return l.cfg.Divergence != DivergenceAllow }

// diverged reports a divergence found in block context. In Error mode it
// records the error and stops the launch; in Warn mode it records it once
// per block and site. It reports whether the launch stops.
func (b *block) diverged(e *DivergenceError) bool {
	l := b.l
	e.place(l)
	if l.stop.Load() {
		return true // threads unwinding from a stop are not divergent
	}
	switch l.cfg.Divergence {
	case DivergenceAllow:
		return false
	case DivergenceWarn:
		key := e.Site
		for _, s := range b.warned {
			if s == key {
				return false
			}
		}
		b.warned = append(b.warned, key)
		e.Warn = true
		l.recordOther(e)
		return false
	}
	l.recordOther(e)
	l.halt()
	return true
}

// mismatch reports an always-fatal misuse: threads that cannot meet
// because they name the same lanes with a different mask or operation.
func (b *block) mismatch(e *DivergenceError) {
	e.place(b.l)
	if b.l.stop.Load() {
		return
	}
	b.l.recordOther(e)
	b.l.halt()
}

// sortAll sorts the thread lists of e.
func sortAll(e *DivergenceError) {
	slices.Sort(e.Waiting)
	slices.Sort(e.Exited)
	for _, d := range e.Elsewhere {
		slices.Sort(d.Threads)
	}
}

// split fills e's Site, Waiting, Elsewhere and Exited from the threads
// that met at a barrier: thread ids[i] arrived at pcs[i]. The lowest id's
// site names the barrier, the rest are grouped by site, and the ids in
// [lo, lo+n) that did not meet and for which gone reports true are the
// exited ones.
func (d *Device) split(e *DivergenceError, what string, ids []int, pcs []callSite, lo, n int, gone func(id int) bool) {
	low := 0
	for i, id := range ids {
		if id < ids[low] {
			low = i
		}
	}
	ref := pcs[low]
	e.Site = d.site(ref)
	met := make([]bool, n)
	groups := map[callSite]int{} // index in e.Elsewhere
	for i, id := range ids {
		met[id-lo] = true
		if pcs[i] == ref {
			e.Waiting = append(e.Waiting, id)
			continue
		}
		k, ok := groups[pcs[i]]
		if !ok {
			k = len(e.Elsewhere)
			groups[pcs[i]] = k
			e.Elsewhere = append(e.Elsewhere, Divergent{What: what, Site: d.site(pcs[i])})
		}
		e.Elsewhere[k].Threads = append(e.Elsewhere[k].Threads, id)
	}
	for i, ok := range met {
		if !ok && gone(lo+i) {
			e.Exited = append(e.Exited, lo+i)
		}
	}
	sortAll(e)
}

// always reports true, for split when every absent thread has exited.
func always(int) bool { return true }
