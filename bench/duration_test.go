package bench_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
)

// TestFormatDuration: three significant digits in the largest unit that
// keeps the number at least 1, trailing zeros dropped.
func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                        "0ns",
		999:                      "999ns",
		7478072:                  "7.48ms",
		86249 * time.Nanosecond:  "86.2µs",
		time.Microsecond:         "1µs",
		1250 * time.Millisecond:  "1.25s",
		90 * time.Second:         "90s",
		1999999:                  "2ms",
		-1500 * time.Microsecond: "-1.5ms",
	} {
		require.Equal(t, want, bench.FormatDuration(d), "%d ns", int64(d))
	}
}
