package race

import (
	"fmt"
	"math/bits"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/callsite"
	"github.com/warpguard/warpguard/race/internal/hb"
	"github.com/warpguard/warpguard/race/internal/iguard"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// A Detector is a [gpu.Observer] that checks every access of the launches
// it observes for scoped races. Checks run inline on the goroutine of the
// accessing thread. A Detector may observe several launches, one after
// another or at once, on one device or several; reports accumulate until
// [Detector.Reset].
//
// The Detector dispatches each event to the engine of its family: the
// Exact family's (package race/internal/hb), the default, or the IGUARD
// family's (package race/internal/iguard), which checks each access
// under the lock of the one metadata entry it touches (unless
// Options.Central ships them to one goroutine). Both find sites through
// one cache and keep races in one sink.
type Detector struct {
	opt   Options
	shift uint         // log2 of opt.Granularity
	paths bool         // accesses carry call paths: History or Central
	sink  shared.Sink  // the races found, and HaltOnFirst's halt
	sites shared.Sites // the kernel sites of call paths, for history
	eng   *iguard.Engine
	pre   *hb.Engine // the Exact family's engine; nil for IGUARD
}

// New returns a detector configured by opt.
func New(opt Options) *Detector {
	opt = opt.withDefaults()
	d := &Detector{opt: opt, shift: uint(bits.TrailingZeros(uint(opt.Granularity))), paths: opt.History || opt.Central}
	d.sink.Init(opt.MaxReports, haltWith(opt))
	d.sites.Stacks = opt.History
	d.eng = iguard.New(opt.engine(), &d.sites, &d.sink)
	if opt.Exact() {
		d.pre = hb.New(d.shift, opt.FullEntries, opt.FlatClocks, &d.sites, &d.sink, d)
	}
	return d
}

// exactThreads is the most threads a launch may have in the Exact
// family: its epochs name a thread by a signed 32-bit id, and its read
// sets key two classes of access per thread in one.
const exactThreads = 1 << 30

// LaunchStart implements [gpu.Observer]: it starts the launch. The Exact
// family refuses a launch of more than exactThreads threads with a panic,
// which the runtime returns as the launch's error; the IGUARD family takes
// any grid the runtime does.
func (d *Detector) LaunchStart(g *gpu.Grid) {
	if n := int64(g.Blocks) * int64(g.BlockSize); d.pre != nil && n > exactThreads {
		panic(fmt.Sprintf("race: launch %q has %d threads (%d blocks of %d); the exact family names threads in 31 bits, two keys each, and accepts at most %d", g.Name, n, g.Blocks, g.BlockSize, exactThreads))
	}
	if d.pre != nil {
		d.pre.LaunchStart(g)
		return
	}
	d.eng.LaunchStart(g)
}

// LaunchEnd implements [gpu.Observer]: it frees the launch's metadata.
func (d *Detector) LaunchEnd(g *gpu.Grid, _ error) {
	if d.pre != nil {
		d.pre.LaunchEnd(g)
		return
	}
	d.eng.LaunchEnd(g)
}

// BlockStart implements [gpu.Observer].
func (d *Detector) BlockStart(g *gpu.Grid, b int) {
	if d.pre != nil {
		d.pre.BlockStart(g, b)
		return
	}
	d.eng.BlockStart(g, b)
}

// BlockEnd implements [gpu.Observer]: the block's shared memories die.
func (d *Detector) BlockEnd(g *gpu.Grid, b int) {
	if d.pre != nil {
		d.pre.BlockEnd(g, b)
		return
	}
	d.eng.BlockEnd(g, b)
}

// Access implements [gpu.Observer]: it checks a against each granule's
// metadata and records it there.
func (d *Detector) Access(t *gpu.Thread, a *gpu.Access) {
	if d.sink.Halted() {
		d.sink.Raise(t)
		return
	}
	var b *hb.Begun // with history, the exact family's load, begun
	switch {
	case d.pre == nil:
	case !d.paths:
		d.pre.Access(t, a, nil, gpu.Site{}, nil)
		return
	case a.Op == gpu.OpLoad:
		if b = new(hb.Begun); !d.pre.Begin(t, a, b) {
			return // a reread its thread settles alone: no site needed
		}
	}
	// The call path is walked here, from the Observer method's own
	// frame: its key is the return addresses above this frame, and a
	// walk from any deeper frame would spend a load on each frame
	// between and leave as many kernel frames out of the key.
	var site gpu.Site
	var path *shared.SiteSlot // with history, the access's call path
	if d.paths {
		var key shared.PathKey
		n, h := callsite.Walk(&key)
		site, path = d.sites.Lookup(t, &key, n, h)
	}
	if d.pre != nil {
		d.pre.Access(t, a, b, site, path)
		return
	}
	d.eng.Access(t, a, site, path)
}

// Fence implements [gpu.Observer]: the exact family applies a fence of
// order o (fence.acq_rel or fence.sc) as PTX defines it; the iGUARD
// family counts the fence and activates the locks it validates.
func (d *Detector) Fence(t *gpu.Thread, s scope.Scope, o gpu.Order) {
	if d.pre != nil {
		d.pre.Fence(t, s, o)
		return
	}
	d.eng.Fence(t, s, o)
}

// Sync implements [gpu.Observer]: it advances the epoch of the threads that
// met. It runs while every other participant is held in the barrier, so
// the participants' later accesses see the new epoch.
func (d *Detector) Sync(t *gpu.Thread, s gpu.Sync) {
	if d.pre != nil {
		d.pre.Sync(t, s)
		return
	}
	d.eng.Sync(t, s)
}

// HostAccess implements [gpu.HostObserver], for a Detector set as a
// device's observer: a host copy or fill made while launches run on the
// device is checked as a weak access of a host thread that only host
// order orders with them (see package doc), by either family.
func (d *Detector) HostAccess(h gpu.HostAccess) {
	if d.pre != nil {
		d.pre.HostAccess(h)
		return
	}
	d.eng.HostAccess(h)
}

// MetadataBytes returns the bytes of memory metadata allocated now.
func (d *Detector) MetadataBytes() int64 {
	if d.pre != nil {
		return d.pre.Counts().MetadataBytes
	}
	return d.eng.MetadataBytes()
}
