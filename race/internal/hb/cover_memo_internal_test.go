package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// member returns a large vclock, the last member of a lineage of its
// own, at place seq.
func member(seq uint64) *vclock {
	v := wideClock(memoAt, 1)
	v.lin, v.seq = &lineage{tag: new(lineageTag)}, seq
	v.lin.head.Store(seq)
	return v
}

func TestCoverMemoKeepsTheLatestPlacesOfDistinctLineages(t *testing.T) {
	t.Parallel()
	var m *coverMemo
	us := []*vclock{member(3), member(5), member(1), member(2), member(4)}
	for _, u := range us {
		m = m.with(lineagePlace{u.lin, u.seq})
	}
	assert.False(t, m.covers(us[0]), "the oldest place fell out")
	for _, u := range us[1:] {
		assert.True(t, m.covers(u))
		earlier := &vclock{lin: u.lin, seq: u.seq - 1}
		assert.True(t, m.covers(earlier), "an earlier member of a remembered lineage")
		later := &vclock{lin: u.lin, seq: u.seq + 1}
		assert.False(t, m.covers(later), "not a later one")
	}
	again := m.with(lineagePlace{us[4].lin, us[4].seq + 2})
	assert.Equal(t, lineagePlace{us[4].lin, us[4].seq + 2}, again.at[0])
	for _, p := range again.at[1:] {
		assert.NotSame(t, us[4].lin, p.lin, "a lineage's later place replaces its earlier one")
	}
	assert.True(t, again.covers(us[1]), "and keeps the rest")
	assert.False(t, (*coverMemo)(nil).covers(us[1]))
}

// TestNewVclocksInheritWhatTheirInputsCover: a vclock made to cover
// others knows, with no walk, what a walk found they cover, and the
// inputs whose lineage it does not continue.
func TestNewVclocksInheritWhatTheirInputsCover(t *testing.T) {
	t.Parallel()
	other := member(7)
	a, b := member(1), member(1)
	require.True(t, a.remembers(other, nil))
	v := wideClock(memoAt, 2)
	v.descendFrom([]*vclock{a, b})
	require.Same(t, a.lin, v.lin, "v continues a's lineage")
	var n counters
	assert.True(t, v.remembers(other, &n), "what a covered, v covers")
	assert.True(t, v.remembers(b, &n), "and b, whose lineage it does not continue")
	assert.Zero(t, n.joins, "without a walk")
	next := withEpoch(v, at(memoAt+1, 0, 0, 1), nil)
	assert.True(t, next.remembers(other, &n) && next.remembers(b, &n), "the next member of the lineage inherits the memo")
	assert.Zero(t, n.joins)
	lone := member(1)
	assert.Nil(t, lone.covered.Load(), "a vclock made from nothing remembers nothing")
}
