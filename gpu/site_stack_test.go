package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// stackObserver keeps the call stack of thread 0's store.
type stackObserver struct {
	n     int
	stack []gpu.Site
}

func (*stackObserver) LaunchStart(*gpu.Grid)                     {}
func (*stackObserver) LaunchEnd(*gpu.Grid, error)                {}
func (*stackObserver) BlockStart(*gpu.Grid, int)                 {}
func (*stackObserver) BlockEnd(*gpu.Grid, int)                   {}
func (*stackObserver) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (*stackObserver) Sync(*gpu.Thread, gpu.Sync)                {}

func (o *stackObserver) Access(t *gpu.Thread, a *gpu.Access) {
	if a.Op == gpu.OpStore && t.GlobalID() == 0 {
		o.stack = t.CallerStack(o.n)
	}
}

// storeThrough stores through one more frame, so the stack has three kernel
// frames: its store, its caller's call, and the kernel's.
//
//go:noinline
func storeThrough(t *gpu.Thread, b gpu.Buffer[int32], lines *[3]int) {
	lines[0] = line() + 1
	b.Store(t, 0, 1)
}

//go:noinline
func callStore(t *gpu.Thread, b gpu.Buffer[int32], lines *[3]int) {
	lines[1] = line() + 1
	storeThrough(t, b, lines)
}

func TestCallerStack(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 8} {
		d := newDevice(t)
		b := gpu.Alloc[int32](d, "b", 1)
		obs := &stackObserver{n: n}
		var lines [3]int
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			lines[2] = line() + 1
			callStore(t, b, &lines)
		}))
		want := min(n, 3)
		require.Len(t, obs.stack, want, "kernel frames only, at most n")
		for i := range want {
			require.Equal(t, lines[i], obs.stack[i].Line(), "frame %d", i)
		}
		if n == 8 {
			require.Contains(t, obs.stack[2].Function(), "TestCallerStack.func1", "the stack ends at the kernel")
		}
	}
}
