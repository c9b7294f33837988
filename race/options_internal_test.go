package race

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race/internal/iguard"
)

// TestOptionsEngine: the engine's configuration carries every option of
// the default mode, with the granularity's default applied.
func TestOptionsEngine(t *testing.T) {
	o := Options{Granularity: 3, History: true, Lock: LockStriped, NoBackoff: true, NoCoalesce: true, FullEntries: true, Central: true}
	require.Equal(t, iguard.Config{Granularity: 4, History: true, Lock: iguard.LockStriped, NoBackoff: true, NoCoalesce: true,
		FullEntries: true, Central: true}, o.withDefaults().engine())
	require.Equal(t, iguard.Config{Granularity: 4}, Options{}.withDefaults().engine())
}
