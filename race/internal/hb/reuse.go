package hb

import (
	"slices"
	"weak"
)

// Shadow reuse. Each cohort starts with an empty shadow of global memory
// (host order leaves it nothing to check against), but a program that
// launches kernel after kernel on the same buffers would make the same
// pages again for each, and the collector would reclaim the last ones.
// So when a cohort ends, the engine keeps each device's shadow weakly:
// the memory is uncounted in MetadataBytes and the collector's to
// reclaim, but if the next cohort of that device (or of a device the
// engine keeps none for) starts before the collector has, the shadow
// serves it again. The shadow kept last is also held strongly until
// another is kept: a program whose next launch allocates its buffers
// first (a test, or a benchmark's run, that makes its device and data
// anew) runs the collector in between, which would reclaim a weak one
// every time. A kept shadow serves in a new generation whose pages are
// emptied one by one at their first visit (page.renew). It serves again
// only if it holds at most twice its recent peak of pages touched (see
// shadow.peak) and keepSlack more, so that one that serves cohort after
// cohort stays near the shadow of the memory the recent ones touched: a
// program whose large launches alternate with small ones keeps it, one
// whose buffers move on drops it.

// keepSlack is how many pages beyond twice its peak (see keeps) a
// shadow may hold and still serve again.
const keepSlack = 64

// A spareShadow is a device's shadow of global memory from a cohort that
// ended, held weakly; the one kept last is also held strongly (last),
// until another is kept.
type spareShadow struct {
	dev  uint64
	sh   weak.Pointer[shadow]
	last *shadow
}

// keepSpare keeps sh, device dev's shadow in the cohort that ended, for
// the next cohort to reuse, if it is small enough (see keeps), in place
// of any kept before for dev, and of the oldest if maxSpares are kept.
// Preconditions: p.mu held; no thread or host access of the cohort uses
// sh any more.
func (p *Engine) keepSpare(dev uint64, sh *shadow) {
	if !sh.keeps() {
		return
	}
	p.spares = slices.DeleteFunc(p.spares, func(s spareShadow) bool { return s.dev == dev })
	if len(p.spares) == maxSpares { // the oldest device's goes
		p.spares = slices.Delete(p.spares, 0, 1)
	}
	for i := range p.spares {
		p.spares[i].last = nil
	}
	if sh.self == (weak.Pointer[shadow]{}) {
		sh.self = weak.Make(sh)
	}
	p.spares = append(p.spares, spareShadow{dev: dev, sh: sh.self, last: sh})
}

// maxSpares is how many devices' shadows an engine keeps at most: a
// program that makes device after device leaves no trail of spares.
const maxSpares = 4

// keeps reports whether the shadow may serve another cohort, its cohort
// having ended: it holds at most twice its peak, and keepSlack more, and
// a directory no larger than those pages (see slotsPerPage). The
// peak is the pages the cohort touched, or the peak before it less a
// sixteenth if that is more: it follows a cohort that touches more at
// once, and shrinks with each that touches less, so a shadow outlives
// the ten or so small launches a primitive makes between large ones
// (2*(15/16)^10 > 1), but not a run of many more.
func (s *shadow) keeps() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak = max(s.touched.Load(), s.peak-s.peak/16)
	bound := 2*s.peak + keepSlack
	return s.pages <= bound && s.slots() <= slotsPerPage*bound
}

// slotsPerPage is how many directory slots (pointers) a kept shadow may
// hold per page it may keep: a directory no larger, in bytes, than the
// pages. A device hands out addresses that only grow, so buffers
// allocated for each cohort lie past the last cohort's, and a region that
// doubles to reach them would, cohort after cohort, span the device's
// whole history; bounding the directory drops such a shadow instead.
const slotsPerPage = pageBytes / 8

// slots returns how many page slots the shadow's directory holds.
// Preconditions: s.mu held.
func (s *shadow) slots() int64 {
	var n int64
	if p := s.regs.Load(); p != nil {
		for _, r := range *p {
			n += int64(len(r.pages))
		}
	}
	return n
}

// reused returns a shadow kept from an earlier cohort, in a new
// generation and counted again: device dev's if the engine keeps one,
// else the one kept last for another device, or nil if the collector
// has reclaimed it or none is kept. A device's addresses start where
// every device's do, so a program that makes a device per test or per
// run finds the last one's buffers' pages where its own will be; a
// device whose spare another took makes a new shadow at its next cohort.
// Either way the engine holds no spare for dev after.
// Preconditions: p.mu held.
func (p *Engine) reused(dev uint64) *shadow {
	i := slices.IndexFunc(p.spares, func(s spareShadow) bool { return s.dev == dev })
	if i < 0 {
		i = len(p.spares) - 1
	}
	if i < 0 {
		return nil
	}
	sh := p.spares[i].sh.Value()
	p.spares = slices.Delete(p.spares, i, i+1)
	if sh != nil {
		sh.renew(&p.totals)
	}
	return sh
}

// renew starts a new generation of the shadow, emptying every page at
// its next visit, and counts its pages in t again. The engine's mu,
// held, orders it before the cohort that the shadow serves next learns
// of it.
func (s *shadow) renew(t *totals) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.touched.Store(0)
	s.counted = true
	t.grow(pageBytes * s.pages)
}

// Blocks' states. A block that ends hands its threads' states and the
// shadow of its shared memory to the launch's next block (see
// Engine.BlockEnd), and a launch that ends keeps those its blocks left,
// weakly and as one batch, for the next launch to start with, up to
// maxSpareBlocks in all: a kernel launched again and again would
// otherwise make its blocks' thread and cold states, and their shared
// arrays' pages, full states and sets (see recycle.go), in every launch.
// A batch is one weak pointer, whatever its blocks, so that a launch of
// a few blocks keeps them for the cost of one. A shadow another block's
// thread looked up is not handed on (see pblock.foreign).

// maxSpareBlocks is how many ended blocks' states an engine keeps for
// the next launches at most.
const maxSpareBlocks = 256

// A spareBatch is the states an ended launch's blocks left, held weakly,
// and how many there are.
type spareBatch struct {
	states weak.Pointer[[]blockStates]
	n      int
}

// A spareBox is the object a batch's weak pointer points to, which holds
// the batch's states, and that pointer: a launch that took a batch whole
// holds its box strongly while it runs, and keeps its own blocks' states
// in it when it ends, so that a kernel launched again and again makes no
// new weak pointer per launch, each of which costs a handle in the
// runtime's table of them.
type spareBox struct {
	p *[]blockStates
	w weak.Pointer[[]blockStates]
}

// keepBlocks keeps, weakly and as one batch, the states that the ended
// launch l's blocks left, the last maxSpareBlocks of them, dropping the
// oldest batches kept until all fit: in the box of the batch l took
// whole, if it took one, else in a new one. Preconditions: p.mu held.
func (p *Engine) keepBlocks(l *plaunch) {
	kept := l.spare[max(0, len(l.spare)-maxSpareBlocks):]
	if len(kept) == 0 {
		return
	}
	for len(p.blocks) > 0 && p.keptBlocks()+len(kept) > maxSpareBlocks {
		p.blocks = slices.Delete(p.blocks, 0, 1)
	}
	box := l.box
	if box.p == nil {
		box.p = new([]blockStates)
		box.w = weak.Make(box.p)
	}
	*box.p = kept
	p.blocks = append(p.blocks, spareBatch{box.w, len(kept)})
}

// keptBlocks returns how many blocks' states the kept batches hold.
// Preconditions: p.mu held.
func (p *Engine) keptBlocks() int {
	n := 0
	for _, b := range p.blocks {
		n += b.n
	}
	return n
}

// takeBlocks returns, for a starting launch of blocks blocks, at most
// that many states of the batch kept last that the collector has not
// reclaimed (see plaunch.threads), or nil if none is left, and the
// batch's box if it took the batch whole. The launch holds what it takes
// strongly while it runs, and a launch never has more blocks resident,
// so the rest of the batch stays kept, weakly, in its box.
// Preconditions: p.mu held.
func (p *Engine) takeBlocks(blocks int) ([]blockStates, spareBox) {
	for len(p.blocks) > 0 {
		b := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		st := b.states.Value()
		if st == nil {
			continue
		}
		all := *st
		if k := len(all) - blocks; k > 0 {
			*st = all[:k:k] // a launch that takes the rest appends past k into a new array, not into this launch's
			p.blocks = append(p.blocks, spareBatch{b.states, k})
			return all[k:], spareBox{}
		}
		return all, spareBox{st, b.states}
	}
	return nil, spareBox{}
}
