package oracle

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// granuleBytes is the size of the memory unit races are listed by.
const granuleBytes = 4

// A Granule is one 4-byte unit of one memory: a global buffer, or one
// block's instance of a shared array.
type Granule struct {
	Mem   *gpu.Memory // the memory the granule is in
	Index int         // the granule's byte offset in Mem, divided by 4
}

// String names the granule, as `global "x" granule 3`.
func (g Granule) String() string { return fmt.Sprintf("%v granule %d", g.Mem, g.Index) }

// Compare orders granules by memory id, then index.
func (g Granule) Compare(o Granule) int {
	if c := cmp.Compare(g.Mem.ID, o.Mem.ID); c != 0 {
		return c
	}
	return cmp.Compare(g.Index, o.Index)
}

// A Race is the first racing pair the oracle found on one granule.
type Race struct {
	Granule Granule   // where the accesses meet
	Kind    kind.Kind // the synchronization missing between them (see kindOf)
	First   Event     // the access recorded first
	Second  Event     // the later access, which the first does not happen before
}

// String describes the race in one line, naming each access's thread by
// its rank in its block, as `missing-device-fence on global "x" granule 0:
// weak store by thread 0 of block 0, weak load by thread 0 of block 1`.
func (r Race) String() string {
	return fmt.Sprintf("%v on %v: %s, %s", r.Kind, r.Granule, describe(&r.First), describe(&r.Second))
}

// describe names an access and its thread, as "relaxed device atomicAdd
// by thread 3 of block 1".
func describe(e *Event) string {
	a := &e.Access
	op := "weak " + a.Op.String()
	if a.Order != gpu.Weak {
		op = fmt.Sprintf("%v %v %v", a.Order, a.Scope, a.Op)
	}
	return fmt.Sprintf("%s by thread %d of block %d", op, e.Rank, e.Thread.Block)
}

// A Result is the oracle's verdict on one trace: one race per racing
// granule, ordered by granule.
type Result struct {
	Races []Race // one per racing granule, ordered by granule
}

// Granules returns the racing granules, in order.
func (r *Result) Granules() []Granule {
	gs := make([]Granule, len(r.Races))
	for i, rc := range r.Races {
		gs[i] = rc.Granule
	}
	return gs
}

// Analyze returns the races of the execution tr records.
func Analyze(tr *Trace) *Result {
	g := build(tr)
	rc := closure(g)
	res := &Result{}
	for gr, accs := range byGranule(tr) {
		if a, b, ok := firstRace(tr, rc, accs); ok {
			res.Races = append(res.Races, Race{Granule: gr, Kind: kindOf(&tr.Events[a], &tr.Events[b]),
				First: tr.Events[a], Second: tr.Events[b]})
		}
	}
	slices.SortFunc(res.Races, func(a, b Race) int { return a.Granule.Compare(b.Granule) })
	return res
}

// byGranule returns the accesses of tr on each granule, in memory order.
func byGranule(tr *Trace) map[Granule][]int {
	m := make(map[Granule][]int)
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.What != AccessEvent {
			continue
		}
		lo, hi := e.Access.Offset, e.Access.Offset+uint64(e.Access.Size)
		for k := lo / granuleBytes; k*granuleBytes < hi; k++ {
			gr := Granule{e.Access.Mem, int(k)}
			m[gr] = append(m[gr], i)
		}
	}
	return m
}

// firstRace returns the first pair of accs, by the later access's place in
// memory order and then the earlier's, that races.
//
// Earlier accesses are kept in groups of one thread's accesses alike in
// everything that decides whether they race with another (see
// accessShape); a group's members are in program order, so those that
// happen before a later access b are a prefix of it, and the first that
// does not is found by binary search. So b costs a step per group, not
// per earlier access: a lock word polled thousands of times is not
// walked pair by pair.
func firstRace(tr *Trace, rc *reach, accs []int) (int, int, bool) {
	if len(accs) < 2 {
		return 0, 0, false // most granules of a trace: no pair, no groups to make
	}
	var groups [][]int
	index := make(map[accessShape]int)
	for _, b := range accs {
		eb := &tr.Events[b]
		if a := firstRacer(tr, rc, groups, b, eb); a >= 0 {
			return a, b, true
		}
		k := shapeOf(eb)
		i, ok := index[k]
		if !ok {
			i, groups = len(groups), append(groups, nil)
			index[k] = i
		}
		groups[i] = append(groups[i], b)
	}
	return 0, 0, false
}

// firstRacer returns the first access of groups that races with access
// b, event e, and does not happen before it; -1 if none.
func firstRacer(tr *Trace, rc *reach, groups [][]int, b int, e *Event) int {
	first := -1
	for _, g := range groups {
		if !races(&tr.Events[g[0]], e) {
			continue
		}
		i, _ := slices.BinarySearchFunc(g, b, func(a, later int) int {
			if rc.before(a, later) {
				return -1
			}
			return 1
		})
		if i < len(g) && (first < 0 || g[i] < first) {
			first = g[i]
		}
	}
	return first
}

// An accessShape is what decides whether an access races with another:
// its thread, whether it stored, its order, scope, offset and size.
// Accesses of one shape race with the same accesses.
type accessShape struct {
	place  scope.Place
	stores bool
	order  gpu.Order
	scope  scope.Scope
	offset uint64
	size   uint8
}

// shapeOf returns the shape of e's access.
func shapeOf(e *Event) accessShape {
	a := &e.Access
	return accessShape{e.Thread, e.Stores(), a.Order, a.Scope, a.Offset, a.Size}
}

// races reports whether accesses a and b conflict and are not morally
// strong: whether they race unless happens-before orders them.
func races(a, b *Event) bool {
	if a.Thread.Thread == b.Thread.Thread || !a.Stores() && !b.Stores() {
		return false
	}
	return !morallyStrong(a, b)
}

// morallyStrong reports whether conflicting accesses a and b are both
// strong, on the same bytes, each of a scope covering the other's thread,
// and not both volatile in one warp (see warpVolatile).
func morallyStrong(a, b *Event) bool {
	return a.Strong() && b.Strong() && a.Access.Offset == b.Access.Offset && a.Access.Size == b.Access.Size &&
		covers(a.Access.Scope, a, b) && covers(b.Access.Scope, a, b) && !warpVolatile(a, b)
}

// warpVolatile reports whether a and b are volatile accesses of two lanes
// of one warp: the warp-synchronous rule. PTX calls such a pair morally
// strong, but the pre-Volta idiom it allows (lanes reading each other's
// volatile shared memory with no __syncwarp) breaks under independent
// thread scheduling, so the model counts the pair as a data race unless
// happens-before orders it. Between warps volatile stays strong, and
// atomics stay strong everywhere.
func warpVolatile(a, b *Event) bool {
	return a.Access.Order == gpu.Volatile && b.Access.Order == gpu.Volatile &&
		scope.Common(a.Thread, b.Thread) == scope.Warp
}

// kindOf names the race of a and b by what is missing: __syncwarp between
// two volatile accesses of one warp, a wide enough scope between two
// other strong accesses, else the synchronization of the narrowest scope
// holding both threads.
func kindOf(a, b *Event) kind.Kind {
	if a.Strong() && b.Strong() && !warpVolatile(a, b) {
		return kind.ScopedAtomic
	}
	switch scope.Common(a.Thread, b.Thread) {
	case scope.Warp:
		return kind.MissingSyncwarp
	case scope.Block:
		return kind.MissingBlockFence
	}
	return kind.MissingDeviceFence
}
