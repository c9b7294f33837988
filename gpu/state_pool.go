package gpu

import "sync"

// A statePool keeps a device's threads' slow-path states (syncState)
// between its launches, so that a launch takes its slots' states from the
// pool instead of allocating them: most of what a launch allocated per
// thread, and the collector ran about once per launch of a few thousand
// threads for it. The Threads themselves stay per launch: a Thread kept
// past its kernel must keep failing with ErrThreadEnded after its launch,
// which a Thread reused by a later launch could not.
//
// States are kept per slot index, as fibers are (see fiberPool): a slot
// takes back the states the slot of its index gave back, which the same
// processor wrote last. The pool keeps at most max states, as many as the
// device's resident threads, the most one launch uses.
type statePool struct {
	mu     sync.Mutex
	shards [][][]syncState // by slot index
	n, max int             // states kept, and the most kept
}

// take returns n cleared states for slot index i, reusing the last array
// the slot of that index gave back if it holds n. A goroutine executor's
// wake channel is kept, emptied: it is made once per state, not per
// launch. A put synchronizes before the take that returns its states.
func (p *statePool) take(i, n int, chans bool) []syncState {
	ss := p.pop(i, n)
	if !chans {
		clear(ss) // one bulk clear
		return ss
	}
	for k := range ss {
		ch := ss[k].wakeCh
		ss[k] = syncState{}
		if ch == nil {
			ch = make(chan struct{}, 1)
		}
		select {
		case <-ch: // a wake-up left by a stopped launch
		default:
		}
		ss[k].wakeCh = ch
	}
	return ss
}

// pop removes and returns the last array of shard i if it holds n states,
// and a new one otherwise.
func (p *statePool) pop(i, n int) []syncState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < len(p.shards) {
		if k := len(p.shards[i]); k > 0 {
			ss := p.shards[i][k-1]
			p.shards[i][k-1] = nil
			p.shards[i] = p.shards[i][:k-1]
			p.n -= cap(ss)
			if cap(ss) >= n {
				return ss[:n]
			}
		}
	}
	return make([]syncState, n)
}

// put keeps ss for slot index i, if the pool has room for it. Its
// threads must have ended: no call of theirs touches ss afterwards.
func (p *statePool) put(i int, ss []syncState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n+cap(ss) > p.max {
		return
	}
	for len(p.shards) <= i {
		p.shards = append(p.shards, nil)
	}
	p.shards[i] = append(p.shards[i], ss)
	p.n += cap(ss)
}
