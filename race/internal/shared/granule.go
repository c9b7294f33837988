package shared

import (
	"math/bits"

	"github.com/warpguard/warpguard/gpu"
)

// Shift returns log2 of the bytes one granule (metadata entry) of memory
// m covers, for an engine configured with granules of 1<<shift bytes: the
// smaller of that and m's element size. An element narrower than the
// configured granule (a 1- or 2-byte element under the default 4) is
// tracked alone, so neighbouring bytes of one word never share an entry
// and never race falsely; wider elements span several granules, as
// before. Dynamic shared memory (gpu.Memory.Untyped), whose views of
// several types alias its bytes, keeps the configured granule: there a
// granule larger than a view's elements does cover neighbours. The
// IGUARD family's engine sizes its entries so; the Exact family's gives
// every typed buffer granules of its element size, wider ones included.
func Shift(m *gpu.Memory, shift uint) uint {
	if m.ElemSize >= 1<<shift || m.ElemSize <= 0 || m.Untyped() {
		return shift
	}
	return uint(bits.TrailingZeros(uint(m.ElemSize)))
}
