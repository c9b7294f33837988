package scope_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/scope"
)

func TestStringRoundTrip(t *testing.T) {
	t.Parallel()
	for s := scope.Thread; s <= scope.System; s++ {
		got, err := scope.Parse(s.String())
		require.NoError(t, err)
		require.Equal(t, s, got)
	}
	require.Equal(t, "scope(9)", scope.Scope(9).String())
}

func TestParseAliases(t *testing.T) {
	t.Parallel()
	cases := map[string]scope.Scope{
		"cta": scope.Block, "GPU": scope.Device, " sys ": scope.System,
		"thread_scope_block": scope.Block, "thread_scope_device": scope.Device,
		"thread_scope_system": scope.System, "thread_scope_thread": scope.Thread, "warp": scope.Warp,
	}
	for in, want := range cases {
		got, err := scope.Parse(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "grid", "cluster", "blocks", "thread_scope_", "thread_scope_cluster"} {
		_, err := scope.Parse(in)
		require.ErrorContains(t, err, "unknown scope", in)
	}
}

func TestIncludes(t *testing.T) {
	t.Parallel()
	require.True(t, scope.Device.Includes(scope.Block))
	require.True(t, scope.Block.Includes(scope.Block))
	require.False(t, scope.Block.Includes(scope.Device))
	require.True(t, scope.System.Includes(scope.Thread))
	require.False(t, scope.Warp.Includes(scope.Block))
}

func TestValid(t *testing.T) {
	t.Parallel()
	require.True(t, scope.System.Valid())
	require.False(t, scope.Scope(5).Valid())
}

func TestText(t *testing.T) {
	t.Parallel()
	b, err := scope.Device.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "device", string(b))
	var s scope.Scope
	require.NoError(t, s.UnmarshalText([]byte("cta")))
	require.Equal(t, scope.Block, s)
	require.Error(t, s.UnmarshalText([]byte("nope")))
	require.Equal(t, scope.Block, s, "failed unmarshal leaves the value")
	_, err = scope.Scope(7).MarshalText()
	require.Error(t, err)
}
