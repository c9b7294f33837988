package kind_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race/kind"
)

func TestNamesRoundTrip(t *testing.T) {
	for _, k := range kind.All() {
		got, err := kind.Parse(k.String())
		require.NoError(t, err)
		require.Equal(t, k, got)
	}
	_, err := kind.Parse("missing-fence")
	require.ErrorContains(t, err, `unknown race kind "missing-fence"`)
	require.Equal(t, "kind(0)", kind.Kind(0).String())
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(map[string]kind.Kind{"k": kind.MissingDeviceFence})
	require.NoError(t, err)
	require.JSONEq(t, `{"k":"missing-device-fence"}`, string(b))
	var back map[string]kind.Kind
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, kind.MissingDeviceFence, back["k"])
	_, err = json.Marshal(kind.Kind(0))
	require.Error(t, err, "the zero Kind is not a race and has no name")
	require.Error(t, json.Unmarshal([]byte(`"bogus"`), new(kind.Kind)))
}

// Kinds print as the command line spells them.
func ExampleKind_String() {
	for _, k := range kind.All() {
		fmt.Println(k)
	}
	// Output:
	// scoped-atomic
	// missing-block-fence
	// missing-device-fence
	// missing-syncwarp
	// improper-locking
	// read-only-written
}
