package iguard

import "encoding/binary"

// A packed is a record as an entry stores it, in 14 bytes, so that an
// entry's three records, its lock and repeat words, its flags and its
// lockset fit one cache line:
//
//	bytes  0..3   the thread's global id plus one (record.tid)
//	bytes  4..11  the fence seq in bits 0..21, the block's barrier epoch
//	              in bits 22..37, the lane epoch in bits 38..53, the
//	              tile-sync count in bits 54..63
//	bytes 12..13  the grid.Sync epoch in bits 0..5, the access's class
//	              (classOf) in bits 6..15
//
// Every counter is kept whole or not at all: a record whose counters do
// not fit these fields is not packed (pack says so), and its entry keeps
// all three records whole in its page's wide array from then on (see
// shadow.save); so does a record of a thread whose id plus one needs more
// than 32 bits.
//
// Narrowing a counter instead, and comparing it modulo its width, would be
// sound (a wrap can only make a separating synchronization look absent,
// which adds a report and never hides one), but the reports it adds are
// false ones on ordinary iterative kernels: a table filled once and read
// every round of a loop with a __syncthreads per round would be reported
// at round 2^16. TestLongSyncLoops keeps such loops clean. The widths
// below make the wide form rare: a record goes wide only after its thread's
// 2^22nd fence, its block's 2^16th barrier, its lane's 2^16th warp
// collective, its 2^10th tile sync, the launch's 64th grid.Sync, or
// its thread's 2^32nd in the grid.
type packed [14]byte

// The packed fields' widths.
const (
	seqBits  = 22
	barBits  = 16
	wepBits  = 16
	tileBits = 10
	gridBits = 6

	barShift  = seqBits
	wepShift  = barShift + barBits
	tileShift = wepShift + wepBits

	// maxTid is the largest record.tid a packed record holds.
	maxTid = 1<<32 - 1
)

// fits reports whether r's counters fit a packed record's fields.
func (r *record) fits() bool {
	return r.tid <= maxTid && r.seq>>seqBits|r.bar>>barBits|r.wep>>wepBits|r.tile>>tileBits|r.grid>>gridBits == 0
}

// pack stores r in p and reports whether it fit; if not, p is unchanged.
func (p *packed) pack(r *record) bool {
	if !r.fits() {
		return false
	}
	p.put(r)
	return true
}

// put stores r, which fits, in p.
func (p *packed) put(r *record) {
	binary.LittleEndian.PutUint32(p[0:], uint32(r.tid))
	sync := uint64(r.seq) | uint64(r.bar)<<barShift | uint64(r.wep)<<wepShift | uint64(r.tile)<<tileShift
	binary.LittleEndian.PutUint64(p[4:], sync)
	class := classOf(r.op, r.order, r.scope)
	binary.LittleEndian.PutUint16(p[12:], uint16(r.grid)|uint16(class)<<gridBits)
}

// unpack sets r to the record p holds.
func (p *packed) unpack(r *record) {
	r.tid = int(binary.LittleEndian.Uint32(p[0:]))
	sync := binary.LittleEndian.Uint64(p[4:])
	r.seq = uint32(sync & (1<<seqBits - 1))
	r.bar = uint32(sync >> barShift & (1<<barBits - 1))
	r.wep = uint32(sync >> wepShift & (1<<wepBits - 1))
	r.tile = uint32(sync >> tileShift)
	k := binary.LittleEndian.Uint16(p[12:])
	r.grid = uint32(k & (1<<gridBits - 1))
	r.op, r.order, r.scope = classParts(uint64(k >> gridBits))
	r.strong = strongOp(r.op, r.order)
}

// zero reports whether p holds no record (a thread id of 0).
func (p *packed) zero() bool { return binary.LittleEndian.Uint32(p[0:]) == 0 }
