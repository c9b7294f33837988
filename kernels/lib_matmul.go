package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injNoSyncAfterLoad = "no-sync-after-load"
	injNoSyncAfterUse  = "no-sync-after-use"
)

// matTile is the side of lib/matmul's square shared-memory tiles and of
// its blocks, one thread per element of a tile.
const matTile = 16

// LibMatMul computes C = A·B for square int32 matrices the way CUDA's
// programming guide teaches shared memory: each matTile×matTile block
// computes one tile of C, stepping along the shared dimension one tile at
// a time. At each step every thread loads one element of A's tile and one
// of B's into shared memory, the block meets at __syncthreads, every
// thread sums its row of A's tile times its column of B's, and the block
// meets again before the next step's loads overwrite the tiles.
//
// A thread reads A's tile elements its own tile row wrote (16 threads, one
// half-warp) and B's elements threads of other rows, other warps, wrote;
// so a missing barrier races within a warp and across warps.
func LibMatMul() *Entry {
	return &Entry{
		Name: "lib/matmul",
		Doc:  "C = A·B through 16x16 shared-memory tiles, __syncthreads after loading a tile and after using it",
		Injections: []Injection{
			{Name: injNoSyncAfterLoad, Doc: "no __syncthreads between loading the tiles and multiplying them",
				Expect: []kind.Kind{kind.MissingSyncwarp, kind.MissingBlockFence}, Where: where((*tiledMatMul).loadTiles), Corrupts: true},
			{Name: injNoSyncAfterUse, Doc: "no __syncthreads between multiplying the tiles and the next step's loads overwriting them",
				Expect: []kind.Kind{kind.MissingSyncwarp, kind.MissingBlockFence}, Where: where((*tiledMatMul).multiplyTiles), Corrupts: true},
		},
		Setup: setupTiledMatMul,
	}
}

type tiledMatMul struct {
	n            int // the matrices are n×n, n a multiple of matTile
	a, b, c      gpu.Buffer[int32]
	hostA, hostB []int32
	inject       string
}

func setupTiledMatMul(d *gpu.Device, p Params) (*Run, error) {
	m := newTiledMatMul(d, p)
	return &Run{Launch: single(m.config(), m.kernel), Check: m.check}, nil
}

// config is the launch: a matTile×matTile block per tile of C.
func (m *tiledMatMul) config() gpu.LaunchConfig {
	tiles := m.n / matTile
	return gpu.LaunchConfig{Name: "matmul", Grid: gpu.Dim3{X: tiles, Y: tiles}, Block: gpu.Dim3{X: matTile, Y: matTile}}
}

// newTiledMatMul draws the matrices of configuration p and puts them and
// C on d.
func newTiledMatMul(d *gpu.Device, p Params) *tiledMatMul {
	if p.Size == Paper {
		return newTiledMatMulN(d, 128, p)
	}
	return newTiledMatMulN(d, 64, p)
}

// newTiledMatMulN is newTiledMatMul for n×n matrices, n a multiple of
// matTile.
func newTiledMatMulN(d *gpu.Device, n int, p Params) *tiledMatMul {
	m := &tiledMatMul{n: n, inject: p.Inject}
	r := newRand(p.Seed)
	m.hostA, m.hostB = randInt32s(r, m.n*m.n, 100), randInt32s(r, m.n*m.n, 100)
	m.a, m.b = gpu.FromHost(d, "A", m.hostA), gpu.FromHost(d, "B", m.hostB)
	m.c = gpu.Alloc[int32](d, "C", m.n*m.n)
	return m
}

func (m *tiledMatMul) kernel(t *gpu.Thread) {
	as := gpu.Shared[int32](t, "tileA", matTile*matTile)
	bs := gpu.Shared[int32](t, "tileB", matTile*matTile)
	b, th := t.BlockIdx(), t.ThreadIdx()
	row, col := b.Y*matTile+th.Y, b.X*matTile+th.X
	var sum int32
	for k0 := 0; k0 < m.n; k0 += matTile {
		m.loadTiles(t, as, bs, row, col, k0)
		sum += m.multiplyTiles(t, as, bs)
	}
	m.c.Store(t, row*m.n+col, sum)
}

// loadTiles copies the thread's element of this step's tiles of A and B
// into shared memory, then waits for the block's other threads to copy
// theirs.
func (m *tiledMatMul) loadTiles(t *gpu.Thread, as, bs gpu.Buffer[int32], row, col, k0 int) {
	th := t.ThreadIdx()
	as.Store(t, th.Y*matTile+th.X, m.a.ReadOnly().Load(t, row*m.n+k0+th.X))
	bs.Store(t, th.Y*matTile+th.X, m.b.ReadOnly().Load(t, (k0+th.Y)*m.n+col))
	if m.inject != injNoSyncAfterLoad {
		t.SyncThreads()
	}
}

// multiplyTiles returns the thread's row of A's tile times its column of
// B's, then waits until every thread of the block has read the tiles, so
// that the next step may overwrite them.
func (m *tiledMatMul) multiplyTiles(t *gpu.Thread, as, bs gpu.Buffer[int32]) int32 {
	th := t.ThreadIdx()
	var sum int32
	for k := range matTile {
		sum += as.Load(t, th.Y*matTile+k) * bs.Load(t, k*matTile+th.X)
	}
	if m.inject != injNoSyncAfterUse {
		t.SyncThreads()
	}
	return sum
}

func (m *tiledMatMul) check() error {
	n := m.n
	want := make([]int32, n*n)
	for i := range n {
		for k := range n {
			for j := range n {
				want[i*n+j] += m.hostA[i*n+k] * m.hostB[k*n+j]
			}
		}
	}
	return sameAll("C", m.c.Host(), want)
}
