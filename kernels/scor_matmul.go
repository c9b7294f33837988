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
	injCLockBlockCas      = "c-lock-block-cas"
	injCLockBlockFence    = "c-lock-block-fence"
	injTileNoAcquireFence = "tile-no-acquire-fence"
	injTileNoReleaseFence = "tile-no-release-fence"
)

// ScorMatrixMult is ScoR's matrix multiplication: C = A·B over int32, with the
// products of each output element summed under two levels of spin locks.
//
// A block takes a work item (a row of A and a chunk of blockDim k-indices),
// and for each tile of 32 output columns every thread sums 32 products for
// column tile+lane. Lane L of every warp adds its sum into the block's
// accumulator tileSum[L] under a block-scope lock (CAS, block fence,
// critical section, block fence, exchange). After __syncthreads, lane L of
// warp 0 adds tileSum[L] into C under a device-scope lock, since the blocks
// holding other chunks of the row add into the same elements.
func ScorMatrixMult() *Entry {
	return &Entry{
		Name: "scor/matrix-mult",
		Doc:  "C = A·B with per-lane block-scope locks for a tile's partial sums and device-scope locks for C",
		Injections: []Injection{
			{Name: injTileNoAcquireFence, Doc: "warps other than warp 0 skip the block fence after taking the tile lock, so their lock never becomes active",
				Expect: []kind.Kind{kind.ImproperLocking, kind.MissingBlockFence}, Where: where((*matMul).addPartial),
				Precise: &Verdict{Why: whyVolatile}},
			{Name: injTileNoReleaseFence, Doc: "no block fence before releasing the tile lock",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.ImproperLocking}, Where: where((*matMul).addPartial),
				Precise: &Verdict{Why: whyVolatile}},
			{Name: injCLockBlockCas, Doc: "C's lock is taken with a block-scope CAS although blocks share it",
				Expect: []kind.Kind{kind.ScopedAtomic, kind.ImproperLocking}, Where: where((*matMul).addTile)},
			{Name: injCLockBlockFence, Doc: "odd blocks follow C's device lock with a block fence, which does not acquire it for other blocks",
				Expect: []kind.Kind{kind.ImproperLocking, kind.MissingDeviceFence}, Where: where((*matMul).addTile),
				Precise: &Verdict{Why: whyVolatile}},
		},
		Setup: setupMatMul,
	}
}

type matMul struct {
	rA, cA, cB      int
	blocks, threads int
	a, b, c         gpu.Buffer[int32]
	tileSum         gpu.Buffer[int32] // 32 accumulators per block, global as in ScoR
	tileLock, cLock gpu.Buffer[int32]
	inject          string
	hostA, hostB    []int32
}

func setupMatMul(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "scor/matrix-mult"); err != nil {
		return nil, err
	}
	m := &matMul{rA: 40, cA: 100, cB: 40, blocks: 8, threads: 64, inject: p.Inject}
	if p.Size == Paper { // iGUARD's input on ScoR's default grid
		m.rA, m.cA, m.cB, m.blocks, m.threads = 800, 500, 30, 120, 128
	}
	r := newRand(p.Seed)
	m.hostA, m.hostB = randInt32s(r, m.rA*m.cA, 100), randInt32s(r, m.cA*m.cB, 100)
	m.a, m.b = gpu.FromHost(d, "A", m.hostA), gpu.FromHost(d, "B", m.hostB)
	m.c = gpu.Alloc[int32](d, "C", m.rA*m.cB)
	m.tileSum = gpu.Alloc[int32](d, "tileSum", m.blocks*32)
	m.tileLock = gpu.Alloc[int32](d, "tileLock", m.blocks*32)
	m.cLock = gpu.Alloc[int32](d, "cLock", m.threads)
	return &Run{Launch: single(launchCfg("matmul", m.blocks, m.threads), m.kernel), Check: m.check}, nil
}

func (m *matMul) kernel(t *gpu.Thread) {
	chunks := ceilDiv(m.cA, m.threads)
	// Every block makes the same number of trips, so that all its threads
	// meet at the same barriers; items past the last row do no work.
	for off := 0; off/chunks < m.rA; off += m.blocks {
		w := t.BlockRank() + off
		m.item(t, w/chunks, w%chunks)
	}
}

// item adds the products of one chunk of row's k-indices into C.
func (m *matMul) item(t *gpu.Thread, row, chunk int) {
	lane, slot := t.Lane(), t.BlockRank()*32+t.Lane()
	for tile := 0; tile*32 < m.cB; tile++ {
		if t.Warp() == 0 {
			m.tileSum.StoreVolatile(t, slot, 0)
		}
		t.SyncThreads()
		col := tile*32 + lane
		if row < m.rA && col < m.cB {
			m.addPartial(t, slot, m.partial(t, row, chunk, col))
		}
		t.SyncThreads()
		if t.Warp() == 0 && row < m.rA && col < m.cB {
			m.addTile(t, row*m.cB+col, slot)
		}
	}
}

// partial sums the 32 products A[row][k]·B[k][col] of the thread's warp's
// slice of the chunk.
func (m *matMul) partial(t *gpu.Thread, row, chunk, col int) int32 {
	var sum int32
	k0 := chunk*m.threads + t.Warp()*32
	for k := k0; k < min(k0+32, m.cA); k++ {
		sum += m.a.Load(t, row*m.cA+k) * m.b.Load(t, k*m.cB+col)
	}
	return sum
}

// addPartial adds v into the block's accumulator for the thread's lane
// under that lane's block-scope lock. The loop tries the lock and, only
// when it got it, runs the critical section: a form that cannot deadlock
// lanes of one warp under independent thread scheduling.
func (m *matMul) addPartial(t *gpu.Thread, slot int, v int32) {
	for {
		if m.tileLock.AtomicCAS(t, slot, 0, 1, scope.Block) != 0 {
			continue
		}
		if m.inject != injTileNoAcquireFence || t.Warp() == 0 {
			t.ThreadFenceBlock()
		}
		m.tileSum.StoreVolatile(t, slot, m.tileSum.LoadVolatile(t, slot)+v)
		if m.inject != injTileNoReleaseFence {
			t.ThreadFenceBlock()
		}
		m.tileLock.AtomicExch(t, slot, 0, scope.Block)
		return
	}
}

// addTile adds the block's accumulator into C[at] under a device-scope
// lock shared with every block that adds into the same row.
func (m *matMul) addTile(t *gpu.Thread, at, slot int) {
	lock, acq, fence := at%m.cLock.Len(), scope.Device, scope.Device
	switch m.inject {
	case injCLockBlockCas:
		acq = scope.Block
	case injCLockBlockFence:
		if t.BlockRank()%2 == 1 {
			fence = scope.Block
		}
	}
	for {
		if m.cLock.AtomicCAS(t, lock, 0, 1, acq) != 0 {
			continue
		}
		t.Fence(fence)
		m.c.StoreVolatile(t, at, m.c.LoadVolatile(t, at)+m.tileSum.LoadVolatile(t, slot))
		t.ThreadFence()
		m.cLock.AtomicExch(t, lock, 0, scope.Device)
		return
	}
}

func (m *matMul) check() error {
	want := make([]int32, m.rA*m.cB)
	for i := range m.rA {
		for k := range m.cA {
			a := m.hostA[i*m.cA+k]
			for j := range m.cB {
				want[i*m.cB+j] += a * m.hostB[k*m.cB+j]
			}
		}
	}
	return sameAll(fmt.Sprintf("C (%dx%d)", m.rA, m.cB), m.c.Host(), want)
}
