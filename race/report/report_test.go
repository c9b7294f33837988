package report_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// TestWhereUnrecorded: a side without a site names it in words, as the
// engines' evidence and a halt's error quote it.
func TestWhereUnrecorded(t *testing.T) {
	require.Equal(t, "an unrecorded site", report.Side{}.Where())
}

// TestSchemaMismatch: a report of another schema is refused, naming both
// versions.
func TestSchemaMismatch(t *testing.T) {
	b, err := json.Marshal(report.Report{Kind: kind.MissingSyncwarp, Current: report.Side{Op: gpu.OpStore}})
	require.NoError(t, err)
	var r report.Report
	require.NoError(t, json.Unmarshal(b, &r))
	require.Equal(t, kind.MissingSyncwarp, r.Kind)
	err = json.Unmarshal([]byte(`{"schema": 2}`), &r)
	require.ErrorContains(t, err, "report schema 2; this package reads schema 1")
}
