package gpu

import "github.com/warpguard/warpguard/scope"

// Fence is a sequentially consistent memory fence of scope s, PTX's
// fence.sc: __threadfence_block for scope.Block, __threadfence for
// scope.Device, __threadfence_system for scope.System (on sm_70 and later
// each compiles to fence.sc at its scope), and
// cuda::atomic_thread_fence(memory_order_seq_cst, s).
//
// In the terminology of [the Go memory model], a fence.sc is a
// fence.acq_rel (see [Thread.FenceAcqRel]) and more: the fence.sc
// operations of a launch are totally ordered, and of two in that order,
// made by threads A and B with scopes that each cover the other thread,
// the earlier one "synchronizes before" the later one: every write A made
// before its fence is visible to every read B makes after its fence. So
// two threads that each store a flag, fence, and read the other's flag
// cannot both read 0 (Dekker); the one that reads 0 fenced first, and the
// other, which reads 1, may then read what the first wrote before its
// fence. A fence blocks nothing.
//
// [the Go memory model]: https://go.dev/ref/mem
func (t *Thread) Fence(s scope.Scope) { t.fence(s, SeqCst) }

// FenceAcqRel is an acquire-release memory fence of scope s, PTX's
// fence.acq_rel: cuda::atomic_thread_fence(memory_order_acq_rel, s), and
// the fence CUDA's acquire and release thread fences compile to.
//
// In the terminology of [the Go memory model], if thread A writes x, then
// executes a fence of scope s, then makes a strong write of flag, and
// thread B (covered by s with A) reads A's value of flag with a strong
// read, then executes a fence of scope s, then A's write of x
// "synchronizes before" B's read of x. Unlike [Thread.Fence], two such
// fences with no flag read between them order nothing.
//
// [the Go memory model]: https://go.dev/ref/mem
func (t *Thread) FenceAcqRel(s scope.Scope) { t.fence(s, AcqRel) }

// ThreadFenceBlock is CUDA's __threadfence_block: Fence(scope.Block).
func (t *Thread) ThreadFenceBlock() { t.Fence(scope.Block) }

// ThreadFence is CUDA's __threadfence: Fence(scope.Device).
func (t *Thread) ThreadFence() { t.Fence(scope.Device) }

// ThreadFenceSystem is CUDA's __threadfence_system: Fence(scope.System).
func (t *Thread) ThreadFenceSystem() { t.Fence(scope.System) }

// fence is a fence of scope s and order o, AcqRel or SeqCst.
func (t *Thread) fence(s scope.Scope, o Order) {
	t.check()
	if !s.Valid() {
		t.failf("fence with invalid %v", s)
	}
	if t.obs != nil {
		t.observeFence(s, o)
	}
	if t.blk.l.preemptive {
		t.blk.exec.(*fiberExec).preempt(t)
	}
}

// observeFence reports a fence of scope s and order o to t's observer. A
// fence.sc is reported, when two observers sequence (see Sequencer),
// under the fence mutexes of t's instances of scopes s down to warp (see
// lockFenceSC), so that both see the fence.sc operations of each scope
// instance in one order: the order in which its mutex was taken, which
// each call's unlock synchronizes before the next. Two fence.sc that can
// synchronize (each one's scope covers the other's thread) share their
// common instance, so both observers see them in the same order; a block
// fence of one block and one of another share none and are reported
// concurrently. A single sequencing observer orders the reports itself,
// as it applies them, so the runtime holds nothing around them.
func (t *Thread) observeFence(s scope.Scope, o Order) {
	if o == SeqCst && t.seq != nil && t.seq.b != nil {
		t.lockFenceSC(s)
		defer t.unlockFenceSC(s)
	}
	t.obs.Fence(t, s, o)
}

// lockFenceSC locks the fence mutexes of t's instances of scopes s down
// to warp: the device's, the block's and the warp's, widest first, so
// that fences of nested instances cannot deadlock. A system-scope fence
// takes its device's, as a device-scope one does.
func (t *Thread) lockFenceSC(s scope.Scope) {
	if s >= scope.Device {
		t.dev.fenceSC.Lock()
	}
	if s >= scope.Block {
		t.blk.fenceSC.Lock()
	}
	if s >= scope.Warp {
		t.blk.warpFenceSC[t.Warp()].Lock()
	}
}

// unlockFenceSC unlocks what lockFenceSC(s) locked.
func (t *Thread) unlockFenceSC(s scope.Scope) {
	if s >= scope.Warp {
		t.blk.warpFenceSC[t.Warp()].Unlock()
	}
	if s >= scope.Block {
		t.blk.fenceSC.Unlock()
	}
	if s >= scope.Device {
		t.dev.fenceSC.Unlock()
	}
}
