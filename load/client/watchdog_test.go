package client

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The watchdog ends a request at the nearest of its bounds, with the
// cause that names it, and not at all once stopped.
func TestWatchdogBounds(t *testing.T) {
	run := func(stall, timeout time.Duration, prep func(*watchdog)) error {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var w watchdog
		w.start(time.Now(), stall, timeout, cancel)
		defer w.stop()
		if prep != nil {
			prep(&w)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(2 * time.Second):
			return nil
		}
	}
	if err := run(30*time.Millisecond, time.Hour, nil); !errors.Is(err, errStalled) {
		t.Errorf("no reads: %v, want a stall", err)
	}
	// Reads every 10 ms keep the stall away; the request timeout still ends it.
	keepReading := func(w *watchdog) {
		go func() {
			for range 40 {
				time.Sleep(10 * time.Millisecond)
				w.read()
			}
		}()
	}
	if err := run(50*time.Millisecond, 150*time.Millisecond, keepReading); !errors.Is(err, errTimedOut) {
		t.Errorf("reading past the timeout: %v, want a timeout", err)
	}
	start := time.Now()
	if err := run(time.Hour, time.Hour, func(w *watchdog) { w.draining() }); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("draining: %v after %v, want cancelled after about %v", err, time.Since(start), drainBound)
	}
	if err := run(time.Hour, time.Hour, func(w *watchdog) { w.draining(); w.stop() }); err != nil {
		t.Errorf("stopped: %v, want nothing", err)
	}
}
