package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/warpguard/warpguard/gpu"
)

// executorFlag is a -executor flag: fibers (the default) or goroutines.
type executorFlag struct{ gpu.Executor }

func (e *executorFlag) String() string { return e.Executor.String() }

func (e *executorFlag) Set(s string) error {
	for _, x := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		if s == x.String() {
			e.Executor = x
			return nil
		}
	}
	return fmt.Errorf("unknown executor %q (want fibers or goroutines)", s)
}

// addExecutor defines -executor on fs.
func addExecutor(fs *flag.FlagSet) *executorFlag {
	e := &executorFlag{gpu.Fibers}
	fs.Var(e, "executor", "how blocks' threads run: fibers, or goroutines (one per thread, finer interleaving)")
	return e
}

// atLeast is a usage error naming flag name when its value v is below
// least.
func atLeast[T int | time.Duration](name string, v, least T) error {
	if v < least {
		return fmt.Errorf("-%s %v: want at least %v", name, v, least)
	}
	return nil
}
