package kernels

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNext110(t *testing.T) {
	// Rule 110: the new cell for neighbourhoods 111 down to 000.
	want := [8]int32{0, 1, 1, 0, 1, 1, 1, 0}
	for i, w := range want {
		v := int32(7 - i)
		require.Equal(t, w, next110(v>>2, v>>1&1, v&1), "next110(%03b)", v)
	}
}
