package racetest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/warpguard/warpguard/race"
)

// Check fails tb once per race det has reported, printing each report, and
// resets det. WARPGUARD's log_path and strip_path_prefix apply. The return
// of a launch synchronizes before a Check that follows it on the test's
// goroutine, so Check sees every race of the launches that returned; it
// may miss those of a launch still running.
func Check(tb testing.TB, det *race.Detector) {
	tb.Helper()
	present(tb, "Check", det)
	e, err := race.ParseEnv(os.Getenv(race.EnvVar))
	if err != nil {
		tb.Errorf("racetest: %v", err)
	}
	check(tb, det, e)
}

// present fails tb, naming the function fn that was given it, if det is
// nil, as DetectorOf returns for a device [Device] did not make.
func present(tb testing.TB, fn string, det *race.Detector) {
	tb.Helper()
	if det == nil {
		tb.Fatalf("racetest: %s: nil detector (DetectorOf returns nil for a device that racetest.Device did not make)", fn)
	}
}

// check is Check with c's environment, read when c was made.
func (c *config) check(tb testing.TB, det *race.Detector) {
	tb.Helper()
	check(tb, det, c.env)
}

// check is Check with the environment e.
func check(tb testing.TB, det *race.Detector, e race.Env) {
	tb.Helper()
	report(tb, det.Reports(), det.Dropped(), e)
	det.Reset()
}

// report fails tb once per report of rs and once for the dropped ones,
// if any, and logs rs as e says.
func report(tb testing.TB, rs []race.Report, dropped int, e race.Env) {
	tb.Helper()
	for _, r := range rs {
		tb.Errorf("%s", e.Strip(r.String()))
	}
	if dropped > 0 {
		tb.Errorf("racetest: %d more %s not shown", dropped, strings.TrimPrefix(race.Count(dropped), fmt.Sprint(dropped, " ")))
	}
	if err := e.Log(rs); err != nil {
		tb.Errorf("racetest: %v", err)
	}
}
