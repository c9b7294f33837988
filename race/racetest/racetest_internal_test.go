package racetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestMarginForShortDeadlines: launches stop deadlineMargin before a
// distant deadline, and half the time left before a close one, so that
// go test -timeout 4s leaves them two seconds, not none.
func TestMarginForShortDeadlines(t *testing.T) {
	require.Equal(t, deadlineMargin, marginFor(time.Minute))
	require.Equal(t, deadlineMargin, marginFor(8*time.Second))
	require.Equal(t, 2*time.Second, marginFor(4*time.Second))
	require.Equal(t, time.Second, marginFor(2*time.Second))
	require.Zero(t, marginFor(-time.Second), "a deadline passed: stop at it")
}

// errorsOf is a testing.TB that keeps what Errorf is given.
type errorsOf struct {
	testing.TB
	errs []string
}

func (e *errorsOf) Helper() {}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// TestFailedSaysWhereASeedReplays: Explore's failure says the seed
// replays the run under Fibers, and under Goroutines that it may not.
func TestFailedSaysWhereASeedReplays(t *testing.T) {
	var c config
	for ex, want := range map[gpu.Executor]string{
		gpu.Fibers:     `racetest: launch "k" fails under schedule seed 7 (racetest.Seed(7) replays it):`,
		gpu.Goroutines: `racetest: launch "k" fails under schedule seed 7 (under the Goroutines executor racetest.Seed(7) may not replay it: a seed replays a schedule only under Fibers):`,
	} {
		tb := &errorsOf{TB: t}
		c.failed(tb, gpu.LaunchConfig{Name: "k", Seed: 7, Executor: ex}, nil)
		require.Equal(t, []string{want}, tb.errs)
	}
}
