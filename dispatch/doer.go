package dispatch

import (
	"context"
	"time"

	"github.com/llmslo/llmslo/client"
	"github.com/llmslo/llmslo/workload"
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

// Recorder receives what the dispatcher sees: each send, each drop by the
// in-flight cap, and each finished request (observe.Recorder is the one the
// runner uses).
type Recorder interface {
	Started(intended time.Time)
	Dropped(intended time.Time)
	Record(o *client.Outcome, at time.Time)
}
