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
	l := th.l
	switch s.Kind {
	case gpu.SyncThreads:
		l.blockBarrier(l.ranks(s.Block, 0, l.g.BlockSize, ^uint64(0)), &th.n)
	case gpu.SyncTile:
		l.barrier(l.ranks(s.Block, s.First, s.Count, ^uint64(0)), &th.n)
	case gpu.SyncWarp:
		if s.Op == "syncwarp" || s.Op == "tile.sync" { // value-exchanging intrinsics order no memory
			w := s.Warp - s.Block*l.g.Warps
			l.barrier(l.ranks(s.Block, w*l.g.WarpSize, l.g.WarpSize, s.Mask), &th.n)
		}
	case gpu.SyncGrid:
		l.gridBarrier(&th.n)
	}
}

// ranks returns the threads of block b with ranks first to first+n-1
// whose bit (rank-first) is set in mask.
func (l *plaunch) ranks(b, first, n int, mask uint64) []*pthread {
	return l.block(b).ranks(first, n, mask)
}

// ranks returns the block's threads with ranks first to first+n-1 whose
// bit (rank-first) is set in mask, in one allocation; none of a nil
// block.
func (blk *pblock) ranks(first, n int, mask uint64) []*pthread {
	if blk == nil {
		return nil
	}
	end := min(first+n, len(blk.threads))
	out := make([]*pthread, 0, max(end-first, 0))
	for r := first; r < end; r++ {
		if (r-first) >= 64 || mask>>(r-first)&1 != 0 {
			out = append(out, &blk.threads[r])
		}
	}
	return out
}

// gridBarrier applies a grid sync: every resident block passes a
// block-wide barrier, and all of them learn what all knew. It counts its
// joins in n, the calling thread's counters.
func (l *plaunch) gridBarrier(n *counters) {
	var v *vclock
	var blocks [][]*pthread
	for _, blk := range l.resident() {
		ths := blk.ranks(0, l.g.BlockSize, ^uint64(0))
		v = join(v, l.blockBarrier(ths, n), n)
		blocks = append(blocks, ths)
	}
	for _, ths := range blocks {
		for _, th := range ths {
			th.know = v
		}
	}
}

// resident returns the launch's resident blocks.
func (l *plaunch) resident() []*pblock {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	out := make([]*pblock, 0, len(l.blocks))
	for _, blk := range l.blocks {
		out = append(out, blk)
	}
	return out
}

// blockBarrier applies a barrier all of a block's threads ths passed:
// each leaves knowing the join of what all knew and, as one entry, every
// event of the block before the barrier, and starts a new generation. It
// returns what they now know, and counts its joins in n.
func (l *plaunch) blockBarrier(ths []*pthread, n *counters) *vclock {
	if len(ths) == 0 {
		return nil
	}
	var v *vclock
	var gen uint32
	for _, th := range ths {
		v = join(v, th.know, n)
		gen = max(gen, th.self().gen())
	}
	v = withBlock(v, int32(ths[0].place.Block), gen+1, n)
	for _, th := range ths {
		th.know = v
		th.c = uint64(gen+1)<<32 | 1
	}
	return v
}

// barrier orders every event of the threads ths before a partial barrier
// (a warp's or a tile's) before every event after it: each leaves knowing
// the join of what all knew and all their epochs, one vclock they share,
// and starts a new epoch. It counts its joins in n.
func (l *plaunch) barrier(ths []*pthread, n *counters) {
	var v *vclock
	es := make([]epoch, 0, len(ths))
	for _, th := range ths {
		v = join(v, th.know, n)
		es = append(es, th.self())
	}
	sortEpochs(es)
	v = join(v, threadsClock(es), n)
	for _, th := range ths {
		th.know = v
		th.c++
	}
}
