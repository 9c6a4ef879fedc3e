package dispatch

import (
	"context"
	"runtime"
	"time"
)

// WaitMode is how the dispatcher waits for a send's intended time.
type WaitMode int

const (
	// WaitFine (the default) sleeps on the runtime timer until fineWindow
	// before the send, then in the kernel for the rest. Go's poller sleeps
	// in whole milliseconds, so a timer alone wakes an idle process up to
	// about 1 ms late; the kernel's sleep is good to tens of µs and burns
	// no CPU. Where there is no such sleep it is WaitTimer.
	WaitFine WaitMode = iota
	// WaitTimer sleeps on the runtime timer alone: the send lag p99 sits
	// near 1 ms at any rate. Kept to measure the others against.
	WaitTimer
	// WaitSpin sleeps on the timer until fineWindow before the send, then
	// yields in a loop until it is due: the most punctual, at the price of
	// a busy core whenever sends are less than fineWindow apart.
	WaitSpin
)

// fineWindow is how close to a send the runtime timer hands over: it must
// exceed the poller's 1 ms granularity and its timer slack.
const fineWindow = 2 * time.Millisecond

// yieldAbove is the least time before a send for which the dispatcher
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

// waitUntil returns when at has come, or false as soon as ctx is done
// (the kernel's sleep, at most fineWindow, is not interrupted by ctx).
func waitUntil(ctx context.Context, mode WaitMode, timer *time.Timer, at time.Time) bool {
	wait := time.Until(at)
	if wait <= 0 {
		return true
	}
	coarse := wait
	if mode != WaitTimer && (mode == WaitSpin || fineSleepWorks) {
		coarse = wait - fineWindow
	}
	if coarse > 0 {
		timer.Reset(coarse)
		select {
		case <-timer.C:
		case <-ctx.Done():
			return false
		}
	} else if wait > yieldAbove {
		// The request just started is likely queued behind this goroutine:
		// running it now, rather than having another thread woken to take
		// it while this one sleeps, halves what the fine sleep costs in CPU.
		// Not when the send is close: the yield could overshoot it.
		runtime.Gosched()
	}
	if coarse == wait {
		return true
	}
	for {
		wait = time.Until(at)
		if wait <= 0 {
			return ctx.Err() == nil
		}
		if mode == WaitSpin {
			runtime.Gosched()
		} else {
			fineSleep(wait)
		}
	}
}
