package client

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// drainBound is how long a finished stream's body may take to end.
const drainBound = 100 * time.Millisecond

// watchdog ends a request's context when it passes one of its bounds: no
// response byte for the stall timeout, the whole request timeout, or the
// drain's bound once [DONE] has come. One timer serves the three, re-armed
// for the nearest bound when it fires, where a timer each (and, for the
// request timeout, a context of its own) would cost a request twice as many
// allocations and map entries.
type watchdog struct {
	epoch   time.Time
	cancel  context.CancelCauseFunc
	stall   time.Duration
	end     time.Duration // the request timeout's bound, from epoch
	last    atomic.Int64  // the last read, from epoch
	mu      sync.Mutex    // orders a re-arm against the drain's and stop
	drain   time.Duration // the drain's bound, from epoch; 0 before [DONE]
	stopped bool          // the request ended: a firing in flight re-arms nothing
	timer   *time.Timer
}

// start arms the watchdog for a request that begins now.
func (w *watchdog) start(epoch time.Time, stall, timeout time.Duration, cancel context.CancelCauseFunc) {
	now := time.Since(epoch)
	w.epoch, w.stall, w.end, w.cancel = epoch, stall, now+timeout, cancel
	w.last.Store(int64(now))
	w.mu.Lock()
	w.drain, w.stopped = 0, false
	if w.timer == nil {
		w.timer = time.AfterFunc(min(stall, timeout), w.fire)
	} else {
		// A watchdog is reused only after a stop that caught its timer
		// before it fired, so no firing of the last request is in flight.
		w.timer.Reset(min(stall, timeout))
	}
	w.mu.Unlock()
}

// read records that response bytes came now.
func (w *watchdog) read() { w.readAt(time.Now()) }

// readAt records that response bytes came at t.
func (w *watchdog) readAt(t time.Time) { w.last.Store(int64(t.Sub(w.epoch))) }

// draining bounds what is left of the body.
func (w *watchdog) draining() {
	w.mu.Lock()
	w.drain = time.Since(w.epoch) + drainBound
	w.timer.Reset(drainBound)
	w.mu.Unlock()
}

// stop ends the watchdog's watch and reports whether its timer was caught
// before it fired: only then may the watchdog be started again.
func (w *watchdog) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	return w.timer.Stop()
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	now := time.Since(w.epoch)
	idle := now - time.Duration(w.last.Load())
	switch {
	case now >= w.end:
		w.cancel(errTimedOut)
	case w.drain != 0 && now >= w.drain:
		w.cancel(nil)
	case idle >= w.stall:
		w.cancel(errStalled)
	default:
		next := min(w.stall-idle, w.end-now)
		if w.drain != 0 {
			next = min(next, w.drain-now)
		}
		w.timer.Reset(next)
	}
}
