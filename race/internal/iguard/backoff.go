package iguard

import "runtime"

// Dynamic exponential backoff (iGUARD, SOSP'21, §6.5). iGUARD waits
// 100 cycles after a failed attempt on an entry, doubles the wait at each
// failure, and caps it at max(100, 2.5 × launched warps) cycles, the warps
// counted over at most 100 blocks: the more threads may contend, the
// longer a waiter may sleep. Tuned for goroutines: a step spins on
// registers, and the first step is 32 spins, about as long as a short
// check holds an entry; and since goroutines outnumber the cores, every
// fourth step at the cap yields the processor (runtime.Gosched) instead,
// which lets a holder that was descheduled, or a thread the waiter's
// kernel spins for, run. Yielding at every step at the cap would yield on
// most contended checks of small launches, where the holder is running
// and about to release.
const backoffBase = 32 // spins of the first step

// backoffCap is the most spins of one step for a launch whose blocks hold
// warps warps in all: iGUARD's max(base, 2.5 × warps), in spins.
func backoffCap(warps int) int {
	return max(backoffBase, 5*min(warps, 100*32)/2)
}

// wait is backoff step n (from 0), of delay spins; a step at the cap
// whose number is a multiple of yieldEvery, less one, yields instead. A
// spin reads no memory: the lock word shares its cache line with the
// entry the holder is updating, and each read of it by a waiter took the
// line away from the holder, slowing the check everyone waits for.
func wait(delay, cap, n int) {
	if delay >= cap && n%yieldEvery == yieldEvery-1 {
		runtime.Gosched()
		return
	}
	spin(delay)
}

// yieldEvery is how many steps a waiter at the cap takes per yield.
const yieldEvery = 4

// spin burns n register-only iterations without touching shared memory.
//
//go:noinline
func spin(n int) uint {
	x := uint(n)
	for i := range uint(n) {
		x ^= i * 0x9E3779B9 >> 3
	}
	return x
}
