package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// injNoTileSync is the switch name of large/transpose's injection.
const injNoTileSync = "no-tile-sync"

// largeTranspose transposes a matrix of 2^log2 int32s through shared
// memory, the way CUDA's samples make both the global load and the store
// coalesced: each 16×16 block loads its tile row by row into shared
// memory, waits at __syncthreads, and stores the tile's columns as rows
// of the output tile mirrored across the diagonal.
func largeTranspose(log2 int) *Entry {
	w, h := side2D(log2)
	return &Entry{
		Name: "large/transpose",
		Doc:  fmt.Sprintf("transpose of a %dx%d int32 matrix through 16x16 shared-memory tiles", w, h),
		Injections: []Injection{
			{Name: injNoTileSync, Doc: "no __syncthreads between loading the tile into shared memory and reading it transposed",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*transpose).storeTile), Corrupts: true},
		},
		Setup: func(d *gpu.Device, p Params) (*Run, error) { return setupTranspose(d, p, w, h) },
	}
}

type transpose struct {
	w, h    int // of the input; the output is h wide and w high
	in, out gpu.Buffer[int32]
	host    []int32
	inject  string
}

func setupTranspose(d *gpu.Device, p Params, w, h int) (*Run, error) {
	tr := &transpose{w: w, h: h, inject: p.Inject}
	tr.host = randInt32s(newRand(p.Seed), w*h, 1<<30)
	tr.in, tr.out = gpu.FromHost(d, "in", tr.host), gpu.Alloc[int32](d, "out", w*h)
	return &Run{Launch: single(tileCfg("transpose", w, h), tr.kernel), Check: tr.check}, nil
}

func (tr *transpose) kernel(t *gpu.Thread) {
	// The tile's rows are one element longer than the tile, as in CUDA,
	// where the padding keeps a column's reads off one shared-memory bank.
	tile := gpu.Shared[int32](t, "tile", largeTile*(largeTile+1))
	b, th := t.BlockIdx(), t.ThreadIdx()
	x, y := b.X*largeTile+th.X, b.Y*largeTile+th.Y
	tile.Store(t, th.Y*(largeTile+1)+th.X, tr.in.ReadOnly().Load(t, y*tr.w+x))
	tr.storeTile(t, tile)
}

// storeTile writes the block's tile, transposed, to the output: the
// thread at (x, y) of the block stores the tile's element (y, x) at the
// mirrored tile's place.
func (tr *transpose) storeTile(t *gpu.Thread, tile gpu.Buffer[int32]) {
	if tr.inject != injNoTileSync {
		t.SyncThreads()
	}
	b, th := t.BlockIdx(), t.ThreadIdx()
	x, y := b.Y*largeTile+th.X, b.X*largeTile+th.Y // in the output, h wide
	tr.out.Store(t, y*tr.h+x, tile.Load(t, th.X*(largeTile+1)+th.Y))
}

func (tr *transpose) check() error {
	want := make([]int32, len(tr.host))
	for y := range tr.h {
		for x := range tr.w {
			want[x*tr.h+y] = tr.host[y*tr.w+x]
		}
	}
	return sameAll("out", tr.out.Host(), want)
}
