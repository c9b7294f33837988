package racetest

import (
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// Device returns a device every launch of which is checked by one
// detector, attached as gpu.DeviceConfig.Observer: code that launches
// kernels internally runs checked, unchanged, when its test hands it this
// device. Launches that overlap are checked against each other from the
// moment the later one starts; launches the host orders are ordered.
//
// When the test ends (tb.Cleanup), tb fails once per race found, as
// [Check] fails it, naming as the failure's line the test's call of
// Device. The return of every launch on the device synchronizes before
// that check, so it sees all their races; a launch still running then
// (on a goroutine the test leaked) may be missed.
//
// The device is closed (gpu.Device.Close) when the test ends.
//
// The options set the detector, the device ([DeviceConfig]) and the
// device's default launch timeout ([Timeout]); [Seed] does not apply.
// Under a test with a deadline (go test -timeout), the device's launches
// stop four seconds before it, or sooner as the package doc says
// (gpu.DeviceConfig.Deadline), as [Launch]'s do, whatever context their
// callers pass: each returns its *gpu.StallError, listing where every
// thread was, to the code that launched it, before go test's timeout
// panic could lose it. The test fails on it if that code passes the
// error on (t.Fatal(err)); the device itself fails the test only for
// races.
// A device that cannot be made fails tb at once.
func Device(tb testing.TB, opts ...Option) *gpu.Device {
	tb.Helper()
	c := configure(tb, opts)
	det := race.New(c.opt)
	cfg := c.dev
	cfg.Observer = det
	if c.timeout > 0 && cfg.Timeout == 0 {
		cfg.Timeout = c.timeout
	}
	if dl, ok := testDeadline(tb); ok && (cfg.Deadline.IsZero() || dl.Before(cfg.Deadline)) {
		cfg.Deadline = dl
	}
	d, err := gpu.NewDevice(cfg)
	if err != nil {
		tb.Fatalf("racetest: %v", err)
	}
	tb.Cleanup(func() {
		// A helper, as Device is: testing then names the line that
		// called Device, the test's own, as the failure's line.
		tb.Helper()
		c.check(tb, det)
	})
	tb.Cleanup(func() { _ = d.Close() }) // d was made by NewDevice: Close cannot fail
	return d
}

// DetectorOf returns the detector attached to d, as [Device] attaches it,
// or nil if d is nil or has none.
func DetectorOf(d *gpu.Device) *race.Detector {
	if d == nil {
		return nil
	}
	det, _ := d.Config().Observer.(*race.Detector)
	return det
}
