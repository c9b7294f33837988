package racetest

import (
	"context"
	"testing"
	"time"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// New returns a detector for tests: history on, so that every report
// names both sites. It does not read WARPGUARD; [Launch], [Device] and
// [Explore] do.
func New() *race.Detector { return race.New(race.Options{History: true}) }

// Launch runs kernel k on d with cfg under a fresh detector (cfg.Observer
// is replaced) and fails tb with every race the detector reports and with
// the launch's error, if any. It returns the detector for further checks.
// On a [Device], whose own detector observes every launch, call d.Launch
// instead: Launch would report each race twice.
//
// The launch runs under tb.Context(), ending a little before the test's
// deadline (go test -timeout) if it has one, and under the [Timeout]
// option if given, so that a kernel that spins forever fails the test
// with the runtime's listing of where each unfinished thread was instead
// of hanging it.
func Launch(tb testing.TB, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel, opts ...Option) *race.Detector {
	tb.Helper()
	c := configure(tb, opts)
	det := race.New(c.opt)
	cfg = c.schedule(cfg)
	cfg.Observer = det
	if err := c.launch(tb, d, cfg, k); err != nil {
		tb.Errorf("racetest: launch %q: %v", cfg.Name, err)
	}
	c.check(tb, det)
	return det
}

// launch runs k on d with cfg under the test's context and c's timeout,
// and returns its error less a halt on the first race.
func (c *config) launch(tb testing.TB, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel) error {
	if c.timeout > 0 && cfg.Timeout == 0 {
		cfg.Timeout = c.timeout
	}
	ctx, cancel := testContext(tb)
	defer cancel()
	return race.WithoutHalt(d.Launch(ctx, cfg, k))
}

// deadlineMargin is how long before the test's deadline a launch stops,
// leaving the test time to print the stall listing before go test's
// timeout panics: more than the two seconds Launch waits, once stopped,
// for a thread that never calls into the runtime (a `for {}`) before it
// returns without it, and a second more to report.
const deadlineMargin = 4 * time.Second

// testContext returns tb's context, ending deadlineMargin before the
// test's deadline when tb has one.
func testContext(tb testing.TB) (context.Context, context.CancelFunc) {
	ctx := tb.Context()
	if dl, ok := testDeadline(tb); ok {
		return context.WithDeadline(ctx, dl)
	}
	return context.WithCancel(ctx)
}

// testDeadline returns when tb's launches stop: marginFor the time left
// before the test's deadline, if tb has one.
func testDeadline(tb testing.TB) (time.Time, bool) {
	if t, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := t.Deadline(); ok {
			return dl.Add(-marginFor(time.Until(dl))), true
		}
	}
	return time.Time{}, false
}

// marginFor returns how long before a deadline left away a test's
// launches stop: deadlineMargin, or half of left when that is less, so
// that a short go test -timeout still leaves the launches half of it (a
// kernel that never calls the runtime may then outlast the margin, and
// go test's timeout end the test).
func marginFor(left time.Duration) time.Duration {
	return min(deadlineMargin, max(left, 0)/2)
}

// LaunchFunc returns a function that launches kernels on d with executor
// e, observed by det: the shape of kernels.LaunchFunc.
func LaunchFunc(d *gpu.Device, det *race.Detector, e gpu.Executor) func(context.Context, gpu.LaunchConfig, gpu.Kernel) error {
	return func(ctx context.Context, cfg gpu.LaunchConfig, k gpu.Kernel) error {
		cfg.Observer, cfg.Executor = det, e
		return race.WithoutHalt(d.Launch(ctx, cfg, k))
	}
}
