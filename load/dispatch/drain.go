package dispatch

import (
	"context"
	"time"
)

// awaitDrain waits, after the last send, for the requests still in flight:
// wait returns once every one has ended and been recorded. It waits at most
// timeout (zero: DefaultDrainTimeout). At that bound it calls expire, so
// that the requests cancel then ends are told from those the caller
// cancelled, and then cancel; when ctx ends first it calls cancel alone.
// Either way it returns only after wait has. drained says every request
// ended within the bound; canceled, that ctx ended first.
func awaitDrain(ctx context.Context, wait func(), timeout time.Duration, expire func(), cancel context.CancelFunc) (drained, canceled bool) {
	if timeout <= 0 {
		timeout = DefaultDrainTimeout
	}
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	bound := time.NewTimer(timeout)
	defer bound.Stop()
	select {
	case <-done:
		return true, false
	case <-bound.C:
		expire()
		cancel()
		<-done
		return false, false
	case <-ctx.Done():
		cancel()
		<-done
		return false, true
	}
}
