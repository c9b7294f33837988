package hb

import "github.com/warpguard/warpguard/gpu"

// Same-epoch reads, settled by the reader alone. A weak read by a thread
// of a granule it read or wrote weakly at its current epoch adds nothing
// (FastTrack's same-epoch case, which ploc.repeats and cell.quick settle
// under the page lock): that earlier access is still recorded, since
// only an access that knows the thread's epoch drops a weak record of
// another thread, and a thread's epoch is known elsewhere only once it
// released, which starts a new one (or a report cleared the location,
// which is checked no more). Whatever races with the read races with the
// earlier access, and was or will be checked against it.
//
// So each thread remembers the keys of the last few granules it accessed
// weakly, at one clock, and a weak read whose key it finds at its current
// clock is counted as a repeat and goes no further: no page lookup, no
// page lock. A thread reading a small table over and over (a filter's
// taps) or reading back what it wrote no longer contends with its
// neighbours for the table's page lock. Only reads are settled so: a
// weak write also resets the location's release state (ploc.written).
//
// Only its device's global memory and its block's shared memory are
// remembered (a key names no device or other block), both of whose
// shadows last as long as the thread, and only accesses of one granule.
type seenMemo struct {
	c    uint64 // the thread clock at which keys were noted; at any other, they are stale
	keys [1 << seenBits][seenWays]uint64
}

// seenBits is log2 of the memo's sets: a granule's key goes to the set
// of its number's low bits, so consecutive granules do not collide.
// Each set holds seenWays keys, the most recently used first: a thread
// that streams through an array while it rereads a small table (a
// filter's taps beside the signal) keeps the table's keys, where one key
// a set would have each new granule of the stream evict a tap.
const (
	seenBits = 4
	seenWays = 2
)

// A seen key is a granule number with flags: seenValid, so that no key
// is 0 (an empty slot), and seenShared for the block's shared memory.
// A granule number stays below bit 62: the tag of a memory whose
// granules are not of the engine's size (see granules) is at most 4
// (8-byte elements), in the bits from elemTag up.
const (
	seenValid  = 1 << 63
	seenShared = 1 << 62
)

// seenKey returns the key of access a of th, which touches granules
// first to last, or 0 if it may not be remembered: it is strong, spans
// several granules, or is of memory of another device or another
// block's shared memory.
func (th *pthread) seenKey(a *gpu.Access, first, last uint64) uint64 {
	m := a.Mem
	switch {
	case a.Order != gpu.Weak || first != last:
		return 0
	case m.Space == gpu.SharedSpace:
		if m.Block != th.l.local(th.place.Block) {
			return 0
		}
		return first | seenValid | seenShared
	case m.DeviceID != th.l.dev:
		return 0
	}
	return first | seenValid
}

// repeats reports whether key k was noted at clock c, by a read or a
// write: a read repeats either. A key found second in its set moves
// first, as note would put it.
func (m *seenMemo) repeats(k, c uint64) bool {
	set := &m.keys[k&(1<<seenBits-1)]
	switch {
	case m.c != c:
		return false
	case set[0] == k:
		return true
	case set[1] == k:
		set[0], set[1] = k, set[0]
		return true
	}
	return false
}

// note remembers key k, of a read or a write, at clock c, dropping keys
// of any other clock: k goes first in its set, and the key it displaces
// second, evicting the set's least recently used. A thread's memo starts
// zeroed, with no keys and clock 0, which no thread clock is.
func (m *seenMemo) note(k, c uint64) {
	if m.c != c {
		if m.c != 0 {
			m.keys = [1 << seenBits][seenWays]uint64{}
		}
		m.c = c
	}
	set := &m.keys[k&(1<<seenBits-1)]
	if set[0] != k {
		set[0], set[1] = k, set[0]
	}
}
