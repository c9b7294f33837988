package gpu_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// blockListing returns the stall listing's text for block (0,0,0).
func blockListing(t *testing.T, err error) string {
	var se *gpu.StallError
	require.ErrorAs(t, err, &se)
	msg := se.Error()
	i := strings.Index(msg, "\tblock (0,0,0):")
	require.GreaterOrEqual(t, i, 0, msg)
	return msg[i:]
}

// TestStallListingOfAHugeBlockIsShort: 1,000 threads spinning at two
// lines, alternate ranks at each, list as two places of a few hundred
// bytes, each counting its threads and naming them per warp; threads
// spinning at a thousand places list the first few and count the rest.
func TestStallListingOfAHugeBlockIsShort(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	flags := gpu.Alloc[int32](d, "flag", 1000)
	// Fibers, deterministically: every thread starts and is caught polling
	// before the timeout, so each lists as polling; under goroutines some
	// might not have run yet. The race detector slows each weak load
	// tenfold or more, and a loaded machine more: a second then leaves
	// threads unstarted.
	timeout := time.Second
	if raceEnabled {
		timeout = 15 * time.Second
	}
	cfg := gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1000}, Deterministic: true, Timeout: timeout}
	err := d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		if t.ThreadRank()%2 == 0 {
			for flags.Load(t, 0) == 0 {
			}
		}
		for flags.Load(t, 0) == 0 {
		}
	})
	listing := blockListing(t, err)
	require.Less(t, len(listing), 512, "short:\n%s", listing)
	require.Contains(t, listing, "500 threads [warp 0: 16 lanes; warp 1: 16 lanes;", listing)
	require.Contains(t, listing, "more warps] polling a weak load; spin with LoadVolatile or AtomicLoad (load global \"flag\"[0]) at ", listing)

	err = d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		for flags.Load(t, t.ThreadRank()) == 0 {
		}
	})
	listing = blockListing(t, err)
	require.Less(t, len(listing), 1024, "short:\n%s", listing)
	require.Equal(t, 6, strings.Count(listing, "threads (")+strings.Count(listing, "thread ("), listing)
	require.Contains(t, listing, "and 994 threads at 994 other places", listing)
}
