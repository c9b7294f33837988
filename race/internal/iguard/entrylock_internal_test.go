package iguard

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestContendedCountsAcquisitions checks what the lock counters mean: an
// acquisition that finds its entry free counts in locks only; one that
// finds it held counts once in contended, however long it then waits,
// and its backoff steps, if it backs off, count in waits (a tight spin
// takes none). The entry is held from outside for longer than a step at
// the cap, so a waiter that backs off takes several.
func TestContendedCountsAcquisitions(t *testing.T) {
	for _, backoff := range []bool{false, true} {
		l := locker{kind: LockSpin, backoff: backoff, cap: backoffCap(64)}
		var e entry
		var x extra
		var th thread
		l.lock(&th, &e, &x)
		l.unlock(&e, &x, 0)
		require.Equal(t, counters{locks: 1}, th.n, "backoff %v: a free entry", backoff)

		e.word.Store(locked) // held by another check
		done := make(chan struct{})
		go func() {
			l.lock(&th, &e, &x)
			close(done)
		}()
		time.Sleep(5 * time.Millisecond)
		l.unlock(&e, &x, 0) // the waiter's acquisition follows this store
		<-done
		require.Equal(t, uint64(2), th.n.locks, "backoff %v", backoff)
		require.Equal(t, uint64(1), th.n.contended, "backoff %v: one acquisition, one contended, however many tries", backoff)
		if backoff {
			require.Greater(t, th.n.waits, uint64(1), "the waiter backed off step by step")
			require.NotZero(t, th.n.waitNs)
		} else {
			require.Zero(t, th.n.waits, "a tight spin takes no backoff steps")
		}
	}
}
