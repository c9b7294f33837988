package racetest

import (
	"fmt"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// Explore runs kernel k on d with cfg under n seeded schedules, each under
// a fresh detector, and fails tb at the first schedule under which the
// detector reports a race or the launch fails, naming its seed. Which
// races a launch shows depends on how its threads interleave; each seed
// orders blocks, thread starts and wake-ups differently
// (gpu.ScheduleRandom), and, under the Fibers executor, yields threads
// after some fences, so that blocks interleave even where no thread waits
// (a race that rests on the order of two blocks' fences shows under some
// seeds), and reproduces its interleaving exactly: a failing seed, given to [Seed] or to
// gpu.LaunchConfig.Seed with Deterministic set, replays the failure.
//
// The seeds are 1 to n, or n seeds from the [Seed] option's on (past the
// largest uint64, from 1 again); seed 0 is never tried, so that Explore's
// result is unambiguous. Explore returns the seed that failed, or 0 if
// none did. An n below 1 fails tb at once: a test that explores nothing
// would pass for nothing.
//
// Global memory keeps what each run leaves in it. A kernel whose course
// depends on it, as a flag another thread sets does, needs the [Setup]
// option: Explore calls it before each seed's launch, to reset what the
// kernel reads.
//
// On a [Device], Explore checks each launch with the device's own
// detector, which observes every launch on it (the options that shape a
// detector then do not apply): it does not attach a second one, which
// would observe each launch twice. It fails tb with the races found by
// each launch and takes them from the device's detector, so the test's
// end does not report them again.
func Explore(tb testing.TB, n int, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel, opts ...Option) uint64 {
	tb.Helper()
	if n < 1 {
		tb.Fatalf("racetest: Explore: %d schedules: want at least 1", n)
	}
	c := configure(tb, opts)
	seed := uint64(1)
	if c.seeded && c.seed > 0 {
		seed = c.seed
	}
	for range n {
		if !c.explore(tb, d, seeded(cfg, seed), k) {
			return seed
		}
		if seed++; seed == 0 {
			seed = 1
		}
	}
	return 0
}

// explore runs one schedule of Explore and reports whether it passed.
// The setup's writes, made before the launch on the test's goroutine,
// synchronize before every thread of the launch starts.
func (c *config) explore(tb testing.TB, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel) bool {
	tb.Helper()
	if c.setup != nil {
		c.setup()
	}
	if det := DetectorOf(d); det != nil {
		return c.exploreDevice(tb, d, det, cfg, k)
	}
	det := race.New(c.opt)
	cfg.Observer = det
	err := c.launch(tb, d, cfg, k)
	if err == nil && len(det.Reports()) == 0 && det.Dropped() == 0 {
		return true
	}
	c.failed(tb, cfg, err)
	c.check(tb, det)
	return false
}

// exploreDevice runs one schedule on a Device, under its detector det
// alone, and fails tb with the races the launch added to det.
func (c *config) exploreDevice(tb testing.TB, d *gpu.Device, det *race.Detector, cfg gpu.LaunchConfig, k gpu.Kernel) bool {
	tb.Helper()
	cfg.Observer = nil // the device's detector observes the launch
	before, dropped := len(det.Reports()), det.Dropped()
	err := c.launch(tb, d, cfg, k)
	found := takeAfter(det, before)
	more := det.Dropped() - dropped
	if err == nil && len(found) == 0 && more == 0 {
		return true
	}
	c.failed(tb, cfg, err)
	report(tb, found, more, c.env)
	return false
}

// failed fails tb naming cfg's seed, and the launch's error if any.
func (c *config) failed(tb testing.TB, cfg gpu.LaunchConfig, err error) {
	tb.Helper()
	replay := fmt.Sprintf("racetest.Seed(%d) replays it", cfg.Seed)
	if cfg.Executor == gpu.Goroutines {
		replay = fmt.Sprintf("under the Goroutines executor racetest.Seed(%d) may not replay it: a seed replays a schedule only under Fibers", cfg.Seed)
	}
	tb.Errorf("racetest: launch %q fails under schedule seed %d (%s):", cfg.Name, cfg.Seed, replay)
	if err != nil {
		tb.Errorf("racetest: launch %q: %v", cfg.Name, err)
	}
}

// takeAfter takes from det, and returns, the reports past its first n:
// those found since it held n.
func takeAfter(det *race.Detector, n int) []race.Report {
	i := 0
	return det.Take(func(race.Report) bool {
		i++
		return i > n
	})
}
