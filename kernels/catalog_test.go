package kernels_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
)

// TestCatalogWellFormed checks the catalog's invariants the suite relies
// on: unique names, documented entries and injections, unique injection
// names within a kernel, expected kinds and a site for every injection.
func TestCatalogWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, k := range kernels.All() {
		assert.False(t, names[k.Name], "duplicate kernel %s", k.Name)
		names[k.Name] = true
		assert.NotEmpty(t, k.Doc, k.Name)
		assert.NotNil(t, k.Setup, k.Name)
		inj := map[string]bool{}
		for _, in := range k.Injections {
			ok := !inj[in.Name] && in.Name != "" && in.Doc != "" && len(in.Expect) > 0 && strings.HasPrefix(in.Where, "kernels.")
			assert.True(t, ok, "%s: bad injection %+v", k.Name, in)
			inj[in.Name] = true
		}
	}
}

// TestScoRCoversItsRaces checks that the ScoR applications have one
// injection per race ScoR injects (26, as the ScoRD paper lists them) plus
// the independent-thread-scheduling races of the reduction's warp tail
// (5) and the tree search (1).
func TestScoRCoversItsRaces(t *testing.T) {
	want := map[string]int{
		"scor/matrix-mult": 4, "scor/reduction": 2 + 5, "scor/rule-110": 2, "scor/graph-coloring": 6,
		"scor/graph-connectivity": 5, "scor/1dconv": 1, "scor/uts": 6 + 1,
	}
	seen := 0
	for _, k := range kernels.ScoR() {
		n, ok := want[k.Name]
		assert.True(t, ok, "unexpected ScoR application %s", k.Name)
		seen++
		assert.Len(t, k.Injections, n, k.Name)
	}
	require.Equal(t, len(want), seen, "ScoR applications")
}

func TestPrepareRejectsUnknownInjection(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	_, err := kernels.LibReduce().Prepare(d, kernels.Params{Inject: "nosuch"})
	require.ErrorContains(t, err, `no injection "nosuch"`)
}

func TestWarpSizeChecked(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{WarpSize: 16})
	_, err := kernels.ScorReduction().Prepare(d, kernels.Params{})
	require.ErrorContains(t, err, "32-lane warps", "16-lane device")
}

// TestCatalogMatch: patterns are comma-separated globs, matched in catalog
// order; a bad pattern is an error that names it.
func TestCatalogMatch(t *testing.T) {
	all := kernels.All()
	got, err := all.Match("lib/scan, micro/race_*")
	require.NoError(t, err)
	var names []string
	for _, k := range got {
		names = append(names, k.Name)
	}
	require.Contains(t, names, "lib/scan")
	require.Equal(t, 19, len(names), "lib/scan and ScoR's 18 racy micros")
	for _, n := range names[:len(names)-1] {
		require.True(t, strings.HasPrefix(n, "micro/race_"), "catalog order puts the micros first: %s", n)
	}
	everything, err := all.Match("")
	require.NoError(t, err)
	require.Equal(t, all, everything)
	_, err = all.Match("lib/[")
	require.ErrorContains(t, err, `"lib/["`)
}
