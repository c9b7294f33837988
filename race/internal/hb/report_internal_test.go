package hb

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestUnobservedOnlyAfterAStrongWrite: the evidence names PTX's
// observation order only for a weak access after a strong write, the
// pair it could order; a weak pair or a strong access gets no such
// sentence.
func TestUnobservedOnlyAfterAStrongWrite(t *testing.T) {
	atomic := &prec{op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
	store := &prec{op: gpu.OpStore, order: gpu.Weak, write: true}
	load := &prec{op: gpu.OpLoad, order: gpu.Weak}
	strongLoad := &prec{op: gpu.OpLoad, order: gpu.Relaxed, scope: scope.Device}
	require.Contains(t, unobserved(store, atomic, scope.Device), "AtomicStore of device scope")
	require.Contains(t, unobserved(load, atomic, scope.Block), "AtomicStore of block scope")
	require.Empty(t, unobserved(load, store, scope.Device), "a weak write is observed by nothing")
	require.Empty(t, unobserved(store, strongLoad, scope.Device), "a strong read writes nothing")
	require.Empty(t, unobserved(strongLoad, atomic, scope.Device), "a strong access is ordered or a scoped-atomic race")
}
