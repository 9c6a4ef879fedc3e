package dispatch

import (
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// RequestDropSink is an OutcomeSink that wants to know which request the
// in-flight cap dropped, not only when (per-request records do). The
// dispatcher calls DroppedRequest instead of Dropped on one.
type RequestDropSink interface {
	OutcomeSink
	DroppedRequest(req workload.Request, intended time.Time)
}

// recordDrop tells rec of a request the in-flight cap dropped, with the
// request when rec wants it; both dispatchers drop through it.
func recordDrop(rec OutcomeSink, req workload.Request, intended time.Time) {
	if r, ok := rec.(RequestDropSink); ok {
		r.DroppedRequest(req, intended)
		return
	}
	rec.Dropped(intended)
}

// UnmeasuredSink is an OutcomeSink that also wants the turns of sessions
// started in the warm-up, which are not measured (per-request records
// keep them, marked as warm-up): the session dispatcher calls Unmeasured
// and UnmeasuredDrop for those turns, and nothing else.
type UnmeasuredSink interface {
	OutcomeSink
	Unmeasured(o *client.Outcome, at time.Time)
	UnmeasuredDrop(req workload.Request, intended time.Time)
}

// FirstTokenSink is an OutcomeSink that wants each request's first token
// as it arrives, not only its outcome at the end (a step judged while it
// runs): the open-loop dispatcher calls FirstToken once for every request
// it sent, before its Record, with the zero time when none came.
type FirstTokenSink interface {
	OutcomeSink
	FirstToken(intended, first time.Time)
}
