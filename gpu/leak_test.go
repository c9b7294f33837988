package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestNoLeakAfterFailures ends launches every way they can end, on every
// executor, and checks that each left no goroutine running when Launch
// returned, but the idle fibers its device keeps for the next. It is not parallel, so no other test's goroutines are counted.
func TestNoLeakAfterFailures(t *testing.T) {
	baseline := goleak.IgnoreCurrent() // taken before any launch
	d := newDevice(t)
	flag := gpu.Alloc[int32](d, "flag", 1)
	endings := map[string]gpu.Kernel{
		"normal":       func(t *gpu.Thread) { t.SyncThreads() },
		"panic":        func(t *gpu.Thread) { t.SyncThreads(); panicIf(t.ThreadRank() == 5) },
		"out of range": func(t *gpu.Thread) { flag.Load(t, t.ThreadRank()) },
		"spin until deadline": func(t *gpu.Thread) {
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
		},
		"barrier until deadline": func(t *gpu.Thread) {
			if t.ThreadRank() == 0 {
				for flag.LoadVolatile(t, 0) == 0 {
				}
			}
			t.SyncThreads()
		},
	}
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for name, k := range endings {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 20}, Block: gpu.Dim3{X: 64}, Executor: ex}
			err := d.Launch(ctx, cfg, k)
			cancel()
			if name != "normal" {
				require.Error(t, err, "%v %s", ex, name)
			}
			goleak.VerifyNone(t, ignoreIdle(baseline)...)
		}
	}
}

// ignoreIdle makes goleak ignore the fibers and goroutines a device keeps
// idle between launches, for tests that check what one launch left
// behind; Close ends them (TestCloseEndsFibers). It returns opts with the
// two options that do so.
func ignoreIdle(opts ...goleak.Option) []goleak.Option {
	return append(opts,
		goleak.IgnoreAnyFunction("github.com/warpguard/warpguard/gpu.(*fiber).rest"),
		goleak.IgnoreAnyFunction("github.com/warpguard/warpguard/gpu.(*worker).rest"))
}

func panicIf(b bool) {
	if b {
		panic("boom")
	}
}
