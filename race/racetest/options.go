package racetest

import (
	"os"
	"testing"
	"time"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// An Option configures the detector, the launches or the device that
// [Launch], [Device] and [Explore] make. Options given in code are laid
// over the WARPGUARD environment variable, which is laid over the
// defaults (history on, everything else race.Options' zero value).
type Option func(*config)

// config is what the options and the environment set.
type config struct {
	opt     race.Options
	seed    uint64 // with seeded, the schedule seed
	seeded  bool
	timeout time.Duration
	dev     gpu.DeviceConfig
	env     race.Env
	setup   func() // Explore's per-seed setup
	// maxGiven is set by MaxReports, whose bound must then be positive.
	maxGiven bool
}

// HaltOnFirst stops a launch at its first race (race.Options.HaltOnFirst).
func HaltOnFirst() Option { return func(c *config) { c.opt.HaltOnFirst = true } }

// MaxReports bounds the reports kept (race.Options.MaxReports); n must be
// at least 1, as WARPGUARD's max_reports must, or the test fails.
func MaxReports(n int) Option {
	return func(c *config) { c.opt.MaxReports, c.maxGiven = n, true }
}

// History turns the detector's history on or off (race.Options.History):
// on, the default here, every report names both sites with their call
// stacks; off, checks are cheaper and the previous site is unknown.
func History(on bool) Option { return func(c *config) { c.opt.History = on } }

// Family picks the detector's family (race.Options.Family): race.Exact,
// the default, or race.IGUARD, iGUARD's published rules.
func Family(f race.Family) Option {
	return func(c *config) { c.opt.Family, c.opt.Precise = f, false }
}

// Options replaces the detector's options with o; options given after it
// still apply.
func Options(o race.Options) Option { return func(c *config) { c.opt = o } }

// Seed runs the launches racetest makes under gpu.ScheduleRandom with
// this seed, deterministically when their executor is gpu.Fibers; for
// [Explore] it is the first of the seeds tried. It does not reach the
// launches of a [Device], which their own Config schedules.
func Seed(seed uint64) Option {
	return func(c *config) { c.seed, c.seeded = seed, true }
}

// Timeout stops a launch still running after d, failing the test with the
// runtime's listing of where every unfinished thread was. For a [Device]
// it is the device's default launch timeout (gpu.DeviceConfig.Timeout).
// A negative d fails the test, as gpu.LaunchConfig.Timeout rejects one.
func Timeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Setup has [Explore] call setup before each seed's launch, on the test's
// goroutine: it resets the global memory the kernel reads, such as a flag
// a previous seed's run left set, so that every seed starts from the same
// state. Its writes synchronize before the launch's threads start, as
// every write before gpu.Device.Launch does. [Launch] and [Device] do not
// use it.
func Setup(setup func()) Option { return func(c *config) { c.setup = setup } }

// DeviceConfig describes the device [Device] makes; its Observer is
// replaced by the test's detector.
func DeviceConfig(cfg gpu.DeviceConfig) Option { return func(c *config) { c.dev = cfg } }

// configure returns the configuration of opts over the environment and
// the defaults. A malformed WARPGUARD value fails tb at once.
func configure(tb testing.TB, opts []Option) config {
	tb.Helper()
	c := config{opt: race.Options{History: true}}
	c.env = environment(tb)
	c.opt = c.env.Apply(c.opt)
	for _, o := range opts {
		o(&c)
	}
	if c.timeout < 0 {
		tb.Fatalf("racetest: Timeout(%v): a launch's timeout must not be negative", c.timeout)
	}
	if c.maxGiven && c.opt.MaxReports < 1 {
		tb.Fatalf("racetest: MaxReports(%d): want at least 1 report kept", c.opt.MaxReports)
	}
	return c
}

// environment parses WARPGUARD, failing tb if it is malformed.
func environment(tb testing.TB) race.Env {
	tb.Helper()
	e, err := race.ParseEnv(os.Getenv(race.EnvVar))
	if err != nil {
		tb.Fatalf("racetest: %v", err)
	}
	return e
}

// schedule returns cfg under the seeded schedule, if any.
func (c *config) schedule(cfg gpu.LaunchConfig) gpu.LaunchConfig {
	if c.seeded {
		return seeded(cfg, c.seed)
	}
	return cfg
}

// seeded returns cfg under gpu.ScheduleRandom with seed, deterministic
// where its executor allows.
func seeded(cfg gpu.LaunchConfig, seed uint64) gpu.LaunchConfig {
	cfg.Schedule, cfg.Seed = gpu.ScheduleRandom, seed
	cfg.Deterministic = cfg.Executor == gpu.Fibers
	return cfg
}
