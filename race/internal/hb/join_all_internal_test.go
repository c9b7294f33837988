package hb

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJoinAllAgreesWithJoins checks joinAll against joining its inputs
// two at a time and adding its epochs one at a time: the same block
// entries and thread entries, over inputs that share chunks and
// lineages, cover each other or not, carry block entries that imply
// each other's epochs, and are nil.
func TestJoinAllAgreesWithJoins(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		span := testSpan(r)
		ins := randomClocks(r, span)
		var eps []epoch
		for range r.IntN(4) {
			eps = append(eps, randomGenEpochs(r, 1, span)...)
		}
		var want *vclock
		for _, x := range ins {
			want = join(want, x, nil)
		}
		for _, e := range eps {
			want = joinView(want, view{k: nil, self: e, known: true}, nil)
		}
		got := joinAll(slices.Clone(ins), eps, nil)
		if want == nil {
			require.Nil(t, got)
			continue
		}
		require.Equal(t, want.b, got.b)
		require.Equal(t, want.epochs(), got.epochs())
		requireWellFormed(t, got)
		for _, x := range ins {
			require.True(t, got.covers(x, nil), "the result covers every input")
		}
	}
}

// randomClocks returns up to six vclocks of threads below span, some nil, some joined from
// others (sharing their chunks and lineages), some with block entries.
func randomClocks(r *rand.Rand, span int) []*vclock {
	var out []*vclock
	for range 1 + r.IntN(6) {
		var v *vclock
		switch r.IntN(6) {
		case 0: // nil
		case 2: // a chain of links from an earlier clock, folded or not
			if len(out) > 0 {
				v = chainOf(r, out[r.IntN(len(out))], 1+r.IntN(2*tailCap), span)
				break
			}
			fallthrough
		case 1:
			if len(out) > 0 {
				v = join(out[r.IntN(len(out))], threadsClock(randomGenEpochs(r, 1+r.IntN(4), span)), nil)
				break
			}
			fallthrough
		default:
			v = threadsClock(randomGenEpochs(r, 1+r.IntN(120), span))
		}
		if v != nil && r.IntN(3) == 0 {
			v = withBlock(v, int32(r.IntN(span/64)), uint32(1+r.IntN(2)), nil)
		}
		out = append(out, v)
	}
	return out
}

// TestJoinAllMakesOneClock: inputs that each add something make one
// vclock, allocating less than joins two at a time, and inputs one of
// which covers the rest make none.
func TestJoinAllMakesOneClock(t *testing.T) {
	a := threadsClock([]epoch{at(1, 0, 0, 1), at(70, 1, 0, 1), at(140, 2, 0, 1)})
	b := threadsClock([]epoch{at(2, 0, 0, 1), at(71, 1, 0, 1)})
	c := threadsClock([]epoch{at(3, 0, 0, 1)})
	whole := join(join(a, b, nil), c, nil)
	require.Same(t, whole, joinAll([]*vclock{a, whole, nil, c}, nil, nil), "an input covering the rest is the result")
	e := at(4, 0, 0, 2)
	all := testing.AllocsPerRun(20, func() { joinAll([]*vclock{a, b, c}, []epoch{e}, nil) })
	pairs := testing.AllocsPerRun(20, func() { joinView(join(join(a, b, nil), c, nil), view{self: e, known: true}, nil) })
	t.Logf("joinAll %v allocations, joins two at a time %v", all, pairs)
	require.Less(t, all, pairs)
	require.Zero(t, testing.AllocsPerRun(20, func() { joinAll([]*vclock{a, whole, c}, []epoch{at(1, 0, 0, 1)}, nil) }))
}
