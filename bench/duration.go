package bench

import (
	"strconv"
	"time"
)

// FormatDuration formats d for people: three significant digits in the
// largest unit that keeps the number at least 1, such as "7.48ms",
// "86.2µs" or "1.25s". JSON output keeps nanoseconds instead.
func FormatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "µs"}} {
		if d >= u.unit {
			return sign + significant(float64(d)/float64(u.unit)) + u.name
		}
	}
	return sign + strconv.FormatInt(int64(d), 10) + "ns"
}

// significant formats v, at least 1, with three significant digits and no
// trailing zeros.
func significant(v float64) string {
	prec := 2
	switch {
	case v >= 100:
		prec = 0
	case v >= 10:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	for prec > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
