package iguard

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDoneTable: an ended thread's last device fence is found by its
// global id, in pages allocated only where a thread fenced; a thread
// that never fenced is not stored.
func TestDoneTable(t *testing.T) {
	var d done
	ids := []int{0, 1<<donePageBits - 1, 1 << donePageBits, 1<<36 + 3}
	for i, gid := range ids {
		d.put(gid, uint32(i+1))
	}
	for i, gid := range ids {
		require.EqualValues(t, i+1, d.get(gid), "thread %d", gid)
	}
	require.Zero(t, d.get(5))
	require.Zero(t, d.get(1<<30), "a page nobody fenced in")
	require.Equal(t, 3, donePages(&d))

	th := &thread{threadOwn: threadOwn{gid: 1 << 20}}
	d.fold(th)
	require.Equal(t, 3, donePages(&d), "no fence: nothing stored")
	th.last[fenceDevice].Store(9)
	d.fold(th)
	require.EqualValues(t, 9, d.get(1<<20))
}

// donePages counts d's pages.
func donePages(d *done) int {
	n := 0
	d.pages.Range(func(any, any) bool { n++; return true })
	return n
}
