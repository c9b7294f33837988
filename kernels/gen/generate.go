package gen

import (
	"math/rand/v2"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A maker draws the parts of one kernel from one random stream.
type maker struct {
	r        *rand.Rand
	k        *Kernel
	messages int
}

// Generate returns the kernel seed picks. Equal seeds give equal kernels.
func Generate(seed uint64) *Kernel {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	sizes := []int{1, 2, 2, 3, 4, 4, 5, 8, 8, 16, 32, 33, 40, 64}
	k := &Kernel{Seed: seed, Blocks: 1 + r.IntN(maxBlocks), Threads: sizes[r.IntN(len(sizes))],
		Data: 1 + r.IntN(maxData), Shared: 1 + r.IntN(sharedWords)}
	mk := &maker{r: r, k: k}
	for range 2 + r.IntN(5) {
		k.Body = append(k.Body, mk.stmt())
	}
	return k
}

// stmt draws one statement.
func (mk *maker) stmt() Stmt {
	switch n := mk.r.IntN(100); {
	case n < 36:
		return mk.access(mk.guard())
	case n < 44:
		return Fence{Who: mk.guard(), Scope: mk.fenceScope(), Order: []gpu.Order{gpu.SeqCst, gpu.AcqRel}[mk.r.IntN(2)]}
	case n < 58:
		return SyncThreads{}
	case n < 66:
		return mk.syncWarp()
	case n < 69:
		return Ballot{}
	case n < 72:
		return mk.tileSync()
	case n < 80:
		return mk.lock()
	case mk.messages < maxFlags:
		return mk.message()
	}
	return mk.access(mk.guard())
}

// guard draws who runs a statement: mostly one thread, often every
// other thread, sometimes all.
func (mk *maker) guard() Guard {
	g := Guard{Block: -1, Mod: 1}
	if mk.r.IntN(2) == 0 {
		g.Block = mk.r.IntN(mk.k.Blocks)
	}
	switch n := mk.r.IntN(20); {
	case n < 15:
		g.Mod, g.Rem = maxThreads, mk.r.IntN(mk.k.Threads) // rank % 64 == r: rank r
	case n < 19:
		g.Mod = 2 + 2*mk.r.IntN(2)
		g.Rem = mk.r.IntN(g.Mod)
	}
	return g
}

// access draws a data access run by g.
func (mk *maker) access(g Guard) Access {
	a := Access{Who: g, Space: Global, Scope: mk.scope()}
	n := mk.k.Data
	if mk.r.IntN(20) < 9 {
		a.Space, n = Shared, mk.k.Shared
	}
	a.At = Index{Off: mk.r.IntN(n), N: n}
	if mk.r.IntN(10) < 3 {
		a.At.Stride = 1
	}
	a.Op, a.Order = mk.op()
	if a.Order == gpu.Weak {
		a.Scope = scope.Thread
	} else if a.Order == gpu.Volatile {
		a.Scope = scope.System
	}
	return a
}

// op draws an access's operation and order.
func (mk *maker) op() (Op, gpu.Order) {
	switch n := mk.r.IntN(100); {
	case n < 40:
		return Load, mk.order(gpu.Acquire)
	case n < 75:
		return Store, mk.order(gpu.Release)
	case n < 85:
		return Add, mk.rmwOrder()
	case n < 93:
		return Exch, mk.rmwOrder()
	}
	return CAS, mk.rmwOrder()
}

// rmwOrder draws a read-modify-write's order: mostly relaxed, as CUDA's
// atomicX, else any of cuda::atomic_ref's.
func (mk *maker) rmwOrder() gpu.Order {
	if mk.r.IntN(2) == 0 {
		return gpu.Relaxed
	}
	return []gpu.Order{gpu.Acquire, gpu.Release, gpu.AcqRel, gpu.SeqCst}[mk.r.IntN(4)]
}

// order draws a load's or store's order; ordering is Acquire or
// Release.
func (mk *maker) order(ordering gpu.Order) gpu.Order {
	switch n := mk.r.IntN(100); {
	case n < 50:
		return gpu.Weak
	case n < 65:
		return gpu.Volatile
	case n < 85:
		return gpu.Relaxed
	case n < 93:
		return ordering
	}
	return gpu.SeqCst
}

// scope draws the scope of an atomic or ordering access.
func (mk *maker) scope() scope.Scope {
	return []scope.Scope{scope.Block, scope.Block, scope.Device, scope.Device, scope.Device, scope.System}[mk.r.IntN(6)]
}

// fenceScope draws a fence's scope.
func (mk *maker) fenceScope() scope.Scope {
	return []scope.Scope{scope.Block, scope.Block, scope.Device, scope.Device, scope.System}[mk.r.IntN(5)]
}

// syncWarp draws a full or partial __syncwarp.
func (mk *maker) syncWarp() SyncWarp {
	if mk.r.IntN(2) == 0 {
		return SyncWarp{Mask: ^uint64(0)}
	}
	return SyncWarp{Mask: mk.r.Uint64() | 1}
}

// tileSync draws a tile sync of a size the block allows: a power of two
// no larger than the block, dividing it if larger than a warp.
func (mk *maker) tileSync() TileSync {
	sizes := []int{1}
	for s := 2; s <= min(mk.k.Threads, maxThreads); s *= 2 {
		if s <= 32 || mk.k.Threads%s == 0 {
			sizes = append(sizes, s)
		}
	}
	return TileSync{Size: sizes[mk.r.IntN(len(sizes))]}
}

// lock draws a critical section over one or two data accesses.
func (mk *maker) lock() Lock {
	l := Lock{Who: mk.guard(), Lock: mk.r.IntN(maxLocks), Scope: mk.fenceScope(),
		Exch: mk.r.IntN(2) == 0, Fence: mk.r.IntN(3) != 0, Release: mk.r.IntN(2) == 0}
	for range 1 + mk.r.IntN(2) {
		a := mk.access(l.Who)
		a.Op, a.Order, a.Scope = Load+Op(mk.r.IntN(2)), gpu.Weak, scope.Thread
		l.Body = append(l.Body, a)
	}
	l.Take, l.Give = mk.lockOrder(), mk.lockOrder()
	return l
}

// lockOrder draws the order of a lock's read-modify-write: relaxed, CUDA's
// atomicCAS and atomicExch, three times in seven, else one of libcu++'s.
func (mk *maker) lockOrder() gpu.Order {
	orders := [...]gpu.Order{gpu.Relaxed, gpu.Relaxed, gpu.Relaxed, gpu.Acquire, gpu.Release, gpu.AcqRel, gpu.SeqCst}
	return orders[mk.r.IntN(len(orders))]
}

// message draws a message through the next unused flag, from one thread
// to a guarded group of others.
func (mk *maker) message() Message {
	msg := Message{Block: mk.r.IntN(mk.k.Blocks), Rank: mk.r.IntN(mk.k.Threads), To: mk.guard(), Flag: mk.messages,
		PubFence: mk.optFence(), Set: []gpu.Order{gpu.Volatile, gpu.Relaxed, gpu.Release}[mk.r.IntN(3)], SetScope: mk.scope(),
		Wait: []gpu.Order{gpu.Volatile, gpu.Relaxed, gpu.Acquire}[mk.r.IntN(3)], WaitScope: mk.scope(), SubFence: mk.optFence()}
	mk.messages++
	for d := range mk.k.Data {
		if mk.r.IntN(2) == 0 || len(msg.Data) == 0 && d == mk.k.Data-1 {
			msg.Data = append(msg.Data, d)
		}
	}
	if msg.Set == gpu.Volatile {
		msg.SetScope = scope.System
	}
	if msg.Wait == gpu.Volatile {
		msg.WaitScope = scope.System
	}
	return msg
}

// optFence draws a fence scope, or scope.Thread for no fence.
func (mk *maker) optFence() scope.Scope {
	if mk.r.IntN(3) == 0 {
		return scope.Thread
	}
	return mk.fenceScope()
}
