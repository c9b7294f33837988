package gen

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/warpguard/warpguard/gpu"
)

// The layout of the global buffer "g": data words, then flags, then locks.
const (
	maxData     = 4
	flagBase    = 4
	maxFlags    = 2
	lockBase    = 6
	maxLocks    = 2
	globalWords = 8
	sharedWords = 4
	maxBlocks   = 3
	maxThreads  = 64
)

// A Kernel is a generated kernel: a launch shape and the statements every
// thread runs in order.
type Kernel struct {
	Seed    uint64 // the seed Generate was given
	Blocks  int    // 1 to 3
	Threads int    // per block, 1 to 64
	Data    int    // data words x0.. in global memory, 1 to 4
	Shared  int    // words s0.. of shared memory per block, 1 to 4
	Body    []Stmt // the statements, in program order
}

// Launch runs k on d with cfg, whose Grid and Block it sets; the caller
// chooses executor, schedule and observer. It allocates the global buffer
// "g" on d.
func (k *Kernel) Launch(ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig) error {
	g := gpu.Alloc[uint32](d, "g", globalWords)
	cfg.Grid, cfg.Block = gpu.Dim3{X: k.Blocks}, gpu.Dim3{X: k.Threads}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("gen-%d", k.Seed)
	}
	return d.Launch(ctx, cfg, func(t *gpu.Thread) {
		m := &mem{g: g, s: gpu.Shared[uint32](t, "s", sharedWords), k: k}
		for _, s := range k.Body {
			s.run(t, m)
		}
	})
}

// String prints k as CUDA-like pseudo-code, one statement a line.
func (k *Kernel) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel gen-%d <<<%d, %d>>>: global x[%d] f[%d] l[%d], shared s[%d]\n",
		k.Seed, k.Blocks, k.Threads, k.Data, maxFlags, maxLocks, k.Shared)
	for _, s := range k.Body {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	return b.String()
}

// WordName names element i of memory m as the pseudo-code does: x[i],
// f[i] or l[i] for the global buffer, s[i] of block b for shared memory.
func WordName(m *gpu.Memory, i int) string {
	switch {
	case m.Space == gpu.SharedSpace:
		return fmt.Sprintf("s[%d] of block %d", i, m.Block)
	case i >= lockBase:
		return fmt.Sprintf("l[%d]", i-lockBase)
	case i >= flagBase:
		return fmt.Sprintf("f[%d]", i-flagBase)
	}
	return fmt.Sprintf("x[%d]", i)
}

// Timeout is a safe bound on one generated launch: every generated kernel
// terminates, so a launch still running after it has hit a bug.
const Timeout = 10 * time.Second
