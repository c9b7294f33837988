package device_test

import (
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/kernels/warp"
)

// BenchmarkCombine measures what the primitives' shape rests on: 2^20
// elements, 32 a thread, each thread folding its own in a Go local, then
// combining the folds in one of three ways. "launch" stores each thread's
// fold for the next launch, as the primitives do; "warp" first reduces
// each warp with shuffles and has lane 0 store; "warp+block" also reduces
// the warps' values through shared memory, CUB's BlockReduce, and has
// rank 0 store. Run it beside the primitives:
//
//	GOMAXPROCS=2 go test ./kernels/device -run '^$' -bench Combine -benchtime 5x -count 6
func BenchmarkCombine(b *testing.B) {
	host := randInt32s(benchN, 1, 1000)
	const per = 32
	for _, mode := range []string{"launch", "warp", "warp+block"} {
		b.Run(mode, func(b *testing.B) {
			d := benchDevice(b)
			in, out := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "out", benchN/per)
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: benchN / per / 256}, Block: gpu.Dim3{X: 256}}
			k := combineKernel(mode, per, in, out)
			loop(b, func() error { return d.Launch(ctx, cfg, k) })
		})
	}
}

// combineKernel returns the kernel of one of BenchmarkCombine's modes.
func combineKernel(mode string, per int, in, out gpu.Buffer[int32]) gpu.Kernel {
	return func(t *gpu.Thread) {
		first := t.GlobalID() * per
		var s int32
		for i := first; i < first+per; i++ {
			s += in.Load(t, i)
		}
		switch mode {
		case "launch":
			out.Store(t, t.GlobalID(), s)
		case "warp":
			if s = warp.Reduce(t, s, gpu.Add[int32]); t.Lane() == 0 {
				out.Store(t, t.GlobalWarp(), s)
			}
		case "warp+block":
			if s = block.Reduce(t, block.Temp[int32](t, "warps"), s, gpu.Add[int32]); t.ThreadRank() == 0 {
				out.Store(t, t.BlockRank(), s)
			}
		}
	}
}
