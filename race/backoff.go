package race

import "runtime"

// Dynamic exponential backoff (iGUARD §6.5; iguard.md §5.2). iGUARD waits
// 100 cycles after a failed attempt on an entry, doubles the wait at each
// failure, and caps it at max(100, 2.5 × launched warps) cycles, the warps
// counted over at most 100 blocks: the more threads may contend, the
// longer a waiter may sleep. A GPU parks nothing; goroutines outnumber the
// cores here, so a waiter that reaches the cap yields its processor
// (runtime.Gosched) rather than sleep, which lets a holder that was
// descheduled finish; below the cap it spins, reading the word, since a
// check holds an entry for tens of ns.
const backoffBase = 4 // spins of the first step

// backoffCap is the most spins of one step for a launch whose blocks hold
// warps warps in all: iGUARD's max(base, 2.5 × warps), in spins.
func backoffCap(warps int) int {
	return max(backoffBase, 5*min(warps, 100*32)/2)
}

// wait is one backoff step of delay spins; at the cap it yields instead.
// A spin reads no memory: the lock word shares its cache line with the
// entry the holder is updating, and each read of it by a waiter took the
// line away from the holder, slowing the check everyone waits for.
func wait(delay, cap int) {
	if delay >= cap {
		runtime.Gosched()
		return
	}
	spin(delay)
}

// spin burns about n × 1 ns without touching shared memory.
//
//go:noinline
func spin(n int) int {
	x := n
	for i := range n {
		x ^= i * 0x9E3779B9 >> 3
	}
	return x
}
