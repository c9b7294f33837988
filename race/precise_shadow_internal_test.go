package race

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
)

// TestRMWResult: the value a read-modify-write leaves is what package
// gpu's atomics compute, so that a strong read of it finds its write.
func TestRMWResult(t *testing.T) {
	t.Parallel()
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	cases := []struct {
		typ       string
		op        gpu.Op
		old, arg  uint64
		want      uint64
		wantKnown bool
	}{
		{"uint32", gpu.OpAdd, math.MaxUint32, 1, 0, true},
		{"int32", gpu.OpMin, uint64(uint32(0xffffffff)), 3, uint64(uint32(0xffffffff)), true}, // -1 < 3
		{"uint32", gpu.OpMin, uint64(uint32(0xffffffff)), 3, 3, true},
		{"int64", gpu.OpSub, 5, 7, math.MaxUint64 - 1, true},
		{"float32", gpu.OpAdd, f32(1.5), f32(2), f32(3.5), true},
		{"uint32", gpu.OpInc, 4, 4, 0, true},
		{"uint32", gpu.OpDec, 0, 9, 9, true},
		{"int32", gpu.OpXor, 6, 3, 5, true},
		{"main.Celsius", gpu.OpAdd, 1, 1, 0, false},
	}
	for _, c := range cases {
		got, known := rmwResult(c.typ, c.op, c.old, c.arg)
		assert.Equal(t, c.wantKnown, known, "%s %v", c.typ, c.op)
		if known {
			assert.Equal(t, c.want, got, "%s %v %d %d", c.typ, c.op, c.old, c.arg)
		}
	}
}
