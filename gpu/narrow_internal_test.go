package gpu

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestNarrowStoresKeepNeighbours: goroutines that each store, again and
// again, into their own byte (or 2-byte half) of one shared word never
// undo each other's stores. Each counts its element up by load and store;
// a store that wrote back a stale copy of the whole word would lose a
// neighbour's count.
func TestNarrowStoresKeepNeighbours(t *testing.T) {
	t.Parallel()
	hammer[uint8](t)
	hammer[int16](t)
}

func hammer[T Elem](t *testing.T) {
	const rounds = 1 << 17
	words := make([]uint64, 1)
	size := elemSize[T]()
	n := 8 / size // every element of the 8-byte word, so both 4-byte halves
	var wg sync.WaitGroup
	start := make(chan struct{}) // so that the goroutines overlap
	for k := range n {
		p := unsafe.Add(unsafe.Pointer(&words[0]), k*size)
		wg.Go(func() {
			<-start
			for range rounds {
				storeBits[T](p, loadBits[T](p)+1)
			}
		})
	}
	close(start)
	wg.Wait()
	for k := range n {
		p := unsafe.Add(unsafe.Pointer(&words[0]), k*size)
		require.Equal(t, uint64(rounds)&(1<<(8*size)-1), loadBits[T](p), "element %d of %d-byte elements", k, size)
	}
}

// TestNarrowRMWsKeepNeighbours: exchanges, compare-and-swaps and adds on
// neighbouring narrow elements leave each other's bits alone, and a CAS
// fails only when its own element differs.
func TestNarrowRMWsKeepNeighbours(t *testing.T) {
	t.Parallel()
	const rounds = 20000
	words := make([]uint64, 1)
	at := func(k int) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(&words[0]), k) }
	var wg sync.WaitGroup
	wg.Go(func() {
		for range rounds {
			addBits[uint8](at(0), 1)
		}
	})
	wg.Go(func() {
		for range rounds {
			for old := loadBits[uint8](at(1)); !casBits[uint8](at(1), old, old+3); old = loadBits[uint8](at(1)) {
			}
		}
	})
	wg.Go(func() {
		for i := range rounds {
			swapBits[uint16](at(2), uint64(i))
		}
	})
	wg.Wait()
	require.Equal(t, uint64(rounds&0xff), loadBits[uint8](at(0)))
	require.Equal(t, uint64(3*rounds&0xff), loadBits[uint8](at(1)))
	require.Equal(t, uint64(rounds-1), loadBits[uint16](at(2)))
	require.False(t, casBits[uint8](at(0), 0x7, 1), "a CAS whose own byte differs fails")
}

// TestNarrowByteOrder: a narrow element sits in its word where the
// hardware puts it, so views of one memory as bytes and as words agree.
func TestNarrowByteOrder(t *testing.T) {
	t.Parallel()
	words := make([]uint64, 1)
	p := unsafe.Pointer(&words[0])
	for k := range 4 {
		storeBits[uint8](unsafe.Add(p, k), uint64(k+1))
	}
	require.Equal(t, []byte{1, 2, 3, 4}, unsafe.Slice((*byte)(p), 4))
	storeBits[uint16](unsafe.Add(p, 6), 0xbeef)
	require.Equal(t, uint64(0xbeef), uint64(*(*uint16)(unsafe.Add(p, 6))))
}
