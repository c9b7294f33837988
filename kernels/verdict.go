package kernels

import "github.com/warpguard/warpguard/race/kind"

// A Verdict is what one detection mode must report for a configuration,
// and why, where it differs from the default mode's: the precise mode
// judges by scoped happens-before (see package race), the default by
// iGUARD's fence counting.
type Verdict struct {
	Expect []kind.Kind // kinds of race the mode must report; none for a clean verdict
	Why    string      // the model's reason, in one line
	// Where, if set, replaces the injection's Where for this mode: the
	// function one of a report's sites must be in.
	Where string
}

// The reasons the precise mode's verdicts differ from the default mode's,
// each stated by the precise model (package race, "Precise mode").
const (
	// whyVolatile: ScoR's data accesses are volatile.
	whyVolatile = "volatile accesses are strong at system scope, so any two of different warps form a morally strong pair, which is no data race"
	// whyWarpVolatile: a lane's unsynchronized volatile accesses meet its
	// own warp's.
	whyWarpVolatile = "by the warp-synchronous rule two volatile accesses of lanes of one warp are not morally strong: " +
		"the lane's unlocked accesses race with its warp-mates' (those of other warps form strong pairs)"
	// whyPollNoAcquire: a chain whose reader polls with atomics and
	// fences only at block scope.
	// whySpinNoAcquire: waiters spin with relaxed loads and never fence.
	whySpinNoAcquire = "the waiters spin with relaxed atomic loads and no fence follows: they acquire nothing, so the writers' fences order nothing before their reads"
	// whyCumulative: a leader's fence after __syncthreads releases what
	// its whole block wrote before the barrier.
	whyCumulative    = "causality is transitive through the barrier: the leader's fence after __syncthreads releases every write its block made before it"
	whyPollNoAcquire = "the reader polls with atomics and then fences at block scope only, which does not include the releasing block: " +
		"nothing acquires the release, and a block-scope atomic does not include the other block"
	// whyReadOnly: a kernel writes what it reads through a read-only view.
	whyReadOnly = "the kernel reads its input through a read-only view (const __restrict__), which promises that nothing writes it while the launch runs: " +
		"each write of the input breaks that promise, whatever orders it"
)

// withPrecise sets the precise mode's verdict on k's clean configuration:
// expect (none for clean), for the reason why.
func (k *Entry) withPrecise(why string, expect ...kind.Kind) *Entry {
	k.Precise = &Verdict{Expect: expect, Why: why}
	return k
}
