package gpu

import "time"

// abandonGrace is how long Launch waits, once the launch has stopped, for
// its threads to stop. A thread stops at its next runtime call; one that
// never makes one (a `for {}`), or that recovers every panic the runtime
// stops it with, cannot be stopped, and Launch returns without it after
// this grace, naming its block in the StallError.
const abandonGrace = 2 * time.Second

// await waits for done, closed when the launch's slots have returned. Once
// the launch has stopped, however it stopped (its context ended,
// LaunchConfig.Timeout, the watchdog, a deadlock, a panic), it waits at most
// abandonGrace more, and if slots still run then, it records their blocks
// as left running and returns anyway: Launch returns even if the context
// has no deadline.
func (l *launch) await(done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-l.stopCh:
	}
	t := time.NewTimer(abandonGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		l.abandon()
	}
}

// abandon records the blocks whose slots have not returned.
func (l *launch) abandon() {
	l.report.mu.Lock()
	defer l.report.mu.Unlock()
	for i := range l.watch {
		if id := l.watch[i].running.Load(); id > 0 {
			l.report.leftRunning = append(l.report.leftRunning, l.g.GridDim.index(int(id-1)))
		}
	}
}
