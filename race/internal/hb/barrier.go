package hb

import "github.com/warpguard/warpguard/gpu"

// Sync applies a completed barrier or collective. The runtime calls it
// while every participant is held in the barrier (gpu.Observer), so it
// may change their states: each participant's calls before the barrier
// happen before it, and it happens before their calls after.
func (p *Engine) Sync(t *gpu.Thread, s gpu.Sync) {
	th := p.thread(t)
	if th == nil {
		return
	}
	l, blk := th.l, th.blk
	if blk == nil || blk.id != s.Block { // the caller is one of the participants
		blk = l.block(s.Block)
	}
	switch s.Kind {
	case gpu.SyncThreads:
		l.blockBarrier(blk.span(0, l.g.BlockSize), &th.n)
	case gpu.SyncTile:
		l.barrier(blk.span(s.First, s.Count), ^uint64(0), &th.n)
	case gpu.SyncWarp:
		if s.Op == "syncwarp" || s.Op == "tile.sync" { // value-exchanging intrinsics order no memory
			w := s.Warp - s.Block*l.g.Warps
			l.barrier(blk.span(w*l.g.WarpSize, l.g.WarpSize), s.Mask, &th.n)
		}
	case gpu.SyncGrid:
		l.gridBarrier(&th.n)
	}
}

// span returns the block's threads with ranks first to first+n-1 (fewer
// at the block's end), in place: none of a nil block.
func (blk *pblock) span(first, n int) []pthread {
	if blk == nil {
		return nil
	}
	end := min(first+n, len(blk.threads))
	return blk.threads[min(first, end):end]
}

// takes reports whether the thread at index i of a barrier's span takes
// part, by its bit in mask: a span past 64 threads takes every one.
func takes(mask uint64, i int) bool { return i >= 64 || mask>>i&1 != 0 }

// gridBarrier applies a grid sync: every resident block passes a
// block-wide barrier, and all of them learn what all knew. It counts its
// joins in n, the calling thread's counters.
func (l *plaunch) gridBarrier(n *counters) {
	var blocks [][]pthread
	var ins []*vclock
	for _, blk := range l.resident() {
		ths := blk.span(0, l.g.BlockSize)
		ins = append(ins, l.blockBarrier(ths, n))
		blocks = append(blocks, ths)
	}
	v := joinAll(ins, nil, n)
	for _, ths := range blocks {
		for i := range ths {
			ths[i].know = v
		}
	}
}

// resident returns the launch's resident blocks.
func (l *plaunch) resident() []*pblock {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	var out []*pblock
	for i := range l.cache {
		if blk := l.cache[i].Load(); blk != nil {
			out = append(out, blk)
		}
	}
	for _, blk := range l.overflow {
		out = append(out, blk)
	}
	return out
}

// blockBarrier applies a barrier all of a block's threads ths passed:
// each leaves knowing the join of what all knew and, as one entry, every
// event of the block before the barrier, and starts a new generation. It
// returns what they now know, made in one join, and counts its joins in
// n.
func (l *plaunch) blockBarrier(ths []pthread, n *counters) *vclock {
	if len(ths) == 0 {
		return nil
	}
	var buf [maxJoin]*vclock
	ins := buf[:0]
	var gen uint32
	for i := range ths {
		ins = appendNew(ins, ths[i].know)
		gen = max(gen, ths[i].self().gen())
	}
	ins = append(ins, &vclock{b: []bgen{{int32(ths[0].place.Block), gen + 1}}})
	v := joinAll(ins, nil, n)
	for i := range ths {
		ths[i].know = v
		ths[i].c = uint64(gen+1)<<32 | 1
	}
	return v
}

// barrier orders every event of the threads of ths that mask names (see
// takes) before a partial barrier (a warp's or a tile's) before every
// event after it: each leaves knowing the join of what all knew and all
// their epochs, one vclock they share, made in one join, and starts a
// new epoch. It counts its joins in n.
func (l *plaunch) barrier(ths []pthread, mask uint64, n *counters) {
	var buf [maxJoin]*vclock
	var ebuf [64]epoch
	ins, es := buf[:0], ebuf[:0]
	for i := range ths {
		if takes(mask, i) {
			ins = appendNew(ins, ths[i].know)
			es = append(es, ths[i].last())
		}
	}
	v := joinAll(ins, es, n)
	for i := range ths {
		if takes(mask, i) {
			ths[i].know = v
			ths[i].c++
		}
	}
}

// appendNew appends v to vs unless it is the last one there: threads
// that met at their last barrier share one vclock until they learn
// something apart.
func appendNew(vs []*vclock, v *vclock) []*vclock {
	if n := len(vs); n > 0 && vs[n-1] == v {
		return vs
	}
	return append(vs, v)
}
