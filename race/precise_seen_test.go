package race_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// TestPreciseSameEpochReadTakesNoLock: a thread's weak read of a word it
// read at the same epoch is settled by the thread alone, with history
// or without (which then finds no site for it). The test holds the
// word's page lock while the kernel reads it the second time; the read
// finishes, counted as a repeat and as no lock, before the lock is let
// go.
func TestPreciseSameEpochReadTakesNoLock(t *testing.T) {
	t.Parallel()
	for _, history := range []bool{false, true} {
		det := race.New(race.Options{History: history})
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		first, held, second := make(chan struct{}), make(chan struct{}), make(chan struct{})
		cfg := gpu.LaunchConfig{Name: "reread", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det}
		done := make(chan error, 1)
		go func() {
			done <- d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
				x.Load(th, 0)
				close(first)
				<-held
				x.Load(th, 0)
				close(second)
			})
		}()
		<-first
		mu := det.Sequence(x.Memory(), 0)
		mu.Lock()
		close(held)
		early := true
		select {
		case <-second:
		case <-time.After(10 * time.Second):
			early = false
		}
		mu.Unlock()
		require.NoError(t, <-done)
		require.True(t, early, "history %v: the second read waited for the page lock", history)
		st := det.Stats()
		assert.Equal(t, uint64(1), st.Repeats, "history %v: the second read is a repeat", history)
		assert.Equal(t, uint64(2), st.Accesses, "history %v", history)
		assert.Equal(t, uint64(2), st.Checks, "history %v", history)
		assert.Equal(t, uint64(1), st.Locks, "history %v: only the first read's check took the page lock", history)
		assert.Empty(t, det.Reports())
	}
}

// TestPreciseReadAfterReleaseIsChecked: once a thread released, its read
// of a word it read before is checked again. T0 reads x and releases a
// flag; T32 acquires it and writes x (ordered after that read), then
// sets a second flag relaxed, which T0 polls: T0's second read of x is
// unordered with the write, and is reported. Without the release between
// the reads, they are one epoch's and the second is a repeat.
func TestPreciseReadAfterReleaseIsChecked(t *testing.T) {
	t.Parallel()
	for _, release := range []bool{true, false} {
		det := race.New(race.Options{})
		d := newDevice(t)
		x, flags := gpu.Alloc[int32](d, "x", 1), gpu.Alloc[int32](d, "flags", 2)
		cfg := gpu.LaunchConfig{Name: "reread-after-release", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Observer: det}
		require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
			switch th.ThreadRank() {
			case 0:
				x.Load(th, 0)
				if !release {
					x.Load(th, 0)
					return
				}
				flags.StoreRelease(th, 0, 1, scope.Block)
				for flags.AtomicLoad(th, 1, scope.Block) == 0 {
				}
				x.Load(th, 0)
			case 32:
				if !release {
					return
				}
				for flags.LoadAcquire(th, 0, scope.Block) == 0 {
				}
				x.Store(th, 0, 1)
				flags.AtomicStore(th, 1, 1, scope.Block)
			}
		}))
		if !release {
			assert.Empty(t, det.Reports())
			assert.Equal(t, uint64(1), det.Stats().Repeats, "the second read at one epoch is a repeat")
			continue
		}
		rs := det.Reports()
		require.Len(t, rs, 1, "the read after the release races with the write")
		assert.Same(t, x.Memory(), rs[0].Mem)
		assert.Equal(t, 0, rs[0].Current.GlobalID, "found by T0's second read")
		assert.Equal(t, gpu.OpLoad, rs[0].Current.Op)
	}
}
