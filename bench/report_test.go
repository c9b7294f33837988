package bench_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/race"
)

func TestWriteJSON(t *testing.T) {
	c := cell("k", "opt", 2*time.Millisecond, 2)
	c.Times = []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}
	c.Launches = 2 // counters are reported per launch, rounded
	c.Stats = race.Stats{Checks: 10, Coalesced: 5, Locks: 10, Contended: 2, Waits: 4, WaitNs: 15, Widened: 6, Joins: 40, Reports: 1, PeakMetadata: 192}
	c.Allocated = 4097
	bad := cell("k", "plain", 0, 0)
	bad.Err = errors.New("boom")
	var b bytes.Buffer
	require.NoError(t, bench.WriteJSON(&b, []bench.Cell{c, bad}))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 2)
	var got bench.CellJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &got))
	require.Equal(t, bench.CellJSON{Kernel: "k", Config: "opt", MedianNs: 2e6, RatioVsOff: 2, RunsNs: []int64{1e6, 2e6, 3e6},
		Spread: 1, Launches: 2, Checks: 5, Coalesced: 3, Locks: 5, Contended: 1, BackoffWaits: 2, BackoffNs: 8, Widened: 3, Joins: 20, Reports: 1, MetadataBytes: 192,
		AllocBytes: 2049}, got)
	require.Contains(t, lines[1], `"error":"boom"`)
}

func TestWriteTable(t *testing.T) {
	cells := []bench.Cell{
		cell("contention/x", "off", 10, 1), cell("contention/x", "plain", 90, 9), cell("contention/x", "opt", 30, 3),
	}
	var b bytes.Buffer
	require.NoError(t, bench.WriteTable(&b, cells))
	out := b.String()
	require.Contains(t, out, "9.00x")
	require.Contains(t, out, "opt: overhead vs off over 1 kernels: geomean 3.00x, worst 3.00x (contention/x)")
	require.Contains(t, out, "opt over plain on 1 kernels contention/*: geomean 3.00x")
	require.NotContains(t, out, "over central", "no central cells, no central line")
}

// TestSpread: the interquartile range of the runs over their median, by
// nearest rank; 0 with one run.
func TestSpread(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	c := bench.Cell{Times: ms(9, 1, 10, 12, 100, 10, 11, 8, 10), Median: 10 * time.Millisecond}
	require.InDelta(t, 0.2, c.Spread(), 1e-9, "quartiles 9 and 11 of nine runs, an outlier each side")
	c = bench.Cell{Times: ms(4, 6, 5, 5, 5), Median: 5 * time.Millisecond}
	require.InDelta(t, 0, c.Spread(), 1e-9, "quartiles 5 and 5")
	require.Zero(t, bench.Cell{Times: ms(3), Median: 3 * time.Millisecond}.Spread())
	var b bytes.Buffer
	require.NoError(t, bench.WriteTable(&b, []bench.Cell{{Kernel: "k", Config: "off", Times: ms(9, 1, 10, 12, 100, 10, 11, 8, 10), Median: 10 * time.Millisecond, RatioVsOff: 1}}))
	require.Contains(t, b.String(), "±10%")
}
