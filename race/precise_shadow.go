package race

import (
	"math"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// ppageBits is log2 of the granules a shadow page of the precise mode
// covers. Pages are made on first touch, so the shadow grows with the
// memory a launch touches.
const ppageBits = 4

// A pshadow maps granule numbers (byte address over Granularity) of one
// address space to pages of locations.
type pshadow map[uint64]*[1 << ppageBits]ploc

// at returns the location of granule g, making its page on first touch.
func (s pshadow) at(g uint64) *ploc {
	pg := s[g>>ppageBits]
	if pg == nil {
		pg = new([1 << ppageBits]ploc)
		s[g>>ppageBits] = pg
	}
	return &pg[g&(1<<ppageBits-1)]
}

// A ploc is the precise mode's shadow of one granule: the accesses a
// later one may still race with (FastTrack's last write and reads, kept
// apart where strength or scope tells them apart), and, on the granule
// an element starts at, the value last written and what a strong read of
// it acquires.
type ploc struct {
	recs   []prec // in one while a single access is kept: no allocation
	one    [1]prec
	wide   *threadSet // strong accesses of device scope or more
	reads  *threadSet // weak reads
	rel    *relInfo
	val    uint64
	hasVal bool // val is known: the location was written or read
	raced  bool // a race was reported here: it is checked no more
}

// A relInfo is what a strong read of a location synchronizes with: the
// releases of the last strong write and of the read-modify-writes that
// continued its release sequence. Each release is joined by the threads
// its scopes reach: dev for every thread of the launch, blocks and warps
// for the threads of one block or warp. ver counts changes, so a poll of
// an unchanged flag is recognised.
type relInfo struct {
	dev    *vclock
	blocks []relPart
	warps  []relPart
	ver    uint64
}

// A relPart is the releases that reach the threads of one block or warp.
type relPart struct {
	id int
	v  *vclock
}

// acquirable returns what a thread at pl acquires from r when its read
// and acquire have scope m: each release whose scopes reach it, which
// the structure already decided, and which m covers.
func (r *relInfo) acquirable(pl scope.Place, m scope.Scope) *vclock {
	var v *vclock
	if m >= scope.Device {
		v = r.dev
	}
	if m >= scope.Block {
		v = join(v, part(r.blocks, pl.Block))
	}
	if m >= scope.Warp {
		v = join(v, part(r.warps, pl.Warp))
	}
	return v
}

func part(ps []relPart, id int) *vclock {
	for _, p := range ps {
		if p.id == id {
			return p.v
		}
	}
	return nil
}

func addPart(ps []relPart, id int, v *vclock) []relPart {
	for i := range ps {
		if ps[i].id == id {
			ps[i].v = join(ps[i].v, v)
			return ps
		}
	}
	return append(ps, relPart{id, v})
}

// written records that write a of th set the location: its value, and
// its release state. A weak or strong store starts a new release
// sequence (a weak one releases nothing); a read-modify-write continues
// the current one. A strong write releases, to the threads of each
// scope s its own scope covers, the thread's release store view rv or
// its last fence of scope s.
func (loc *ploc) written(th *pthread, a *gpu.Access, rv view) {
	loc.val, loc.hasVal = written(a)
	if !a.Op.IsRMW() {
		loc.rel = nil
	}
	if a.Order == gpu.Weak {
		return
	}
	var rvc *vclock
	if rv.known {
		rvc = joinView(nil, rv)
	}
	for s := scope.Warp; s <= min(a.Scope, scope.Device); s++ {
		v := th.released(s)
		if rvc != nil && a.Scope >= s {
			v = rvc
		}
		if v != nil {
			loc.release(th.place, s, v)
		}
	}
}

// release adds v, released by a thread at pl to the threads scope s
// reaches, to the location's release state.
func (loc *ploc) release(pl scope.Place, s scope.Scope, v *vclock) {
	if loc.rel == nil {
		loc.rel = &relInfo{}
	}
	r := loc.rel
	r.ver++
	switch s {
	case scope.Warp:
		r.warps = addPart(r.warps, pl.Warp, v)
	case scope.Block:
		r.blocks = addPart(r.blocks, pl.Block, v)
	default:
		r.dev = join(r.dev, v)
	}
}

// written returns the value write a left in memory, and whether it is
// known: a read-modify-write's result is computed for the element types
// of package gpu.
func written(a *gpu.Access) (uint64, bool) {
	if !a.Op.IsRMW() {
		return a.Arg, true
	}
	if a.Op == gpu.OpCAS || a.Op == gpu.OpExch {
		return a.Arg, true // a failed CAS writes nothing and is not recorded as a write
	}
	return rmwResult(a.Mem.Type, a.Op, a.Old, a.Arg)
}

// rmwResult applies op to the raw bits old and arg of an element of type
// typ.
func rmwResult(typ string, op gpu.Op, old, arg uint64) (uint64, bool) {
	if v, ok := bitsResult(op, old, arg); ok {
		return v, true
	}
	switch typ {
	case "int32", "uint32", "int64", "uint64":
		return intResult(typ, op, old, arg)
	case "float32":
		f, ok := floatResult(op, float64(math.Float32frombits(uint32(old))), float64(math.Float32frombits(uint32(arg))))
		return uint64(math.Float32bits(float32(f))), ok
	case "float64":
		f, ok := floatResult(op, math.Float64frombits(old), math.Float64frombits(arg))
		return math.Float64bits(f), ok
	}
	return 0, false
}

// bitsResult computes the operations defined on raw bits whatever the
// type: and, or, xor, and CUDA's unsigned atomicInc and atomicDec.
func bitsResult(op gpu.Op, old, arg uint64) (uint64, bool) {
	switch op {
	case gpu.OpAnd:
		return old & arg, true
	case gpu.OpOr:
		return old | arg, true
	case gpu.OpXor:
		return old ^ arg, true
	case gpu.OpInc:
		if old >= arg {
			return 0, true
		}
		return old + 1, true
	case gpu.OpDec:
		if old == 0 || old > arg {
			return arg, true
		}
		return old - 1, true
	}
	return 0, false
}

// intResult computes add, sub, min and max on integer bits.
func intResult(typ string, op gpu.Op, old, arg uint64) (uint64, bool) {
	mask := uint64(math.MaxUint64)
	if typ == "int32" || typ == "uint32" {
		mask = math.MaxUint32
	}
	switch op {
	case gpu.OpAdd:
		return (old + arg) & mask, true
	case gpu.OpSub:
		return (old - arg) & mask, true
	}
	less := old < arg
	switch typ {
	case "int32":
		less = int32(old) < int32(arg)
	case "int64":
		less = int64(old) < int64(arg)
	}
	if less == (op == gpu.OpMin) {
		return old, true
	}
	return arg, true
}

// floatResult computes add, sub, min and max on floats.
func floatResult(op gpu.Op, old, arg float64) (float64, bool) {
	switch op {
	case gpu.OpAdd:
		return old + arg, true
	case gpu.OpSub:
		return old - arg, true
	case gpu.OpMin:
		return min(old, arg), true
	case gpu.OpMax:
		return max(old, arg), true
	}
	return 0, false
}
