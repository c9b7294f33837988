package race_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// elementSequencer is a device observer that sequences every element's
// accesses under a mutex of its own per element, and observes nothing.
type elementSequencer struct {
	nopObserver
	mu []sync.Mutex
}

func (*elementSequencer) Sequences() bool { return true }

func (s *elementSequencer) Sequence(_ *gpu.Memory, i int) *sync.Mutex { return &s.mu[i] }

// hidden observes with the detector it wraps but does not sequence: its
// static type shows only gpu.Observer's methods.
type hidden struct{ gpu.Observer }

// TestDetectorBesideAnotherSequencer: when another observer sequences a
// launch and the exact detector does not (it observes through a wrapper
// that hides its Sequence), an access the runtime reports as sequenced is
// not under the detector's page lock, and the detector takes it itself.
// The device's sequencer holds one mutex per element, so threads writing
// neighbouring elements of one shadow page run side by side: a detector
// that took the runtime's mutex for its own would update the page with no
// lock held, which `go test -race` reports. The verdicts hold as well: the
// threads' own elements race with nothing, one shared word races.
func TestDetectorBesideAnotherSequencer(t *testing.T) {
	const n = 128
	for _, e := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(e.String(), func(t *testing.T) {
			seq := &elementSequencer{mu: make([]sync.Mutex, n)}
			d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: seq})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, d.Close()) })
			own, shared := gpu.Alloc[uint32](d, "own", n), gpu.Alloc[uint32](d, "shared", 1)
			for _, racy := range []bool{false, true} {
				det := race.New(race.Options{})
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: n / 4}, Executor: e, Observer: hidden{det}}
				require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					i := t.GlobalID()
					for k := range 8 {
						own.Store(t, i, uint32(k))
						own.AtomicAdd(t, i, 1, scope.Device)
					}
					if racy && i%(n/4) == 0 {
						shared.Store(t, 0, uint32(i))
					}
				}))
				if racy {
					require.NotEmpty(t, det.Reports(), "two blocks' stores to one word")
					for _, r := range det.Reports() {
						require.Equal(t, "shared", r.Mem.Name, "only the shared word races: %v", r)
					}
				} else {
					require.Empty(t, det.Reports(), "each thread writes its own element")
				}
			}
		})
	}
}
