package kernels

import "testing"

func TestNext110(t *testing.T) {
	// Rule 110: the new cell for neighbourhoods 111 down to 000.
	want := [8]int32{0, 1, 1, 0, 1, 1, 1, 0}
	for i, w := range want {
		v := int32(7 - i)
		if got := next110(v>>2, v>>1&1, v&1); got != w {
			t.Errorf("next110(%03b) = %d, want %d", v, got, w)
		}
	}
}
