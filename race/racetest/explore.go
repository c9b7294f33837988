package racetest

import (
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// Explore runs kernel k on d with cfg under n seeded schedules, each under
// a fresh detector, and fails tb at the first schedule under which the
// detector reports a race or the launch fails, naming its seed. Which
// races a launch shows depends on how its threads interleave; each seed
// orders blocks, thread starts and wake-ups differently
// (gpu.ScheduleRandom), and, under the Fibers executor, reproduces its
// interleaving exactly: a failing seed, given to [Seed] or to
// gpu.Config.Seed with Deterministic set, replays the failure.
//
// The seeds are 1 to n, or n seeds from the [Seed] option's on; seed 0 is
// never tried, so that Explore's result is unambiguous. Global memory
// keeps what each run leaves in it; a kernel whose course depends on it
// should be written to start from any state it leaves. Explore returns the
// seed that failed, or 0 if none did.
func Explore(tb testing.TB, n int, d *gpu.Device, cfg gpu.Config, k gpu.Kernel, opts ...Option) uint64 {
	tb.Helper()
	c := configure(tb, opts)
	first := uint64(1)
	if c.seeded && c.seed > 0 {
		first = c.seed
	}
	for seed := first; seed < first+uint64(n); seed++ {
		if !c.explore(tb, d, seeded(cfg, seed), k) {
			return seed
		}
	}
	return 0
}

// explore runs one schedule of Explore and reports whether it passed.
func (c *config) explore(tb testing.TB, d *gpu.Device, cfg gpu.Config, k gpu.Kernel) bool {
	tb.Helper()
	det := race.New(c.opt)
	cfg.Observer = det
	err := c.launch(tb, d, cfg, k)
	if err == nil && len(det.Reports()) == 0 && det.Dropped() == 0 {
		return true
	}
	tb.Errorf("racetest: launch %q fails under schedule seed %d (racetest.Seed(%d) replays it):", cfg.Name, cfg.Seed, cfg.Seed)
	if err != nil {
		tb.Errorf("racetest: launch %q: %v", cfg.Name, err)
	}
	c.check(tb, det)
	return false
}
