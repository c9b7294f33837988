package racetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
