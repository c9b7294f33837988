// Package racetest runs kernels under a scoped race detector in tests and
// fails the test with every race found, the way `go test -race` fails a
// test on a Go data race.
package racetest

import (
	"context"
	"errors"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// New returns a detector for tests: history on, so that every report
// names both sites.
func New() *race.Detector { return race.New(race.Options{History: true}) }

// Launch runs kernel k on d with cfg under a fresh detector (cfg.Observer
// is replaced) and fails tb with every race the detector reports and with
// the launch's error, if any. It returns the detector for further checks.
func Launch(tb testing.TB, d *gpu.Device, cfg gpu.Config, k gpu.Kernel) *race.Detector {
	tb.Helper()
	det := New()
	cfg.Observer = det
	if err := withoutHalt(d.Launch(context.Background(), cfg, k)); err != nil {
		tb.Errorf("racetest: launch %q: %v", cfg.Name, err)
	}
	Check(tb, det)
	return det
}

// Check fails tb once per race det has reported, printing each report, and
// resets det.
func Check(tb testing.TB, det *race.Detector) {
	tb.Helper()
	rs := det.Reports()
	for _, r := range rs {
		tb.Errorf("%v", r)
	}
	if n := det.Dropped(); n > 0 {
		tb.Errorf("racetest: %d more races not shown", n)
	}
	det.Reset()
}

// LaunchFunc returns a function that launches kernels on d with executor
// e, observed by det: the shape of kernels.LaunchFunc.
func LaunchFunc(d *gpu.Device, det *race.Detector, e gpu.Executor) func(context.Context, gpu.Config, gpu.Kernel) error {
	return func(ctx context.Context, cfg gpu.Config, k gpu.Kernel) error {
		cfg.Observer, cfg.Executor = det, e
		return withoutHalt(d.Launch(ctx, cfg, k))
	}
}

// withoutHalt returns err less the detector's halt-on-first error: the
// report is the result of a halted launch, but every other thread error
// (an out-of-range index, a panic) still counts.
func withoutHalt(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var keep []error
		for _, e := range j.Unwrap() {
			keep = append(keep, withoutHalt(e))
		}
		return errors.Join(keep...)
	}
	var h *race.Halt
	if errors.As(err, &h) {
		return nil
	}
	return err
}
