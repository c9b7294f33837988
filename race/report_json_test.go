package race_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// TestReportJSONRoundTrip: a report of a global race and one of a shared
// race encode with text names, module-relative files and (x,y,z)
// coordinates, and decode to the same report.
func TestReportJSONRoundTrip(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	det := race.New(race.Options{History: true})
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "json", Grid: gpu.Dim3{X: 2, Y: 2}, Block: gpu.Dim3{X: 64}, Observer: det},
		func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "tile", 1)
			s.Store(t, 0, 1) // every thread of a block: missing-syncwarp and missing-block-fence
			if t.ThreadRank() == 0 {
				x.AtomicAdd(t, 0, 1, scope.Block) // each block's thread 0: scoped-atomic
			}
		}))
	rs := det.Reports()
	require.NotEmpty(t, rs)
	var sawShared, sawGlobal bool
	for _, r := range rs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(b, &raw))
		require.EqualValues(t, race.ReportSchema, raw["schema"])
		require.Equal(t, r.Kind.String(), raw["kind"])
		cur := raw["current"].(map[string]any)
		require.Equal(t, []any{float64(r.Current.Thread.X), float64(r.Current.Thread.Y), float64(r.Current.Thread.Z)}, cur["thread"])
		site := cur["site"].(map[string]any)
		require.Equal(t, "race/report_json_test.go", site["file"])
		require.Equal(t, site, cur["stack"].([]any)[0], "with history, the stack starts at the site")

		var back race.Report
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		requireSameReport(t, r, back)
		mem := raw["memory"].(map[string]any)
		switch r.Mem.Space {
		case gpu.SharedSpace:
			sawShared = true
			require.Equal(t, "shared", mem["space"])
			require.Equal(t, r.Mem.BlockIdx(), back.Mem.BlockIdx())
			require.Equal(t, r.Element(), back.Element())
		default:
			sawGlobal = true
			require.Equal(t, "global", mem["space"])
			require.NotContains(t, mem, "block")
		}
	}
	require.True(t, sawShared && sawGlobal, "%v", rs)
}

// requireSameReport requires that back, decoded from want's JSON, says
// what want says.
func requireSameReport(t *testing.T, want, back race.Report) {
	t.Helper()
	require.Equal(t, want.Kind, back.Kind)
	require.Equal(t, want.Launch, back.Launch)
	require.Equal(t, want.Index, back.Index)
	require.Equal(t, want.Evidence, back.Evidence)
	require.Equal(t, want.Mem.ID, back.Mem.ID)
	require.NotZero(t, back.Mem.DeviceID, "the memory names its device")
	require.Equal(t, want.Mem.DeviceID, back.Mem.DeviceID)
	require.Equal(t, want.Mem.Name, back.Mem.Name)
	for _, s := range [][2]race.Side{{want.Current, back.Current}, {want.Previous, back.Previous}} {
		w, b := s[0], s[1]
		requireSameSite(t, w.Site, b.Site)
		require.Len(t, b.Stack, len(w.Stack))
		for i := range w.Stack {
			requireSameSite(t, w.Stack[i], b.Stack[i])
		}
		w.Site, b.Site, w.Stack, b.Stack = gpu.Site{}, gpu.Site{}, nil, nil
		require.Equal(t, w, b)
	}
}

// requireSameSite requires that back, decoded from want's JSON, names the
// same line.
func requireSameSite(t *testing.T, want, back gpu.Site) {
	t.Helper()
	require.Equal(t, want.ModuleFile(), back.File())
	require.Equal(t, want.Line(), back.Line())
	require.Equal(t, want.Function(), back.Function())
}

func TestReportJSONRejectsOtherSchemas(t *testing.T) {
	t.Parallel()
	var r race.Report
	require.ErrorContains(t, json.Unmarshal([]byte(`{"schema": 2, "kind": "scoped-atomic"}`), &r), "schema 2")
	require.ErrorContains(t, json.Unmarshal([]byte(`{"schema": 1, "kind": "no-such-kind"}`), &r), "no-such-kind")
}
