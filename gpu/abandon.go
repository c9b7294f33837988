package gpu

import (
	"context"
	"sync"
	"time"
)

// abandonGrace is how long Launch waits, once its context has ended, for
// its threads to stop. A thread stops at its next runtime call; one that
// never makes one (a `for {}`) cannot be stopped, and Launch returns
// without it after this grace, naming its block in the StallError.
const abandonGrace = 2 * time.Second

// await waits for the launch's slots to return. Once ctxDone is closed it
// waits at most abandonGrace more, and if slots still run then, it records
// their blocks as left running and returns anyway. A context that can
// never end (ctx.Done() nil) costs no goroutine.
func (l *launch) await(wg *sync.WaitGroup, ctx context.Context, ctxDone <-chan struct{}) {
	if ctx.Done() == nil {
		wg.Wait()
		return
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctxDone:
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
