package race_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
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

// deep1 to deep3 are a chain of helpers, three frames between the
// kernel and the access: deep1 makes a weak store, a weak load or a
// device-scope atomicAdd of x[0], and each sets its entry of lines to
// the line of its access or call.
//
//go:noinline
func deep1(t *gpu.Thread, x gpu.Buffer[int32], op string, lines *[4]int) {
	switch op {
	case "store":
		lines[0] = callerLine() + 1
		x.Store(t, 0, 1)
	case "load":
		lines[0] = callerLine() + 1
		x.Load(t, 0)
	case "atomicAdd":
		lines[0] = callerLine() + 1
		x.AtomicAdd(t, 0, 1, scope.Device)
	}
}

//go:noinline
func deep2(t *gpu.Thread, x gpu.Buffer[int32], op string, lines *[4]int) {
	lines[1] = callerLine() + 1
	deep1(t, x, op, lines)
}

//go:noinline
func deep3(t *gpu.Thread, x gpu.Buffer[int32], op string, lines *[4]int) {
	lines[2] = callerLine() + 1
	deep2(t, x, op, lines)
}

// TestReportStacksReachFourFrames: a report's stack holds the access's
// first four kernel frames (the helper that made it, two helpers
// between, the kernel) for each kind of access and in both families:
// the key of a call path, walked from the detector's method, reaches
// that far past the runtime's frames.
func TestReportStacksReachFourFrames(t *testing.T) {
	t.Parallel()
	for _, config := range []string{"exact:history", "opt:history"} {
		for _, op := range []string{"load", "atomicAdd"} {
			opt, err := race.Config(config)
			require.NoError(t, err)
			d := newDevice(t)
			x := gpu.Alloc[int32](d, "x", 1)
			det := race.New(opt)
			var lines [2][4]int
			err = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Observer: det}, func(t *gpu.Thread) {
				r := t.ThreadRank()
				lines[r][3] = callerLine() + 5
				o := "store" // thread 0 stores, thread 1 makes op
				if r == 1 {
					o = op
				}
				deep3(t, x, o, &lines[r])
			})
			require.NoError(t, err)
			rs := det.Reports()
			require.NotEmpty(t, rs, "%s %s", config, op)
			for _, s := range []race.Side{rs[0].Current, rs[0].Previous} {
				want := lines[s.Thread.X]
				require.Len(t, s.Stack, 4, "%s %s, %s", config, op, s.Who())
				for i, f := range s.Stack {
					require.Equal(t, want[i], f.Line(), "%s %s, %s, frame %d (%v)", config, op, s.Who(), i, f)
				}
			}
		}
	}
}
