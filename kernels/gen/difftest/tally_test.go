package difftest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/kernels/gen/difftest"
	"github.com/warpguard/warpguard/race/oracle"
)

// TestTallyAdd: Add counts granules and, once each, the kernels with any.
func TestTallyAdd(t *testing.T) {
	g := oracle.Granule{}
	tl := difftest.Tally{Config: "opt"}
	tl.Add(&difftest.Outcome{Races: []oracle.Race{{}, {}}, FalseNegatives: []oracle.Granule{g, g}})
	tl.Add(&difftest.Outcome{FalsePositives: []oracle.Granule{g}})
	tl.Add(&difftest.Outcome{})
	assert.Equal(t, difftest.Tally{Config: "opt", Kernels: 3, Racy: 1, Granules: 2,
		FalsePositives: 1, FalseNegatives: 2, FPKernels: 1, FNKernels: 1}, tl)
}
