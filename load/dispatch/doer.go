package dispatch

import (
	"context"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// Doer sends one request and fills out. It must return when the response
// ends or ctx is done, whichever comes first, and must set out.Sent just
// before it writes the request.
type Doer interface {
	Do(ctx context.Context, req workload.Request, out *client.Outcome)
}

// DoerFunc adapts a function to Doer.
type DoerFunc func(ctx context.Context, req workload.Request, out *client.Outcome)

// Do calls f.
func (f DoerFunc) Do(ctx context.Context, req workload.Request, out *client.Outcome) {
	f(ctx, req, out)
}

// OutcomeSink receives what the dispatcher sees: each send, each drop by the
// in-flight cap, and each finished request (observe.Recorder is the one the
// run loop uses).
type OutcomeSink interface {
	Started(intended time.Time)
	Dropped(intended time.Time)
	Record(o *client.Outcome, at time.Time)
}

// Preparer is a Doer that can do part of a request's work before its
// intended time (the client encodes the body): the dispatcher calls
// Prepare as it builds requests ahead of the schedule, so that a large
// prompt's encoding is not paid on the send path as lag.
type Preparer interface {
	Prepare(req *workload.Request)
}
