package difftest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/oracle"
)

// TestGranulesOfAnElement: a report's element maps to every granule it
// overlaps, whatever its size: a byte to the one holding it, a word of 8
// bytes to two.
func TestGranulesOfAnElement(t *testing.T) {
	bytes := &gpu.Memory{Name: "b", ElemSize: 1}
	longs := &gpu.Memory{Name: "l", ElemSize: 8}
	for _, c := range []struct {
		r    race.Report
		want []oracle.Granule
	}{
		{race.Report{Mem: bytes, Index: 0}, []oracle.Granule{{Mem: bytes, Index: 0}}},
		{race.Report{Mem: bytes, Index: 7}, []oracle.Granule{{Mem: bytes, Index: 1}}},
		{race.Report{Mem: longs, Index: 1}, []oracle.Granule{{Mem: longs, Index: 2}, {Mem: longs, Index: 3}}},
	} {
		assert.Equal(t, c.want, granules(c.r), "%s element %d", c.r.Mem.Name, c.r.Index)
	}
}
