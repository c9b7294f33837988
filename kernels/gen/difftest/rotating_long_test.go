//go:build long

package difftest_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/kernels/gen"
	"github.com/warpguard/warpguard/kernels/gen/difftest"
)

// rotatingKernels is how many kernels TestExactAgreesOnRotatingSeeds runs
// under each execution.
const rotatingKernels = 10_000

// TestExactAgreesOnRotatingSeeds holds the default family to the oracle
// on kernels whose seeds change from day to day, under every execution:
// the fixed range of TestPreciseAgreesWithOracle cannot find a
// disagreement that lies outside it. The first seed is logged on
// failure; WARPGUARD_FUZZ_SEED set to it runs the same kernels again.
func TestExactAgreesOnRotatingSeeds(t *testing.T) {
	needConfig(t, exactConfig)
	base := rotatingBase(t, time.Now())
	t.Logf("kernels %d to %d (WARPGUARD_FUZZ_SEED=%d runs them again)", base, base+rotatingKernels-1, base)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	for _, e := range difftest.Executions() {
		t.Run(e.String(), func(t *testing.T) {
			for s := base; s < base+rotatingKernels; s++ {
				o, err := difftest.RunUnder(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), exactConfig, e)
				require.NoError(t, err)
				if !o.Agree() {
					t.Errorf("kernel %d: the default family and the oracle differ:\n%v", s, o)
				}
			}
		})
	}
}

// rotatingBase returns the first seed of the day now falls on, past the
// fixed ranges the other tests and BENCHMARKS.md use, or the seed
// WARPGUARD_FUZZ_SEED names.
func rotatingBase(t *testing.T, now time.Time) uint64 {
	if s := os.Getenv("WARPGUARD_FUZZ_SEED"); s != "" {
		base, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "WARPGUARD_FUZZ_SEED")
		return base
	}
	day := uint64(now.Unix() / (24 * 60 * 60))
	return 1_000_000 + day%100_000*rotatingKernels
}
