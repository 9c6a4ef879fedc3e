package observe

import (
	"time"

	"github.com/llmslo/llmslo/load/client"
)

// Counts are a progress snapshot's request counts. Sent includes those
// still in flight; Failed includes those unfinished at the drain bound.
type Counts struct {
	Sent, InFlight, Completed, Failed int
}

// Snapshot is what progress displays show: the measured window's
// counts and running TTFT p95, and the warm-up's counts apart. Warm-up
// requests are not measured, but a display that showed nothing while
// they are being sent would look stalled.
type Snapshot struct {
	Counts
	TTFTP95 time.Duration
	Warmup  Counts
}

// Snapshot returns the counts so far.
func (r *Recorder) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Snapshot{
		Counts:  Counts{Sent: r.sent + r.inFlight, InFlight: r.inFlight, Completed: r.completed, Failed: r.failed + r.unfinished},
		TTFTP95: r.ttft.Quantile(95),
		Warmup:  r.warmup,
	}
}

// startedWarmup counts a warm-up request handed to the sender.
func (r *Recorder) startedWarmup() {
	r.mu.Lock()
	r.warmup.Sent++
	r.warmup.InFlight++
	r.mu.Unlock()
}

// recordWarmup counts a finished warm-up request, and nothing else of it.
func (r *Recorder) recordWarmup(o *client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warmup.InFlight--
	r.countWarmupEnd(o)
}

// WarmupEnded counts a finished turn of a session started in the warm-up
// (Turns passes those on here): the session replay never reports them as
// started, so each is counted as sent only as it ends.
func (r *Recorder) WarmupEnded(o *client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !o.Sent.IsZero() {
		r.warmup.Sent++
	}
	r.countWarmupEnd(o)
}

func (r *Recorder) countWarmupEnd(o *client.Outcome) {
	switch o.Class {
	case "":
		r.warmup.Completed++
	case client.ClassCanceled, client.ClassAbandoned:
		// Neither a success nor the server's failure.
	default:
		r.warmup.Failed++
	}
}
