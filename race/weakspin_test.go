package race_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// TestWeakSpinStaysARace: a thread polls a flag with weak loads that
// another thread of its block raises with a weak store. The runtime
// catches the spin and yields, so the writer runs and the launch ends
// (under fibers it once never did); the detector still reports the
// poll's race with the store, under every executor.
func TestWeakSpinStaysARace(t *testing.T) {
	for _, c := range []struct {
		name string
		ex   gpu.Executor
		det  bool
	}{{"fibers", gpu.Fibers, false}, {"goroutines", gpu.Goroutines, false}, {"deterministic", gpu.Fibers, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, err := gpu.NewDevice(gpu.DeviceConfig{})
			require.NoError(t, err)
			flag := gpu.Alloc[int32](d, "flag", 1)
			det := race.New(race.Options{})
			cfg := gpu.LaunchConfig{Name: "poll", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Executor: c.ex, Deterministic: c.det, Observer: det}
			res := make(chan error, 1)
			go func() {
				res <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					if t.ThreadRank() == 1 {
						flag.Store(t, 0, 1)
						return
					}
					for flag.Load(t, 0) == 0 {
					}
				})
			}()
			select {
			case err = <-res:
			case <-time.After(30 * time.Second):
				t.Fatal("the weak poll never let its writer run")
			}
			require.NoError(t, err)
			rs := det.Reports()
			require.NotEmpty(t, rs, "the weak poll's race with the store was not reported")
			for _, r := range rs {
				require.Equal(t, flag.Memory(), r.Mem, "%v", r)
			}
		})
	}
}
