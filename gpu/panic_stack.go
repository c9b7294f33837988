package gpu

import (
	"bytes"
	"strings"
)

// A PanicError's stack is the panicking thread's, taken where the
// runtime recovered it, so it also holds the frames of the recovery
// (runtime/debug.Stack and the runtime's deferred call that asked for
// it) above the panic, and the executor's frames that called the kernel
// below it. kernelStack keeps the goroutine's header and the frames from
// the panic call down to the last frame of code outside the runtime: the
// kernel, what it called, and any code of the runtime it called that
// panicked (a callback it ran).

// kernelStack returns the part of stack, as debug.Stack writes it, that
// shows the panic in kernel code: the goroutine line, then each frame
// from the first panic call down to the last one that is not the
// runtime's, Go's or iter's. A stack it does not recognize is returned
// as it is.
func kernelStack(stack []byte) []byte {
	lines := strings.Split(strings.TrimRight(string(stack), "\n"), "\n")
	start := panicFrame(lines)
	if start < 0 {
		return stack
	}
	end := start + 1
	for i := end; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "\t") && !executorFrame(lines[i]) {
			end = i + 1
		}
	}
	for end < len(lines) && strings.HasPrefix(lines[end], "\t") {
		end++ // the last kept frame's file line
	}
	var b bytes.Buffer
	b.WriteString(lines[0])
	for _, l := range lines[start:end] {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// panicFrame returns the index of the function line of the first panic
// frame among lines, the goroutine line first, or -1. A frame's function
// line is followed by its file's, which starts with a tab.
func panicFrame(lines []string) int {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
		return -1
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			return i
		}
	}
	return -1
}

// executorFrame reports whether a frame's function line is the runtime's
// (package gpu, not its tests), Go's runtime's, iter's, or the line
// naming the goroutine's creator.
func executorFrame(fn string) bool {
	for _, p := range [...]string{"github.com/warpguard/warpguard/gpu.", "runtime.", "iter.", "created by "} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
