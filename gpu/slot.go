package gpu

import (
	"errors"
	"math/rand/v2"
	"sync"
)

// A slot is one resident block slot of an SM: the block it is running, its
// threads and the executor that runs them. Slots are reused across blocks,
// so a grid of any size runs in memory bounded by its resident blocks.
type slot struct {
	l       *launch
	index   int // the slot's index in its launch
	blk     block
	threads []Thread
	sync    []syncState // the threads' slow-path state, the device's (see statePool)
	faults  []threadFaults
	exec    executor
	rng     *rand.Rand // ScheduleRandom's source for the current block
}

func newSlot(l *launch, index int) *slot {
	goroutines := l.cfg.Executor == Goroutines
	s := &slot{l: l, index: index, threads: make([]Thread, l.g.BlockSize), sync: l.d.states.take(index, l.g.BlockSize, goroutines),
		faults: make([]threadFaults, l.g.BlockSize)}
	if goroutines {
		s.exec = &goExec{s: s}
	} else {
		s.exec = &fiberExec{s: s, kick: make(chan struct{}, 1)}
	}
	s.blk.l, s.blk.exec, s.blk.threads, s.blk.slot = l, s.exec, s.threads, index
	if l.seq != nil && l.seq.b != nil {
		s.blk.warpFenceSC = make([]sync.Mutex, l.g.Warps)
	}
	for i := range s.threads {
		t := &s.threads[i]
		t.blk, t.obs, t.stop, t.rank, t.syncState, t.threadFaults = &s.blk, l.cfg.Observer, &l.stop, i, &s.sync[i], &s.faults[i]
		t.dev, t.seq = l.d, l.seq
	}
	return s
}

// close ends the slot's executor and gives its threads' states back to
// the device. Every thread of the slot has ended by then, or never
// started: no later call of theirs touches the states.
func (s *slot) close() {
	s.exec.close()
	s.l.d.states.put(s.index, s.sync)
}

// runBlock runs block id on the slot.
func (s *slot) runBlock(id int) {
	s.blk.reset(id)
	base := id * s.l.g.BlockSize
	for i := range s.threads {
		t := &s.threads[i]
		t.gid, t.spins, t.obsState, t.fib = base+i, 0, nil, nil
		t.done, t.progress, t.lastFail = false, false, 0
		t.spinMem, t.yieldSeq, t.flt, t.err, t.errSite = nil, 0, fault{}, nil, Site{}
		t.weakN, t.weak = 0, weakPoll{}
		t.stop = &s.l.stop // the last block's thread ended: see depart
	}
	if s.l.sched.kind != ScheduleDefault {
		s.rng = s.l.sched.rng(id)
		s.blk.order = s.l.sched.order(s.blk.order, len(s.threads), s.rng)
	}
	obs := s.l.cfg.Observer
	if obs != nil {
		for i := range s.sync {
			s.sync[i].pollAt = 0 // a poll by the rank's thread of the last block is not this one's
		}
		s.l.blockObserved(true, id)
	}
	s.l.watch[s.index].running.Store(int64(id) + 1)
	s.exec.run()
	s.l.watch[s.index].running.Store(0)
	if obs != nil {
		s.l.blockObserved(false, id)
	}
}

// errGoexit is the error of a thread whose kernel called runtime.Goexit,
// for example through testing.T.FailNow.
var errGoexit = errors.New("kernel called runtime.Goexit (t.FailNow or require in a kernel thread?); record results and assert after Launch returns")

// runThread runs the kernel for t and turns however it ends into t's
// result.
func (s *slot) runThread(t *Thread) {
	normal := false
	defer func() {
		s.result(t, recover(), normal)
		s.exec.exit(t)
	}()
	s.l.kernel(t)
	normal = true
}

// waitedAt returns what t waits at. A thread that saw the stop while
// waiting reads it under the block's lock: a sibling completing the round
// as the launch stops clears it under that lock (see block.release).
func (s *slot) waitedAt(t *Thread) waitInfo {
	s.exec.lock()
	defer s.exec.unlock()
	return t.at
}

// result records the error of a thread that ended with recovered value r,
// or abnormally with no value (runtime.Goexit), and halts the launch if the
// error calls for it.
func (s *slot) result(t *Thread, r any, normal bool) {
	err, stopped := t.outcome(r, normal)
	if stopped && s.l.reporting.Load() {
		s.l.noteStuck(t, s.waitedAt(t), r)
	}
	if err != nil && err != errStopped {
		e := t.threadError(err)
		if r != nil || !normal {
			e.Site = s.l.errorSite(r)
		}
		if e.Site.IsZero() {
			e.Site = t.recordedSite() // an error the kernel recovered from
		}
		s.l.record(e)
		if halts(err) {
			s.l.halt()
		}
	}
}

// halts reports whether err stops the whole launch: panics do, as a fault
// aborts a CUDA kernel; an out-of-range index or a misused intrinsic stops
// only its thread.
func halts(err error) bool {
	var p *PanicError
	return errors.As(err, &p) || err == errGoexit
}
