package block

import "github.com/warpguard/warpguard/gpu"

// The loads and stores move a tile of BlockSize*len(items) elements
// starting at offset between a buffer and the threads' items, CUB's
// BlockLoad and BlockStore with direct access. They execute no barrier and
// use no shared memory. Elements past the end of the buffer are not
// accessed: loads give oob for them and stores skip them, so the last tile
// of a buffer needs no special case.

// LoadBlocked loads the blocked arrangement: the thread of rank r takes
// the len(items) consecutive elements from offset + r*len(items).
func LoadBlocked[T gpu.Elem](t *gpu.Thread, src gpu.Buffer[T], offset int, items []T, oob T) {
	first := offset + t.ThreadRank()*len(items)
	for j := range items {
		items[j] = oob
		if i := first + j; i < src.Len() {
			items[j] = src.Load(t, i)
		}
	}
}

// LoadStriped loads the striped arrangement: the thread of rank r takes
// the elements offset + j*BlockSize + r, coalesced across the block.
func LoadStriped[T gpu.Elem](t *gpu.Thread, src gpu.Buffer[T], offset int, items []T, oob T) {
	stride := t.Grid().BlockSize
	for j := range items {
		items[j] = oob
		if i := offset + j*stride + t.ThreadRank(); i < src.Len() {
			items[j] = src.Load(t, i)
		}
	}
}

// StoreBlocked stores items in the blocked arrangement (see
// [LoadBlocked]).
func StoreBlocked[T gpu.Elem](t *gpu.Thread, dst gpu.Buffer[T], offset int, items []T) {
	first := offset + t.ThreadRank()*len(items)
	for j, v := range items {
		if i := first + j; i < dst.Len() {
			dst.Store(t, i, v)
		}
	}
}

// StoreStriped stores items in the striped arrangement (see
// [LoadStriped]).
func StoreStriped[T gpu.Elem](t *gpu.Thread, dst gpu.Buffer[T], offset int, items []T) {
	stride := t.Grid().BlockSize
	for j, v := range items {
		if i := offset + j*stride + t.ThreadRank(); i < dst.Len() {
			dst.Store(t, i, v)
		}
	}
}
