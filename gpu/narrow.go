package gpu

import (
	"sync/atomic"
	"unsafe"
)

// Elements of 1 and 2 bytes. Go's sync/atomic has no operation narrower
// than 4 bytes, so each helper here works on the aligned 4-byte word that
// holds the element: a load loads the word and extracts the element's
// bits; a store, exchange, compare-and-swap or add is a compare-and-swap
// loop on the word that replaces only the element's bits and retries if
// any bit of the word changed meanwhile. A neighbour's concurrent store to
// the same word is therefore never undone, and every access is still one
// sequentially consistent Go atomic on the word, so the race detector sees
// no data race. Memory words are 8-byte aligned, and an element is
// aligned to its size, so it never straddles two words.
//
// The element's place in the word is the hardware's: byte k of the word
// is the byte at the word's address plus k, so a DynamicShared view of
// bytes and a view of 4-byte words of the same memory agree.

// narrowWord returns the 4-byte word holding the size-byte element at p,
// the element's bit shift in the word, and the mask of its bits.
func narrowWord(p unsafe.Pointer, size uintptr) (*uint32, uint, uint32) {
	k := uintptr(p) & 3
	w := (*uint32)(unsafe.Add(p, -int(k)))
	if bigEndian {
		k = 4 - k - size
	}
	return w, uint(k * 8), uint32(1)<<(size*8) - 1
}

// loadNarrow returns the bits of the size-byte element at p.
func loadNarrow(p unsafe.Pointer, size uintptr) uint64 {
	w, sh, mask := narrowWord(p, size)
	return uint64(atomic.LoadUint32(w) >> sh & mask)
}

// swapNarrow stores v's low size bytes into the element at p and returns
// the element's old bits.
func swapNarrow(p unsafe.Pointer, size uintptr, v uint64) uint64 {
	w, sh, mask := narrowWord(p, size)
	for {
		old := atomic.LoadUint32(w)
		n := old&^(mask<<sh) | (uint32(v)&mask)<<sh
		if atomic.CompareAndSwapUint32(w, old, n) {
			return uint64(old >> sh & mask)
		}
	}
}

// casNarrow stores n into the element at p if its bits are c, and
// reports whether it did. A change to a neighbouring element of the word
// makes it retry, not fail.
func casNarrow(p unsafe.Pointer, size uintptr, c, n uint64) bool {
	w, sh, mask := narrowWord(p, size)
	for {
		old := atomic.LoadUint32(w)
		if old>>sh&mask != uint32(c) {
			return false
		}
		if atomic.CompareAndSwapUint32(w, old, old&^(mask<<sh)|(uint32(n)&mask)<<sh) {
			return true
		}
	}
}

// addNarrow adds v to the element at p, wrapping within its size, and
// returns the element's old bits.
func addNarrow(p unsafe.Pointer, size uintptr, v uint64) uint64 {
	w, sh, mask := narrowWord(p, size)
	for {
		old := atomic.LoadUint32(w)
		e := old >> sh & mask
		if atomic.CompareAndSwapUint32(w, old, old&^(mask<<sh)|((e+uint32(v))&mask)<<sh) {
			return uint64(e)
		}
	}
}
