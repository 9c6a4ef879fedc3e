package dispatch

import (
	"context"
	"errors"
	"time"

	"github.com/llmslo/llmslo/load/client"
)

// CancelPlan abandons a fraction of requests mid-stream, as users pressing
// stop do: a drawn request's context ends After its intended time, so the
// Doer closes the connection and the server should free its slot. The
// stop counts from the intended time, as TTFT does: a user presses stop
// a while after asking, whether or not the client sent on time. Which
// requests are drawn depends only on Seed and the request's index, so the
// same seed abandons the same requests in every run, whatever the timing.
//
// A drawn request that ends before its cancel time (it completed, or the
// server failed it first) keeps its own outcome; one cut by the planned
// cancel is recorded as client.ClassAbandoned. The zero plan cancels
// nothing.
type CancelPlan struct {
	// Rate is the fraction of requests drawn, in [0, 1].
	Rate float64
	// After is how long after its intended time a drawn request is
	// cancelled.
	After time.Duration
	// Seed chooses the draws.
	Seed int64
}

// ErrAbandoned is the cause a drawn request's context ends with.
var ErrAbandoned = errors.New("abandoned as planned, as a user pressing stop")

// abandonedAt is ErrAbandoned with the moment the stop came.
type abandonedAt struct{ at time.Time }

func (e abandonedAt) Error() string        { return ErrAbandoned.Error() }
func (e abandonedAt) Is(target error) bool { return target == ErrAbandoned }

// Abandons reports whether request index is drawn for cancellation.
func (c CancelPlan) Abandons(index int) bool {
	if c.Rate <= 0 || c.After <= 0 {
		return false
	}
	return c.Rate >= 1 || cancelDraw(c.Seed, index) < c.Rate
}

// cancelDomain keeps the cancellation draws apart from the workload's own
// draws on the same seed: were they equal, the requests drawn would be
// the ones with, say, the shortest rows.
const cancelDomain = 0x63616e63656c2121 // "cancel!!"

// cancelDraw is a uniform number in [0, 1) for (seed, index): splitmix64
// of the seed, then of the index, independent from index to index.
func cancelDraw(seed int64, index int) float64 {
	x := splitmix(splitmix(uint64(seed)^cancelDomain) + uint64(index))
	return float64(x>>11) / (1 << 53)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// arm returns the context request index runs under: ctx itself, or for a
// drawn request one that ends After its intended time with ErrAbandoned
// (at once when that has passed). disarm must be called when the Doer
// returns.
func (c CancelPlan) arm(ctx context.Context, index int, intended time.Time) (_ context.Context, disarm func()) {
	if !c.Abandons(index) {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(time.Until(intended.Add(c.After)), func() { cancel(abandonedAt{time.Now()}) })
	return ctx, func() { t.Stop(); cancel(nil) }
}

// markAbandoned reclassifies a request that the Doer saw cancelled when the
// planned cancel is what ended it (it came before the drain bound or the
// caller's cancellation, which would have set another cause). It returns
// when the request ended: for an abandoned one, when the stop came, not
// when the client had finished closing the connection after it.
func markAbandoned(ctx context.Context, out *client.Outcome, end time.Time) time.Time {
	var stop abandonedAt
	if out.Class == client.ClassCanceled && errors.As(context.Cause(ctx), &stop) {
		out.Class, out.Err = client.ClassAbandoned, ErrAbandoned
		return stop.at
	}
	return end
}
