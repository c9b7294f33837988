package gpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Config is LaunchConfig.
//
// Deprecated: use [LaunchConfig]; package race and package bench have
// configurations of their own.
type Config = LaunchConfig

// LaunchConfig describes one launch, as cudaLaunchConfig_t does: CUDA's
// <<<grid, block, sharedBytes>>> plus the emulator's choices.
type LaunchConfig struct {
	Name          string // names the launch in errors; "kernel" if empty
	Grid          Dim3   // blocks in the grid; zero Y and Z mean 1
	Block         Dim3   // threads per block; zero Y and Z mean 1
	DynamicShared int    // bytes of dynamic shared memory per block (see [DynamicShared])
	Executor      Executor
	// Observer watches the launch; nil for none. The device's observer
	// (DeviceConfig.Observer), if any, watches it as well.
	Observer Observer
	// Cooperative makes this a cooperative launch
	// (cudaLaunchCooperativeKernel): every block must be resident at once,
	// which [GridGroup.Sync] needs.
	Cooperative bool
	// Divergence chooses what a divergent barrier or collective does (see
	// [DivergenceMode]); the zero value is DivergenceFail. Every mode
	// records each barrier arrival's call site from two frame pointers;
	// DivergenceAllow skips comparing them.
	Divergence DivergenceMode
	// Watchdog is the livelock window (see [ErrLivelock]): a launch in
	// which, for this long, every unfinished thread spins or waits and no
	// thread makes progress stops with a *[StallError] listing them. Zero
	// takes DeviceConfig.Watchdog; a negative value turns the watchdog off
	// for this launch.
	Watchdog time.Duration
	// Timeout, if positive, stops a launch still running after it, like a
	// context deadline; the error lists where every unfinished thread is.
	Timeout time.Duration
	// Schedule orders blocks, thread starts and wake-ups (see [Schedule]);
	// Seed seeds ScheduleRandom.
	Schedule Schedule
	Seed     uint64
	// Deterministic runs the launch so that, for a fixed Schedule and Seed,
	// its threads interleave identically on every run: resident blocks take
	// turns on one token, switching only where a thread waits or yields
	// (under ScheduleRandom, also after some fences). It requires the
	// Fibers executor.
	Deterministic bool
}

// maxErrors bounds the thread errors a launch keeps; the rest are counted.
const maxErrors = 64

// launch is the state of one running launch, shared by its slots.
type launch struct {
	d      *Device
	g      Grid
	cfg    LaunchConfig
	kernel Kernel
	slots  int

	next atomic.Int64 // next block to schedule
	// stuckSlots counts slots whose block spins without progress while
	// blocks wait to be scheduled (see watchResidency).
	stuckSlots atomic.Int32
	stop       atomic.Bool // set once by halt; threads poll it
	// ended is always set: a thread whose kernel returned polls it in
	// place of stop, so that any later use of the Thread fails (see
	// ErrThreadEnded).
	ended    atomic.Bool
	stopCh   chan struct{}
	haltOnce sync.Once

	mu      sync.Mutex // guards errs, others and dropped
	errs    []*ThreadError
	others  []error // divergence errors and warnings, in the order found
	dropped int

	coop      *coop       // grid-sync state of a cooperative launch; nil otherwise
	seq       *sequencers // the observers that sequence accesses (see Sequencer); nil if none
	reporting atomic.Bool // unfinished threads report where they are as they stop
	report    stallReport
	turns     *turns // the token of a Deterministic launch; nil otherwise
	// preemptive: a Deterministic launch under ScheduleRandom, whose
	// threads may yield after a fence (see fiberExec.preempt).
	preemptive bool
	sched      scheduler
	// window is the livelock watchdog's window, 0 if off.
	window time.Duration
	ends   endMarks
	watch  []slotWatch // per slot
}

// slotWatch is what the watchdogs read of a slot from other goroutines.
type slotWatch struct {
	// quietAt is when the slot last confirmed its block stuck, or a slot
	// state (see watchLivelock).
	quietAt atomic.Int64
	// running is 1 + the id of the block the slot runs, or 0, for a
	// launch that returns without the threads it cannot stop.
	running atomic.Int64
}

// Launch runs kernel k over the grid cfg describes and returns when every
// thread has finished, like a kernel launch followed by
// cudaDeviceSynchronize. An invalid configuration is rejected before any
// thread runs.
//
// The error joins every thread's error (an out-of-range index, a panic with
// its stack, ...), each naming the thread and block, in global thread
// order; threads that fail alike at one kernel line (a misused intrinsic)
// give one error counting them (ThreadError.Threads), and past 64
// distinct errors the rest are counted. A panic stops the whole
// launch, as a fault aborts a CUDA kernel: the other threads stop at their
// next runtime call and every barrier is released.
//
// A launch never hangs on a barrier. Threads that do not reach a barrier or
// collective together give a *[DivergenceError] (see [DivergenceMode]). If
// every live thread waits at a barrier or collective no other can complete,
// the launch stops at once with a *[StallError] wrapping [ErrDeadlock].
// Cancelling ctx, its deadline passing or LaunchConfig.Timeout elapsing stops
// the launch the same way, and the *StallError wraps ctx.Err() and its
// cause; either way it lists, per block, where each unfinished thread was:
// the barrier or collective and its file:line, or the line (and access) it
// was running, as a spinning thread is. With no deadline, the livelock
// watchdog (LaunchConfig.Watchdog) stops a launch whose threads all spin or
// wait without progress, with a *StallError wrapping [ErrLivelock].
//
// In the terminology of [the Go memory model], every write made by every
// thread of the launch "synchronizes before" Launch returns, and the call
// to Launch "synchronizes before" every thread starts. No goroutine started
// by the launch is running when Launch returns, except those of blocks a
// StallError names in LeftRunning: a thread that never calls into the
// runtime, or that recovers the panic every runtime call stops it with,
// cannot be stopped, and Launch returns without it 2 seconds after the
// launch stopped, whatever stopped it, even with a context that has no
// deadline. An error the runtime raised in a thread is reported even if
// the kernel recovered its panic. The fibers the launch ran its threads on
// stay with the device, idle, for its next launches, until [Device.Close].
// A launch on a closed device returns an error wrapping [ErrDeviceClosed].
//
// [the Go memory model]: https://go.dev/ref/mem
func (d *Device) Launch(ctx context.Context, cfg LaunchConfig, k Kernel) error {
	if err := d.usable(ctx); err != nil {
		return err
	}
	l, err := d.newLaunch(cfg, k)
	if err != nil {
		return err
	}
	if dl := d.cfg.Deadline; !dl.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, dl, fmt.Errorf("%w: device %s's deadline, %v", context.DeadlineExceeded, d.cfg.Name, dl.Format(time.TimeOnly)))
		defer cancel()
	}
	if err := notStarted(ctx); err != nil {
		return fmt.Errorf("gpu: %s: not started: %w", l.g.Name, err)
	}
	if d.fibers.isClosed() {
		return fmt.Errorf("gpu: %s: not started on %s: %w", l.g.Name, d.cfg.Name, ErrDeviceClosed)
	}
	return l.run(ctx)
}

// notStarted returns the error of a launch whose context ended before it
// started, nil if the context has not ended: ctx's error, and its cause
// where that says more.
func notStarted(ctx context.Context) error {
	err := ctx.Err()
	switch cause := context.Cause(ctx); {
	case err == nil || errors.Is(cause, err):
		return cause
	default:
		return fmt.Errorf("%w: %w", err, cause)
	}
}

func (l *launch) run(ctx context.Context) error {
	if l.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		cause := fmt.Errorf("%w after %v", ErrTimeout, l.cfg.Timeout)
		ctx, cancel = context.WithTimeoutCause(ctx, l.cfg.Timeout, cause)
		defer cancel()
	}
	l.ends.since = time.Now()
	l.ended.Store(true)
	halted := make(chan struct{})
	cancelWatch := context.AfterFunc(ctx, func() { l.reporting.Store(true); l.halt(); close(halted) })
	if l.cfg.Observer != nil {
		l.g.Done = ctx.Done()
		if err := l.launchObserved(true, nil); err != nil {
			if !cancelWatch() {
				<-halted
			}
			return l.refused(ctx, err)
		}
	}
	l.await(l.startSlots())
	if !cancelWatch() {
		<-halted // the AfterFunc goroutine must not outlive Launch
	}
	err := l.result(ctx)
	if l.cfg.Observer != nil {
		if perr := l.launchObserved(false, err); perr != nil {
			err = errors.Join(err, perr)
		}
	}
	return err
}

// refused returns the error of a launch whose Observer's LaunchStart
// failed with err (launchObserved's): err, and the launch's context's
// error before the panic's where the context had ended, as a LaunchStart
// that waits stops waiting then.
func (l *launch) refused(ctx context.Context, err error) error {
	if cerr := notStarted(ctx); cerr != nil {
		return fmt.Errorf("gpu: %s: not started: %w: %w", l.g.Name, cerr, errors.Unwrap(err))
	}
	return err
}

// startSlots starts the launch's slots, each on a worker of the device's
// pool, and returns a channel closed when the last of them has returned
// and its worker is back in the pool. Each slot's return synchronizes
// before the close (a slot ends even through runtime.Goexit, counted by
// its worker), so a receive from the channel observes every write of
// every thread.
func (l *launch) startSlots() <-chan struct{} {
	left := &slotsLeft{done: make(chan struct{})}
	left.n.Store(int64(l.slots))
	for i := range l.slots {
		l.d.workers.Go(left, func() { l.runSlot(i) })
	}
	return left.done
}

// slotsLeft counts a launch's slots still running and closes done when
// the last has returned and its worker is back in the device's pool.
type slotsLeft struct {
	n    atomic.Int64
	done chan struct{}
}

// Done counts one slot's end.
func (s *slotsLeft) Done() {
	if s.n.Add(-1) == 0 {
		close(s.done)
	}
}

// runSlot is resident block slot i: it runs blocks until none are left.
func (l *launch) runSlot(i int) {
	s := newSlot(l, i)
	defer s.close()
	if l.window > 0 {
		defer l.watch[i].quietAt.Store(slotDone)
	}
	if l.turns != nil {
		l.turns.hold(i)
		defer l.turns.leave(i)
	}
	for !l.stop.Load() {
		k := int(l.next.Add(1) - 1)
		if k >= l.g.Blocks {
			return
		}
		s.runBlock(l.sched.block(k))
		if l.window > 0 {
			l.ends.blocks.Add(1)
		}
	}
}

// halt stops the launch: threads end at their next runtime call and blocked
// threads are released.
func (l *launch) halt() {
	l.haltOnce.Do(func() {
		l.stop.Store(true)
		close(l.stopCh)
	})
}

// record keeps a thread's error (see keep).
func (l *launch) record(e *ThreadError) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keep(e)
}

// recordOther keeps an error that is not one thread's, such as a
// divergence.
func (l *launch) recordOther(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.others) < maxErrors {
		l.others = append(l.others, err)
		return
	}
	l.dropped++
}

// result joins the recorded errors: the stall report if the launch stalled
// or ctx ended it, divergences, then thread errors in global thread order.
func (l *launch) result(ctx context.Context) error {
	var errs []error
	if err := ctx.Err(); err == nil || !l.stop.Load() {
		if s := l.stallError(nil, nil); s != nil {
			errs = append(errs, s)
		}
	} else if s := l.stallError(err, context.Cause(ctx)); s != nil {
		errs = append(errs, s)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.SortStableFunc(l.errs, func(a, b *ThreadError) int { return cmp.Compare(a.GlobalID, b.GlobalID) })
	errs = append(errs, l.others...)
	for _, e := range l.errs {
		errs = append(errs, e)
	}
	if l.dropped > 0 {
		errs = append(errs, fmt.Errorf("gpu: %s: %d more thread errors not shown", l.g.Name, l.dropped))
	}
	return errors.Join(errs...)
}
