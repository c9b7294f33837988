package shared

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"

	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// TestSinkBoundsAndDedups: a sink keeps each kind and pair of sites
// once, counting the repeats, whether kept again or asked about, counts
// distinct races past its bound, and a race taken stays known until
// Reset.
func TestSinkBoundsAndDedups(t *testing.T) {
	var s Sink
	s.Init(1, nil)
	r := report.Report{Kind: kind.MissingBlockFence, Index: 1}
	s.Keep(r, nil)
	s.Keep(r, nil)
	s.Keep(report.Report{Kind: kind.ScopedAtomic}, nil)
	kept, dropped, repeated := s.Counts()
	require.Equal(t, 1, kept)
	require.Equal(t, 1, dropped)
	require.Equal(t, 1, repeated)
	require.True(t, s.Known(kind.MissingBlockFence, r.Current.Site, r.Previous.Site))
	require.False(t, s.Known(kind.MissingSyncwarp, r.Current.Site, r.Previous.Site))
	_, _, repeated = s.Counts()
	require.Equal(t, 2, repeated, "a race the engine found known is a repeat too")
	require.Len(t, s.Take(func(report.Report) bool { return true }), 1)
	require.Empty(t, s.Reports())
	require.True(t, s.Known(kind.MissingBlockFence, r.Current.Site, r.Previous.Site), "taken, still known")
	s.Reset()
	require.False(t, s.Known(kind.MissingBlockFence, r.Current.Site, r.Previous.Site))
	require.False(t, s.Halted())
}

// TestSinkHaltsOffThread: a race kept off its thread (the central
// checker) halts once, by the next Raise; a sink without a halt never
// halts.
func TestSinkHaltsOffThread(t *testing.T) {
	var s Sink
	made := 0
	s.Init(10, func(report.Report) error { made++; return nil })
	s.Keep(report.Report{Kind: kind.MissingSyncwarp}, nil)
	s.Keep(report.Report{Kind: kind.ScopedAtomic}, nil)
	require.True(t, s.Halted())
	require.Equal(t, 1, made, "only the first race halts")
	require.NotNil(t, s.pending.Load())

	var quiet Sink
	quiet.Init(10, nil)
	quiet.Keep(report.Report{Kind: kind.MissingSyncwarp}, nil)
	require.False(t, quiet.Halted())
}

// TestSinkHaltKeepsOneRace: with a halt set, races found at once on
// several threads keep one report, the one that halts: the halt records
// nothing more, however the finds interleave.
func TestSinkHaltKeepsOneRace(t *testing.T) {
	t.Parallel()
	kinds := []kind.Kind{kind.ScopedAtomic, kind.MissingBlockFence, kind.MissingDeviceFence, kind.MissingSyncwarp}
	for range 500 {
		var s Sink
		s.Init(100, func(r report.Report) error { return nil })
		var start, done sync.WaitGroup
		start.Add(1)
		for _, k := range kinds {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				s.Keep(report.Report{Kind: k}, nil)
			}()
		}
		start.Done()
		done.Wait()
		kept, dropped, _ := s.Counts()
		require.Equal(t, 1, kept, "one report kept")
		require.Zero(t, dropped, "and none counted past it")
	}
}

// TestReadOnlyWrittenOnceInEitherOrder: a read-only-written race found
// from both sides, the write's and the view's load's, with the two lines
// in either order, is one report; a race of another kind keeps its order.
func TestReadOnlyWrittenOnceInEitherOrder(t *testing.T) {
	var w, r gpu.Site
	require.NoError(t, json.Unmarshal([]byte(`{"file":"k/a.go","line":10}`), &w))
	require.NoError(t, json.Unmarshal([]byte(`{"file":"k/a.go","line":20}`), &r))
	var s Sink
	s.Init(10, nil)
	s.Keep(report.Report{Kind: kind.ReadOnlyWritten, Current: report.Side{Site: w}, Previous: report.Side{Site: r}}, nil)
	require.True(t, s.Known(kind.ReadOnlyWritten, r, w), "the other order is known")
	s.Keep(report.Report{Kind: kind.ReadOnlyWritten, Current: report.Side{Site: r}, Previous: report.Side{Site: w}}, nil)
	kept, _, repeated := s.Counts()
	require.Equal(t, 1, kept)
	require.Equal(t, 2, repeated)
	require.False(t, s.Known(kind.MissingBlockFence, r, w))
	s.Keep(report.Report{Kind: kind.MissingBlockFence, Current: report.Side{Site: w}, Previous: report.Side{Site: r}}, nil)
	require.False(t, s.Known(kind.MissingBlockFence, r, w), "other kinds keep their order")
}
