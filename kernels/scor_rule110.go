package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBorderBlockFence     = "border-block-fence"
	injRightPollBlockAtomic = "right-poll-block-atomic"
)

// ScorRule110 is ScoR's Rule-110 cellular automaton: each launch advances a row
// of cells one step, with zero boundaries.
//
// Global thread g owns cells g, g+T, g+2T, ... (T threads in all). A step
// copies the owned cells into a snapshot, publishes a per-thread completion
// flag set to the step number, waits for the left neighbour thread's flag,
// shifts the left cell in, waits for the right neighbour's flag and applies
// the rule. The flags of threads at a block border are read by another
// block, so their owners publish with a device fence and a device-scope
// exchange and are polled with device-scope atomics; every other flag
// stays in its block and uses block scope. Blocks wait on each other, so
// the grid must be co-resident (the launch is cooperative).
func ScorRule110() *Entry {
	return &Entry{
		Name:        "scor/rule-110",
		Doc:         "Rule 110 steps; per-thread completion flags, device scope at block borders and block scope inside",
		Cooperative: true,
		Injections: []Injection{
			{Name: injBorderBlockFence, Doc: "threads at a block border publish their cells with a block fence",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*rule110).publish),
				Precise: &Verdict{Why: whyVolatile}},
			{Name: injRightPollBlockAtomic, Doc: "a block's last thread polls the next block's first thread's flag with a block-scope atomic",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*rule110).waitRight)},
		},
		Setup: setupRule110,
	}
}

type rule110 struct {
	n, steps, blocks, threads int
	arr, snap, comp           gpu.Buffer[int32]
	inject                    string
	host                      []int32
}

func setupRule110(d *gpu.Device, p Params) (*Run, error) {
	r := &rule110{n: 3000, steps: 4, blocks: 4, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		r.n, r.steps, r.blocks, r.threads = 250_000, 1, 15, 1024
	}
	r.host = randInt32s(newRand(p.Seed), r.n, 2)
	r.arr = gpu.FromHost(d, "arr", r.host)
	r.snap = gpu.Alloc[int32](d, "copy", r.n)
	r.comp = gpu.Alloc[int32](d, "comp", r.blocks*r.threads)
	return &Run{Launch: r.launch, Check: r.check}, nil
}

func (r *rule110) launch(ctx context.Context, launch LaunchFunc) error {
	for step := 1; step <= r.steps; step++ {
		k := func(t *gpu.Thread) { r.step(t, int32(step)) }
		if err := launch(ctx, coopCfg(fmt.Sprintf("rule110-step%d", step), r.blocks, r.threads), k); err != nil {
			return err
		}
	}
	return nil
}

func (r *rule110) step(t *gpu.Thread, step int32) {
	g, total := t.GlobalID(), r.blocks*r.threads
	r.publish(t, step)
	r.wait(t, (g+total-1)%total, step)
	for i := g; i < r.n; i += total {
		left := int32(0)
		if i > 0 {
			left = r.snap.LoadVolatile(t, i-1)
		}
		r.arr.Store(t, i, left)
	}
	r.waitRight(t, (g+1)%total, step)
	for i := g; i < r.n; i += total {
		right := int32(0)
		if i+1 < r.n {
			right = r.snap.LoadVolatile(t, i+1)
		}
		r.arr.Store(t, i, next110(r.arr.Load(t, i), r.snap.LoadVolatile(t, i), right))
	}
}

// border reports whether thread g's flag is read by another block.
func (r *rule110) border(g int) bool {
	b := g % r.threads
	return b == 0 || b == r.threads-1
}

// flagScope is the scope a flag must be accessed with: device for a
// border thread's flag, block for the others.
func (r *rule110) flagScope(g int) scope.Scope {
	if r.border(g) {
		return scope.Device
	}
	return scope.Block
}

// publish snapshots the thread's cells and raises its flag; the fence
// orders the snapshot before the flag for every thread that may read it.
func (r *rule110) publish(t *gpu.Thread, step int32) {
	g, total := t.GlobalID(), r.blocks*r.threads
	for i := g; i < r.n; i += total {
		r.snap.StoreVolatile(t, i, r.arr.Load(t, i))
	}
	s := r.flagScope(g)
	if r.inject == injBorderBlockFence {
		t.Fence(scope.Block)
	} else {
		t.Fence(s)
	}
	r.comp.AtomicExch(t, g, step, s)
}

// wait spins until thread g has published this step, then fences: at
// block scope for a neighbour in the block, else at device scope.
func (r *rule110) wait(t *gpu.Thread, g int, step int32) {
	for r.comp.AtomicAdd(t, g, 0, r.flagScope(g)) != step {
	}
	t.Fence(r.acquireScope(t, g))
}

// acquireScope is the scope of the fence a thread executes after seeing
// thread g's flag: what covers the two threads.
func (r *rule110) acquireScope(t *gpu.Thread, g int) scope.Scope {
	if g/r.threads == t.BlockRank() {
		return scope.Block
	}
	return scope.Device
}

// waitRight waits for the right neighbour g.
func (r *rule110) waitRight(t *gpu.Thread, g int, step int32) {
	s, f := r.flagScope(g), r.acquireScope(t, g)
	if r.inject == injRightPollBlockAtomic && t.ThreadRank() == r.threads-1 {
		s, f = scope.Block, scope.Block
	}
	for r.comp.AtomicAdd(t, g, 0, s) != step {
	}
	t.Fence(f)
}

// next110 is Rule 110: the new cell from the left, centre and right cells.
func next110(l, c, r int32) int32 {
	return (110 >> (l<<2 | c<<1 | r)) & 1
}

func (r *rule110) check() error {
	cells := append([]int32(nil), r.host...)
	prev := make([]int32, len(cells))
	for range r.steps {
		copy(prev, cells)
		for i := range cells {
			var l, rt int32
			if i > 0 {
				l = prev[i-1]
			}
			if i+1 < len(prev) {
				rt = prev[i+1]
			}
			cells[i] = next110(l, prev[i], rt)
		}
	}
	return sameAll(fmt.Sprintf("cells after %d steps", r.steps), r.arr.Host(), cells)
}
