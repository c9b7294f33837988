package race

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race/internal/iguard"
)

// TestLockingEngine: each discipline reaches the engine as itself, and a
// value past them locks as the default, LockSpin.
func TestLockingEngine(t *testing.T) {
	require.Equal(t, iguard.LockSpin, LockSpin.engine())
	require.Equal(t, iguard.LockMutex, LockMutex.engine())
	require.Equal(t, iguard.LockStriped, LockStriped.engine())
	require.Equal(t, iguard.LockSpin, Locking(9).engine())
}
