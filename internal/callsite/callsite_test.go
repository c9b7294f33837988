package callsite_test

import (
	"runtime"
	"testing"

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
	if fast.File != slow.File || fast.Line != slow.Line {
		t.Fatalf("Return says %s:%d; runtime.Caller says %s:%d", fast.File, fast.Line, slow.File, slow.Line)
	}
	a, b := outer()
	if a.Line != b.Line || a.Line == fast.Line {
		t.Fatalf("through outer: Return says line %d, runtime.Caller line %d", a.Line, b.Line)
	}
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
	if first.Function != "github.com/warpguard/warpguard/internal/callsite_test.viaOne" {
		t.Fatalf("first frame %q; want viaOne", first.Function)
	}
	if second.Function != "github.com/warpguard/warpguard/internal/callsite_test.TestSecondAddressIsTheCallersCaller" {
		t.Fatalf("second frame %q; want the test", second.Function)
	}
}

func TestNoAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { two() }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
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
	n := callsite.Walk(&pcs)
	runtime.Callers(2, want[:])
	return n, pcs, want
}

//go:noinline
func walkVia() (int, [callsite.WalkLen]uintptr, [callsite.WalkLen]uintptr) { return walkHere() }

func TestWalkMatchesCallers(t *testing.T) {
	n, pcs, want := walkVia()
	if n < 3 {
		t.Fatalf("Walk stored %d frames", n)
	}
	frames := runtime.CallersFrames(pcs[:3])
	wantFrames := runtime.CallersFrames(want[:3])
	for range 3 {
		got, _ := frames.Next()
		w, _ := wantFrames.Next()
		if got.Function != w.Function || got.Line != w.Line {
			t.Fatalf("Walk frame %s:%d; runtime.Callers %s:%d", got.Function, got.Line, w.Function, w.Line)
		}
	}
}
