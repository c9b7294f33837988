package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// warpReads launches one 32-thread block whose lanes each load x[0] and
// add to x[1] once with a block-scope atomic: a warp whose loads and
// atomics to one word coalesce.
func warpReads(t *testing.T, det *race.Detector) {
	t.Helper()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 2)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "warp", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Observer: det},
		func(t *gpu.Thread) {
			x.Load(t, 0)
			x.AtomicAdd(t, 1, 1, scope.Block)
		})
	require.NoError(t, err)
}

// TestCoalesceCounts checks that a warp's loads of one word and its
// block-scope atomics to another are checked once each and coalesced for
// the other lanes, and that NoCoalesce checks every one.
func TestCoalesceCounts(t *testing.T) {
	t.Parallel()
	det := race.New(race.Options{Family: race.IGUARD})
	warpReads(t, det)
	st := det.Stats()
	require.Equal(t, uint64(64), st.Accesses)
	// The first two lanes' loads and atomics are checked: the first
	// access to each word changes its flags (valid; written), so the
	// second does not repeat it. Every later access repeats a
	// warp-mate's check.
	require.Equal(t, uint64(4), st.Checks)
	require.Equal(t, uint64(60), st.Coalesced)

	det = race.New(race.Options{Family: race.IGUARD, NoCoalesce: true})
	warpReads(t, det)
	require.Equal(t, uint64(64), det.Stats().Checks)
	require.Zero(t, det.Stats().Coalesced)
}

// TestCoalesceKeepsRaces checks the cases coalescing must not hide: a
// thread-scope atomic among lanes (scoped-atomic), a store after a
// warp's coalesced loads by a lane with no __syncwarp (missing-syncwarp),
// loads of a word a lane of the same warp wrote, and a load of another
// block's unfenced write after a warp-mate's check. The two warp cases
// give each block (one warp) a word of its own: on many cores the other
// block's accesses to a shared word would interleave with the warp's and
// hide its race behind a cross-block one (the detector checks against the
// last writer only).
func TestCoalesceKeepsRaces(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		k    func(x gpu.Buffer[uint32]) gpu.Kernel
		want race.Kind
	}{
		{"thread-scope-atomic", func(x gpu.Buffer[uint32]) gpu.Kernel {
			return func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Thread) }
		}, race.ScopedAtomic},
		{"store-after-loads", func(x gpu.Buffer[uint32]) gpu.Kernel {
			return func(t *gpu.Thread) {
				x.Load(t, t.BlockRank())
				if t.Lane() == 31 {
					x.Store(t, t.BlockRank(), 1)
				}
			}
		}, race.MissingSyncwarp},
		{"load-of-warp-mate-write", func(x gpu.Buffer[uint32]) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.Lane() == 0 {
					x.Store(t, t.BlockRank(), 1)
				}
				x.Load(t, t.BlockRank())
			}
		}, race.MissingSyncwarp},
		{"load-of-other-block-write", func(x gpu.Buffer[uint32]) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.BlockRank() == 0 {
					if t.ThreadRank() == 0 {
						x.Store(t, 0, 1)
						x.AtomicExch(t, 1, 1, scope.Device) // no fence before: the race
					}
					return
				}
				for x.AtomicLoad(t, 1, scope.Device) == 0 {
				}
				x.Load(t, 0)
			}
		}, race.MissingDeviceFence},
	}
	for _, c := range cases {
		for _, noCoalesce := range []bool{false, true} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				d := newDevice(t)
				x := gpu.Alloc[uint32](d, "x", 2)
				det := race.New(race.Options{Family: race.IGUARD, NoCoalesce: noCoalesce})
				err := d.Launch(context.Background(), gpu.LaunchConfig{Name: c.name, Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Observer: det, Cooperative: true}, c.k(x))
				require.NoError(t, err)
				var kinds []race.Kind
				for _, r := range det.Reports() {
					kinds = append(kinds, r.Kind)
				}
				require.Contains(t, kinds, c.want)
			})
		}
	}
}
