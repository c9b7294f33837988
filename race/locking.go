package race

import (
	"fmt"

	"github.com/warpguard/warpguard/race/internal/iguard"
)

// Locking is a discipline for locking one metadata entry.
type Locking uint8

// The locking disciplines. BENCHMARKS.md compares them inside the
// detector.
const (
	// LockSpin is a spinlock in the entry's stamp word: one exchange to
	// take an uncontended entry, and on contention exponential backoff
	// or, with NoBackoff, a tight spin. It is the default.
	LockSpin Locking = iota
	// LockMutex is a sync.Mutex per granule, in the entry's extra: 40
	// more bytes of metadata per granule.
	LockMutex
	// LockStriped is a table of striped sync.Mutexes, chosen by the
	// entry's address: less memory per entry, false sharing between
	// entries of one stripe.
	LockStriped
)

// String returns "spin", "mutex" or "striped".
func (l Locking) String() string {
	switch l {
	case LockMutex:
		return "mutex"
	case LockStriped:
		return "striped"
	}
	return "spin"
}

// ParseLocking returns the discipline String names.
func ParseLocking(s string) (Locking, error) {
	for _, l := range []Locking{LockSpin, LockMutex, LockStriped} {
		if s == l.String() {
			return l, nil
		}
	}
	return 0, fmt.Errorf("race: unknown locking discipline %q (want spin, mutex or striped)", s)
}

// engine returns the engine's name for l; a value past the disciplines
// locks as LockSpin, as the engine's default does.
func (l Locking) engine() iguard.Locking {
	switch l {
	case LockMutex:
		return iguard.LockMutex
	case LockStriped:
		return iguard.LockStriped
	}
	return iguard.LockSpin
}
