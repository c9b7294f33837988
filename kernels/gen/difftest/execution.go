package difftest

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
)

// An Execution is how a differential run executes a kernel: one thread at
// a time under a seeded schedule, or in parallel under one of the
// runtime's executors, on as many processors as GOMAXPROCS gives. The
// recorder and the detector both see each element's writes and strong
// reads in the order they took effect (gpu.Sequencer), so the oracle
// judges a parallel run as exactly as a deterministic one.
type Execution uint8

// The executions.
const (
	// Deterministic runs one thread at a time on fibers, in the random
	// order the schedule seed picks (gpu.LaunchConfig.Deterministic).
	Deterministic Execution = iota
	// Fibers runs blocks in parallel, each block's threads as fibers
	// switched at barriers and spins.
	Fibers
	// Goroutines runs every thread as a goroutine.
	Goroutines
)

var executionNames = [...]string{Deterministic: "deterministic", Fibers: "fibers", Goroutines: "goroutines"}

// Executions lists every execution, deterministic first.
func Executions() []Execution { return []Execution{Deterministic, Fibers, Goroutines} }

// String names the execution as ParseExecution reads it.
func (e Execution) String() string {
	if int(e) < len(executionNames) {
		return executionNames[e]
	}
	return fmt.Sprintf("Execution(%d)", e)
}

// ParseExecution returns the execution s names.
func ParseExecution(s string) (Execution, error) {
	for i, n := range executionNames {
		if n == s {
			return Execution(i), nil
		}
	}
	return 0, fmt.Errorf("difftest: unknown execution %q; want one of %s", s, strings.Join(executionNames[:], ", "))
}

// config returns the launch configuration of the execution under the
// schedule seed.
func (e Execution) config(schedule uint64) gpu.LaunchConfig {
	cfg := gpu.LaunchConfig{Executor: gpu.Fibers, Schedule: gpu.ScheduleRandom, Seed: schedule}
	switch e {
	case Deterministic:
		cfg.Deterministic = true
	case Goroutines:
		cfg.Executor = gpu.Goroutines
	}
	return cfg
}
