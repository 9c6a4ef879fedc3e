package dispatch

import (
	"context"
	"runtime"
	"time"
)

// WaitMode is how the dispatcher waits for a send's intended time.
type WaitMode int

const (
	// WaitFine (the default) waits on the kernel's high-resolution timer:
	// a wait of more than fineWindow parked on a timerfd watched by the
	// runtime's poller, a shorter one asleep in the kernel. It is precise
	// to the timer's slack of about 50 µs, where the runtime timer alone
	// wakes an idle process up to about 1 ms late. Where there is no
	// timerfd it is WaitTimer.
	WaitFine WaitMode = iota
	// WaitTimer sleeps on the runtime timer alone: the send lag p99 sits
	// near 1 ms at any rate. Kept to measure the others against.
	WaitTimer
	// WaitSpin sleeps on the timer until fineWindow before the send, then
	// yields in a loop until it is due: the most punctual, at the price of
	// a busy core whenever sends are less than fineWindow apart.
	WaitSpin
)

// fineWindow is how close to a send WaitSpin's timer hands over (it must
// exceed the poller's 1 ms granularity and its timer slack), and the
// longest wait WaitFine sleeps through in the kernel rather than parks.
const fineWindow = 2 * time.Millisecond

// yieldAbove is the least time before a send for which the fine wait
// yields to the requests it started before sleeping: about what one
// request runs before it blocks on the network.
const yieldAbove = 100 * time.Microsecond

// String names the mode as the benchmarks print it.
func (m WaitMode) String() string {
	switch m {
	case WaitFine:
		return "fine"
	case WaitTimer:
		return "timer"
	case WaitSpin:
		return "spin"
	}
	return "unknown"
}

// ParseWaitMode reads a mode's name.
func ParseWaitMode(s string) (WaitMode, bool) {
	for _, m := range []WaitMode{WaitFine, WaitTimer, WaitSpin} {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

// waiter waits for each send's time in one mode. One goroutine uses it,
// from newWaiter to close.
type waiter struct {
	mode  WaitMode
	timer *time.Timer
	// kernel is WaitFine's timer where the system has one; unwatch ends
	// the watch on the context that fires it early.
	kernel  *kernelTimer
	unwatch func() bool
}

// newWaiter returns a waiter for mode whose waits end early when ctx does.
func newWaiter(ctx context.Context, mode WaitMode) *waiter {
	w := &waiter{mode: mode, timer: time.NewTimer(time.Hour)}
	w.timer.Stop()
	if mode == WaitFine {
		if k, err := newKernelTimer(); err == nil {
			w.kernel = k
			w.unwatch = context.AfterFunc(ctx, func() { _ = k.arm(0) })
		} else {
			w.mode = WaitTimer
		}
	}
	return w
}

// close releases the kernel timer.
func (w *waiter) close() {
	w.timer.Stop()
	if w.kernel != nil {
		w.dropKernel()
	}
}

// until returns when at has come, or false as soon as ctx is done.
//
// A wait of more than fineWindow parks on the kernel timer, set for the
// send itself. A shorter one sleeps in the kernel holding its thread (a
// nanosleep, not interrupted by ctx): at a thousand sends a second and
// more, where every wait is short, parking and waking through the poller
// cost twice to four times the CPU of the sleep. At a hundred, a thread
// held in a sleep kept the runtime's monitor polling every 20 µs for as
// long (the fine wait was a runtime timer, then 2 ms of nanosleep), and a
// whole llmslo run cost 5 to 20% more CPU.
func (w *waiter) until(ctx context.Context, at time.Time) bool {
	if w.kernel == nil {
		return waitUntil(ctx, w.mode, w.timer, at)
	}
	yielded := false
	for {
		if ctx.Err() != nil {
			return false
		}
		wait := time.Until(at)
		switch {
		case wait <= 0:
			return true
		case wait <= fineWindow && !yielded && wait > yieldAbove:
			// The request just started is likely queued behind this
			// goroutine: running it now, rather than having another
			// thread woken to take it while this one sleeps, halves what
			// the sleep costs. Not when the send is close: the yield
			// could overshoot it.
			runtime.Gosched()
			yielded = true
		case wait <= fineWindow:
			fineSleep(wait)
		default:
			if w.kernel.arm(wait) != nil {
				w.dropKernel()
				return w.until(ctx, at)
			}
			// ctx may have ended, and fired the timer, before it was armed.
			if ctx.Err() != nil {
				return false
			}
			// An expiry left from the context's firing, or one that came
			// early, ends this read early: the loop sets the timer again.
			if w.kernel.wait() != nil {
				w.dropKernel()
				return w.until(ctx, at)
			}
		}
	}
}

// dropKernel falls back to the runtime timer for this wait and the rest,
// when the kernel timer fails: once, not at every send.
func (w *waiter) dropKernel() {
	w.unwatch()
	w.kernel.close()
	w.kernel, w.mode = nil, WaitTimer
}

// waitUntil is the runtime timer's wait (WaitTimer, WaitSpin): it returns
// when at has come, or false as soon as ctx is done.
func waitUntil(ctx context.Context, mode WaitMode, timer *time.Timer, at time.Time) bool {
	wait := time.Until(at)
	if wait <= 0 {
		return true
	}
	coarse := wait
	if mode == WaitSpin {
		coarse = wait - fineWindow
	}
	if coarse > 0 {
		timer.Reset(coarse)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return false
		}
	}
	for mode == WaitSpin {
		if time.Until(at) <= 0 {
			return ctx.Err() == nil
		}
		runtime.Gosched()
	}
	return true
}
