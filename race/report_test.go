package race_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// callerLine returns the line it is called from.
func callerLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

// bump is a helper kernels call; the race is at its store, and its
// caller's line is the next frame of the stack.
//
//go:noinline
func bump(t *gpu.Thread, x gpu.Buffer[int32], line *int) {
	*line = callerLine() + 1
	x.Store(t, 0, int32(t.ThreadRank()))
}

// TestReportStacks: with history, each side of a report carries its call
// stack, the helper's line first and then the kernel's, printed in the
// text and kept in JSON; without history a side has its site alone.
func TestReportStacks(t *testing.T) {
	t.Parallel()
	for _, history := range []bool{true, false} {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		det := race.New(race.Options{History: history})
		var inner, outer int
		err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Observer: det}, func(t *gpu.Thread) {
			var l int
			at := callerLine() + 1
			bump(t, x, &l) // the kernel's line
			if t.ThreadRank() == 0 {
				inner, outer = l, at
			}
		})
		require.NoError(t, err)
		rs := det.Reports()
		require.Len(t, rs, 1)
		r := rs[0]
		if !history {
			require.Empty(t, r.Current.Stack)
			require.Empty(t, r.Previous.Stack)
			require.NotContains(t, r.String(), "called from")
			continue
		}
		for _, s := range []race.Side{r.Current, r.Previous} {
			require.Len(t, s.Stack, 2, "the helper and the kernel; the runtime's frames are left out")
			require.Equal(t, s.Site, s.Stack[0])
			require.Equal(t, inner, s.Stack[0].Line())
			require.Equal(t, outer, s.Stack[1].Line())
		}
		require.Contains(t, r.String(), "    called from race/report_test.go:")
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var back race.Report
		require.NoError(t, json.Unmarshal(b, &back))
		require.Len(t, back.Previous.Stack, 2)
		require.Equal(t, outer, back.Previous.Stack[1].Line())
		require.Equal(t, "race/report_test.go", back.Previous.Stack[1].File())
	}
}
