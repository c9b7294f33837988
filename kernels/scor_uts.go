package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injCountNoSyncwarp      = "count-no-syncwarp"
	injPushLockBlockCas     = "push-lock-block-cas"
	injPushTopBlockAdd      = "push-top-block-add"
	injPushUnlockBlockExch  = "push-unlock-block-exch"
	injStealLockBlockCas    = "steal-lock-block-cas"
	injStealTopBlockExch    = "steal-top-block-exch"
	injStealUnlockBlockExch = "steal-unlock-block-exch"
)

// ScorUTS is ScoR's unbalanced tree search: count the nodes and leaves
// of an implicit tree ([utsTree]) grown from one root per block, with
// work per warp and work stealing between blocks.
//
// Each block has a local stack, used only by its warps under a block-scope
// lock, and a steal stack that any block may pop under a device-scope
// lock. Lane 0 takes a lock for its warp and the lanes work inside the
// critical section together: __syncwarp orders them after lane 0's
// acquire, every lane fences before the release, and lane 0 passes the
// stack top it popped to the lanes through shared memory, behind a
// __syncwarp. A warp pops up to 32 nodes (one per lane) from its local
// stack, or else from the steal stacks; each lane counts its node and
// pushes the node's children to the local stack, the surplus over its
// capacity to the block's steal stack. A device-scope counter of nodes not
// yet expanded ends the search at zero.
//
// At paper size (ScoR's grid of 60 blocks of 256 threads, trees of height
// 9, ScoR's local stacks of 4·256 nodes) no local stack fills under the
// fibers executor, whose warps take turns, so no node reaches a steal
// stack and the six stealing injections do not race; under the
// goroutines executor, whose threads run side by side, a few hundred
// nodes spill and the blocks steal. At the default size the local stacks
// hold 32 nodes and the blocks steal under either. Smaller local stacks
// at paper size steal under fibers too, but leave thousands of warps
// polling for work near the end.
func ScorUTS() *Entry {
	inj := func(name, doc, at string) Injection {
		return Injection{Name: name, Doc: doc, Expect: []kind.Kind{kind.ScopedAtomic, kind.ImproperLocking}, Where: at}
	}
	return &Entry{
		Name:        "scor/uts",
		Doc:         "unbalanced tree search: warp-level locks on block-local and device-shared steal stacks",
		Cooperative: true,
		Injections: []Injection{
			inj(injPushLockBlockCas, "the owner takes its steal stack's lock with a block-scope CAS", where((*uts).lockSteal)),
			inj(injPushTopBlockAdd, "the owner reserves steal-stack slots with a block-scope atomic add", where((*uts).pushSteal)),
			inj(injPushUnlockBlockExch, "the owner releases its steal stack's lock with a block-scope exchange", where((*uts).unlockSteal)),
			inj(injStealLockBlockCas, "a thief takes the victim's lock with a block-scope CAS", where((*uts).lockSteal)),
			inj(injStealTopBlockExch, "a thief updates the victim's top with a block-scope exchange", where((*uts).popSteal)),
			inj(injStealUnlockBlockExch, "a thief releases the victim's lock with a block-scope exchange", where((*uts).unlockSteal)),
			{Name: injCountNoSyncwarp, Doc: "no __syncwarp between the lanes' stores of their counts and lane 0's sum of them (ScoR's SYNC_WARP compiled out)",
				Expect: []kind.Kind{kind.MissingSyncwarp}, Where: where((*uts).count), Corrupts: true},
		},
		Setup: setupUTS,
	}
}

type uts struct {
	tree                   utsTree
	blocks, threads        int
	localCap, stealCap     int
	local, localTop, lLock gpu.Buffer[int32]
	steal, stealTop, sLock gpu.Buffer[int32]
	pending                gpu.Buffer[int32]
	nodes, leaves          gpu.Buffer[int32] // per block
	inject                 string
	seed                   int64
}

func setupUTS(d *gpu.Device, p Params) (*Run, error) {
	u, err := newUTS(d, p)
	if err != nil {
		return nil, err
	}
	return &Run{Launch: single(coopCfg("uts", u.blocks, u.threads), u.search), Check: u.check}, nil
}

// newUTS allocates the search's stacks and counters on d and puts each
// block's root on its local stack.
func newUTS(d *gpu.Device, p Params) (*uts, error) {
	if err := warpSize32(d, "scor/uts"); err != nil {
		return nil, err
	}
	u := &uts{tree: utsTree{maxHeight: 6, avgChildren: 3}, blocks: 8, threads: 64, stealCap: 4000, inject: p.Inject, seed: p.Seed}
	if p.Size == Paper {
		u.tree.maxHeight, u.blocks, u.threads = 9, 60, 256
	}
	u.localCap = 4 * u.threads // ScoR's LOCAL_DEPTH
	if p.Size == Default {
		// A small local stack, so that even the small tree spills into the
		// steal stacks and the warps steal.
		u.localCap = 32
	}
	local, top := make([]int32, u.blocks*u.localCap), make([]int32, u.blocks)
	for b := range u.blocks {
		local[b*u.localCap], top[b] = u.tree.root(p.Seed, b), 1
	}
	u.local, u.localTop = gpu.FromHost(d, "localStack", local), gpu.FromHost(d, "localTop", top)
	u.lLock = gpu.Alloc[int32](d, "localLock", u.blocks)
	u.steal = gpu.Alloc[int32](d, "stealStack", u.blocks*u.stealCap)
	u.stealTop, u.sLock = gpu.Alloc[int32](d, "stealTop", u.blocks), gpu.Alloc[int32](d, "stealLock", u.blocks)
	u.pending = gpu.FromHost(d, "pending", []int32{int32(u.blocks)})
	u.nodes, u.leaves = gpu.Alloc[int32](d, "nodes", u.blocks), gpu.Alloc[int32](d, "leaves", u.blocks)
	return u, nil
}

func (u *uts) search(t *gpu.Thread) {
	for {
		node, k := u.popLocal(t)
		if k == 0 {
			node, k = u.stealAny(t)
		}
		if k == 0 {
			if u.finished(t) {
				return
			}
			continue
		}
		u.expand(t, node, t.Lane() < k)
	}
}

// bcast is the warp's two shared-memory words through which lane 0 hands
// values to its lanes.
func (u *uts) bcast(t *gpu.Thread) (gpu.Buffer[int32], int) {
	return gpu.Shared[int32](t, "bcast", 2*ceilDiv(u.threads, 32)), 2 * t.Warp()
}

// lock is the warp-level acquire: lane 0 takes the lock, then every lane
// passes a __syncwarp and a fence, which make the lanes part of the
// critical section.
func (u *uts) lock(t *gpu.Thread, lock gpu.Buffer[int32], i int, s scope.Scope) {
	t.SyncWarp(gpu.FullMask)
	if t.Lane() == 0 {
		for lock.AtomicCAS(t, i, 0, 1, s) != 0 {
		}
	}
	t.SyncWarp(gpu.FullMask)
	t.Fence(s)
}

// unlock is the warp-level release: every lane fences, then lane 0
// releases after a __syncwarp.
func (u *uts) unlock(t *gpu.Thread, lock gpu.Buffer[int32], i int, s scope.Scope) {
	t.Fence(s)
	t.SyncWarp(gpu.FullMask)
	if t.Lane() == 0 {
		lock.AtomicExch(t, i, 0, s)
	}
}

// popLocal pops up to one node per lane from the block's local stack and
// returns the lane's node and the number popped.
func (u *uts) popLocal(t *gpu.Thread) (node int32, k int) {
	b := t.BlockRank()
	bc, w := u.bcast(t)
	u.lock(t, u.lLock, b, scope.Block)
	if t.Lane() == 0 {
		top := u.localTop.LoadVolatile(t, b)
		n := min(top, 32)
		u.localTop.StoreVolatile(t, b, top-n)
		bc.Store(t, w, top)
		bc.Store(t, w+1, n)
	}
	t.SyncWarp(gpu.FullMask)
	top, n := int(bc.Load(t, w)), int(bc.Load(t, w+1))
	if t.Lane() < n {
		node = u.local.LoadVolatile(t, b*u.localCap+top-1-t.Lane())
	}
	u.unlock(t, u.lLock, b, scope.Block)
	return node, n
}

// stealAny pops up to one node per lane from the first steal stack that
// has any, starting with the block's own. Lane 0 peeks at the tops
// without the locks, as ScoR's work scan does, so only a stack that
// looks non-empty is locked.
func (u *uts) stealAny(t *gpu.Thread) (node int32, k int) {
	bc, w := u.bcast(t)
	if t.Lane() == 0 {
		victim := int32(-1)
		for i := range u.blocks {
			if v := (t.BlockRank() + i) % u.blocks; u.stealTop.AtomicAdd(t, v, 0, scope.Device) > 0 {
				victim = int32(v)
				break
			}
		}
		bc.Store(t, w, victim)
	}
	t.SyncWarp(gpu.FullMask)
	v := int(bc.Load(t, w))
	t.SyncWarp(gpu.FullMask) // every lane has read bc before lane 0 reuses it
	if v < 0 {
		return 0, 0
	}
	u.lockSteal(t, v)
	node, k = u.popSteal(t, v)
	u.unlockSteal(t, v)
	return node, k
}

// lockSteal takes steal stack v's device-scope lock for the warp.
func (u *uts) lockSteal(t *gpu.Thread, v int) {
	s := scope.Device
	if v == t.BlockRank() && u.inject == injPushLockBlockCas || v != t.BlockRank() && u.inject == injStealLockBlockCas {
		s = scope.Block
	}
	t.SyncWarp(gpu.FullMask)
	if t.Lane() == 0 {
		for u.sLock.AtomicCAS(t, v, 0, 1, s) != 0 {
		}
	}
	t.SyncWarp(gpu.FullMask)
	t.ThreadFence()
}

// unlockSteal releases steal stack v's lock.
func (u *uts) unlockSteal(t *gpu.Thread, v int) {
	s := scope.Device
	if v == t.BlockRank() && u.inject == injPushUnlockBlockExch || v != t.BlockRank() && u.inject == injStealUnlockBlockExch {
		s = scope.Block
	}
	t.ThreadFence()
	t.SyncWarp(gpu.FullMask)
	if t.Lane() == 0 {
		u.sLock.AtomicExch(t, v, 0, s)
	}
}

// popSteal pops up to one node per lane from steal stack v, whose lock
// the warp holds.
func (u *uts) popSteal(t *gpu.Thread, v int) (node int32, k int) {
	bc, w := u.bcast(t)
	if t.Lane() == 0 {
		top := u.stealTop.AtomicAdd(t, v, 0, scope.Device)
		n := min(top, 32)
		s := scope.Device
		if v != t.BlockRank() && u.inject == injStealTopBlockExch {
			s = scope.Block
		}
		u.stealTop.AtomicExch(t, v, top-n, s)
		bc.Store(t, w, top)
		bc.Store(t, w+1, n)
	}
	t.SyncWarp(gpu.FullMask)
	top, n := int(bc.Load(t, w)), int(bc.Load(t, w+1))
	if t.Lane() < n {
		node = u.steal.AtomicAdd(t, v*u.stealCap+top-1-t.Lane(), 0, scope.Device)
	}
	return node, n
}

// expand counts the lane's node, if it has one, and pushes its children.
// The pending counter grows by the children before it drops by the
// parent, so it reaches zero only when the whole tree is counted.
func (u *uts) expand(t *gpu.Thread, node int32, has bool) {
	c := 0
	if has {
		c = u.tree.children(node)
		u.pending.AtomicAdd(t, 0, int32(c), scope.Device)
	}
	u.count(t, has, c == 0)
	fit := u.pushLocal(t, node, c)
	u.lockSteal(t, t.BlockRank())
	u.pushSteal(t, node, fit, c)
	u.unlockSteal(t, t.BlockRank())
	if has {
		u.pending.AtomicAdd(t, 0, -1, scope.Device)
	}
}

// count adds the warp's nodes and leaves to the block's counters: each lane
// stores its own in shared memory and, after a __syncwarp, lane 0 sums
// them, so the counters take one atomic per warp rather than per lane.
// (The next __syncwarp, in pushLocal's lock, orders lane 0's reads before
// the lanes' next stores.)
func (u *uts) count(t *gpu.Thread, has, leaf bool) {
	counts := gpu.Shared[int32](t, "laneCounts", 32*ceilDiv(u.threads, 32))
	var v int32
	if has {
		v = 1
		if leaf {
			v += 1 << 16
		}
	}
	counts.Store(t, t.ThreadRank(), v)
	if u.inject != injCountNoSyncwarp {
		t.SyncWarp(gpu.FullMask)
	}
	if t.Lane() == 0 {
		var sum int32
		for l := range 32 {
			sum += counts.Load(t, t.Warp()*32+l)
		}
		u.nodes.AtomicAdd(t, t.BlockRank(), sum&0xffff, scope.Block)
		u.leaves.AtomicAdd(t, t.BlockRank(), sum>>16, scope.Block)
	}
}

// pushLocal pushes node's first children onto the local stack, as many
// as fit, and returns how many did.
func (u *uts) pushLocal(t *gpu.Thread, node int32, c int) int {
	b := t.BlockRank()
	u.lock(t, u.lLock, b, scope.Block)
	fit := 0
	if c > 0 {
		pos := int(u.localTop.AtomicAdd(t, b, int32(c), scope.Block))
		fit = max(0, min(c, u.localCap-pos))
		for i := range fit {
			u.local.StoreVolatile(t, b*u.localCap+pos+i, u.tree.child(node, i))
		}
	}
	t.SyncWarp(gpu.FullMask)
	if t.Lane() == 0 {
		u.localTop.AtomicMin(t, b, int32(u.localCap), scope.Block)
	}
	u.unlock(t, u.lLock, b, scope.Block)
	return fit
}

// pushSteal pushes node's children from the fit-th on to the block's
// steal stack, whose lock the warp holds.
func (u *uts) pushSteal(t *gpu.Thread, node int32, fit, c int) {
	if c <= fit {
		return
	}
	s := scope.Device
	if u.inject == injPushTopBlockAdd {
		s = scope.Block
	}
	b := t.BlockRank()
	pos := int(u.stealTop.AtomicAdd(t, b, int32(c-fit), s))
	if pos+c-fit > u.stealCap {
		panic(fmt.Sprintf("uts: steal stack of block %d overflows its %d nodes", b, u.stealCap))
	}
	for i := fit; i < c; i++ {
		u.steal.AtomicExch(t, b*u.stealCap+pos+i-fit, u.tree.child(node, i), scope.Device)
	}
}

// finished reports, to every lane alike, whether no node is left to
// expand.
func (u *uts) finished(t *gpu.Thread) bool {
	bc, w := u.bcast(t)
	if t.Lane() == 0 {
		bc.Store(t, w, u.pending.AtomicAdd(t, 0, 0, scope.Device))
	}
	t.SyncWarp(gpu.FullMask)
	// At most zero rather than zero: a racy injection that expands a node
	// twice drives the counter below zero, and the search must still end.
	done := bc.Load(t, w) <= 0
	t.SyncWarp(gpu.FullMask)
	return done
}

func (u *uts) check() error {
	var wantNodes, wantLeaves int
	for b := range u.blocks {
		n, l := u.tree.count(u.tree.root(u.seed, b))
		wantNodes, wantLeaves = wantNodes+n, wantLeaves+l
	}
	var nodes, leaves int
	for b := range u.blocks {
		nodes += int(u.nodes.Host()[b])
		leaves += int(u.leaves.Host()[b])
	}
	if nodes != wantNodes || leaves != wantLeaves {
		return fmt.Errorf("counted %d nodes and %d leaves, want %d and %d", nodes, leaves, wantNodes, wantLeaves)
	}
	return nil
}
