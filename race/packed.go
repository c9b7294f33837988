package race

import (
	"encoding/binary"
	"math"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A packed is a record as an entry stores it, in 14 bytes, so that an
// entry's three records, its lock and repeat words, its flags and its
// lockset fit one cache line:
//
//	bytes  0..3   the thread's global id plus one (record.tid)
//	bytes  4..7   the thread's fence seq, whole
//	bytes  8..11  the block's barrier epoch, modulo 2^12, in bits 0..11;
//	              the lane epoch, saturated at wepUnknown, in bits 12..27;
//	              the tile-sync count, modulo 2^4, in bits 28..31
//	bytes 12..13  the grid-sync epoch, modulo 2^6, in bits 0..5; the
//	              access's class (classOf) in bits 6..15
//
// The thread id fits since a launch has fewer than 2^32 threads (see
// Detector.LaunchStart); the fence seq since a thread that would make its
// 2^32nd fence panics instead (see thread.number). The other counters are
// narrowed, and compared only as the functions below do. The soundness
// argument is the same for each: a narrowed counter is compared only for
// inequality, which says that a synchronization separates a record from
// a later access and so orders them (a race-free shortcut). Counters that
// are equal stay equal modulo any size; counters that differ may look
// equal after a wrap (a multiple of the modulus of synchronizations in
// between). So a wrap can only make a separating synchronization look
// absent: the pair then goes on to the remaining shortcuts and the race
// checks, as it would had the threads not synchronized. That may add a
// report (which, as any report, makes the current access the granule's
// owner), but never turns a pair the full counters leave unordered into
// an ordered one; and a wrap needs exactly a multiple of the modulus of
// synchronizations between a remembered access and a later check. The
// saturated lane epoch is the same argument for its one use: a saturated
// record is taken for ordered by no collective. Saturation is a cliff (a
// lane past wepUnknown collectives in one block has every later hand-off
// that only collectives order reported), where a wrap needs an exact
// multiple; so the lane epoch gets the wider field, the barrier epoch the
// narrower.
type packed [14]byte

// The narrowed fields' sizes.
const (
	barBits    = 12
	wepBits    = 16
	tileBits   = 4
	gridBits   = 6
	wepUnknown = 1<<wepBits - 1 // a saturated lane epoch

	// maxThreads is the most threads a launch may have: a record's tid,
	// a global id plus one, must fit 32 bits.
	maxThreads = 1<<32 - 1
)

// pack stores r in p, narrowing its counters.
func (p *packed) pack(r *record) {
	binary.LittleEndian.PutUint32(p[0:], uint32(r.tid))
	binary.LittleEndian.PutUint32(p[4:], r.seq)
	sync := r.bar&(1<<barBits-1) | min(r.wep, wepUnknown)<<barBits | r.tile<<(barBits+wepBits)
	binary.LittleEndian.PutUint32(p[8:], sync)
	class := classOf(r.op, r.order, r.scope)
	binary.LittleEndian.PutUint16(p[12:], uint16(r.grid)&(1<<gridBits-1)|uint16(class)<<gridBits)
}

// unpack sets r to the record p holds. Its narrowed counters hold their
// low bits, and a saturated lane epoch becomes the largest epoch, which
// no lane has seen (warp.after), so that no collective orders it.
func (p *packed) unpack(r *record) {
	r.tid = int(binary.LittleEndian.Uint32(p[0:]))
	r.seq = binary.LittleEndian.Uint32(p[4:])
	sync := binary.LittleEndian.Uint32(p[8:])
	r.bar = sync & (1<<barBits - 1)
	r.wep, r.tile = sync>>barBits&wepUnknown, sync>>(barBits+wepBits)
	if r.wep == wepUnknown {
		r.wep = math.MaxUint32
	}
	k := binary.LittleEndian.Uint16(p[12:])
	r.grid = uint32(k & (1<<gridBits - 1))
	r.op, r.order, r.scope = gpu.Op(k>>(gridBits+6)), gpu.Order(k>>(gridBits+3)&7), scope.Scope(k>>gridBits&7)
	r.strong = strongOp(r.op, r.order)
}

// zero reports whether p holds no record (a thread id of 0).
func (p *packed) zero() bool { return binary.LittleEndian.Uint32(p[0:]) == 0 }

// barSince reports whether the barrier epochs of md and cur differ modulo
// 2^barBits: whether a __syncthreads of their block separates them.
func barSince(md, cur *record) bool { return (md.bar^cur.bar)&(1<<barBits-1) != 0 }

// gridSince reports whether the grid.Sync epochs of md and cur differ
// modulo 2^gridBits: whether a grid.Sync separates them.
func gridSince(md, cur *record) bool { return (md.grid^cur.grid)&(1<<gridBits-1) != 0 }

// tileSince reports whether tile-sync counts n and m differ modulo
// 2^tileBits: whether the thread counted a tile sync in between.
func tileSince(n, m uint32) bool { return (n^m)&(1<<tileBits-1) != 0 }
