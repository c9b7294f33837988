package callsite_test

import (
	"math/bits"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/internal/callsite"
)

// where returns the file:line its caller called it from, twice: through
// Return, and through runtime.Caller.
//
//go:noinline
func where() (fast, slow runtime.Frame) {
	var pcs [callsite.Len]uintptr
	callsite.Return(&pcs)
	fast, _ = runtime.CallersFrames(pcs[:1]).Next()
	_, file, line, _ := runtime.Caller(1)
	return fast, runtime.Frame{File: file, Line: line}
}

//go:noinline
func outer() (a, b runtime.Frame) { return where() }

func TestReturnMatchesCaller(t *testing.T) {
	fast, slow := where()
	require.Equal(t, slow.File, fast.File, "Return against runtime.Caller")
	require.Equal(t, slow.Line, fast.Line, "Return against runtime.Caller")
	a, b := outer()
	require.Equal(t, b.Line, a.Line, "through outer: Return against runtime.Caller")
	require.NotEqual(t, fast.Line, a.Line, "through outer")
}

//go:noinline
func two() [callsite.Len]uintptr {
	var pcs [callsite.Len]uintptr
	callsite.Return(&pcs)
	return pcs
}

//go:noinline
func viaOne() [callsite.Len]uintptr { return two() }

func TestSecondAddressIsTheCallersCaller(t *testing.T) {
	pcs := viaOne()
	frames := runtime.CallersFrames(pcs[:])
	first, _ := frames.Next()
	second, _ := frames.Next()
	require.Equal(t, "github.com/warpguard/warpguard/internal/callsite_test.viaOne", first.Function)
	require.Equal(t, "github.com/warpguard/warpguard/internal/callsite_test.TestSecondAddressIsTheCallersCaller", second.Function)
}

func TestNoAllocs(t *testing.T) {
	require.Zero(t, testing.AllocsPerRun(100, func() { two() }))
}

func BenchmarkReturn(b *testing.B) {
	b.Run("callsite.Return", func(b *testing.B) {
		for b.Loop() {
			two()
		}
	})
	b.Run("baseline=runtime.Callers", func(b *testing.B) {
		var pcs [callsite.Len]uintptr
		for b.Loop() {
			runtime.Callers(2, pcs[:])
		}
	})
}

// walkHere returns Walk's call path and runtime.Callers' from the same
// frame: skip 2 starts, as Walk does, at walkHere's return address.
//
//go:noinline
func walkHere() (int, [callsite.WalkLen]uintptr, [callsite.WalkLen]uintptr) {
	var pcs, want [callsite.WalkLen]uintptr
	n, _ := callsite.Walk(&pcs)
	runtime.Callers(2, want[:])
	return n, pcs, want
}

//go:noinline
func walkVia() (int, [callsite.WalkLen]uintptr, [callsite.WalkLen]uintptr) { return walkHere() }

func TestWalkMatchesCallers(t *testing.T) {
	n, pcs, want := walkVia()
	require.GreaterOrEqual(t, n, 3, "frames Walk stored")
	frames := runtime.CallersFrames(pcs[:3])
	wantFrames := runtime.CallersFrames(want[:3])
	for range 3 {
		got, _ := frames.Next()
		w, _ := wantFrames.Next()
		require.Equal(t, w.Function, got.Function, "Walk against runtime.Callers")
		require.Equal(t, w.Line, got.Line, "Walk against runtime.Callers, %s", w.Function)
	}
}

// walkHash returns Walk's call path, its count and its hash.
//
//go:noinline
func walkHash() ([callsite.WalkLen]uintptr, int, uint64) {
	var pcs [callsite.WalkLen]uintptr
	n, h := callsite.Walk(&pcs)
	return pcs, n, h
}

// TestWalkHash: the hash is the one Walk documents, of the addresses it
// stored, and the same path gives the same hash.
func TestWalkHash(t *testing.T) {
	var hashes []uint64
	for range 2 {
		pcs, n, h := walkHash()
		require.Positive(t, n)
		var want uint64
		for _, pc := range pcs[:n] {
			want = bits.RotateLeft64(want, 7) ^ uint64(pc)
		}
		require.Equal(t, want, h)
		hashes = append(hashes, h)
	}
	require.Equal(t, hashes[0], hashes[1], "the same path")
	_, _, other := walkHash()
	require.NotEqual(t, hashes[0], other, "called from another line")
}

// walkLongAt calls itself depth times, then returns WalkLong's call path
// and runtime.Callers' from the same frame.
//
//go:noinline
func walkLongAt(depth int) (int, [callsite.LongLen]uintptr, [callsite.LongLen]uintptr) {
	if depth > 0 {
		return walkLongAt(depth - 1)
	}
	var pcs, want [callsite.LongLen]uintptr
	n, _ := callsite.WalkLong(&pcs)
	runtime.Callers(2, want[:])
	return n, pcs, want
}

// TestWalkLongMatchesCallers: WalkLong stores sixteen frames, each the
// frame runtime.Callers finds.
func TestWalkLongMatchesCallers(t *testing.T) {
	n, pcs, want := walkLongAt(callsite.LongLen)
	require.Equal(t, callsite.LongLen, n, "a full path")
	frames := runtime.CallersFrames(pcs[:])
	wantFrames := runtime.CallersFrames(want[:])
	for i := range callsite.LongLen {
		got, _ := frames.Next()
		w, _ := wantFrames.Next()
		require.Equal(t, w.Function, got.Function, "frame %d", i)
		require.Equal(t, w.Line, got.Line, "frame %d, %s", i, w.Function)
	}
}
