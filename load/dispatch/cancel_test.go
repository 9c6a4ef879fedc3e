package dispatch

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
)

// The draw is a function of seed and index: the same seed picks the same
// requests, another seed others, and the fraction drawn lies in its
// binomial interval.
func TestCancelDrawIsSeededAndBinomial(t *testing.T) {
	const n, rate = 10000, 0.3
	drawn := func(seed int64) []bool {
		c := CancelPlan{Rate: rate, After: time.Second, Seed: seed}
		out := make([]bool, n)
		for i := range out {
			out[i] = c.Abandons(i)
		}
		return out
	}
	a, again, other := drawn(1), drawn(1), drawn(2)
	assert.Equal(t, a, again, "same seed, same requests")
	k, both := 0, 0
	for i := range a {
		if a[i] {
			k++
			if other[i] {
				both++
			}
		}
	}
	sd := math.Sqrt(n * rate * (1 - rate))
	assert.InDelta(t, n*rate, k, 3.3*sd, "fraction drawn: %d of %d", k, n)
	// Two seeds agree on a request as often as independent draws do.
	assert.InDelta(t, n*rate*rate, both, 3.3*math.Sqrt(n*rate*rate*(1-rate*rate)))

	assert.False(t, CancelPlan{Rate: 0.5}.Abandons(3), "no cancel time, no cancel")
	assert.False(t, CancelPlan{}.Abandons(3))
	for i := range 100 {
		require.True(t, CancelPlan{Rate: 1, After: time.Second}.Abandons(i))
	}
}

// streamDoer sends one token after ttft and finishes after total,
// honouring ctx as the client does: a request whose context ends comes
// back as ClassCanceled with what it had seen.
func streamDoer(ttft, total time.Duration) DoerFunc {
	return func(ctx context.Context, req workload.Request, out *client.Outcome) {
		out.Sent = time.Now()
		select {
		case <-time.After(ttft):
			out.First, out.Last = time.Now(), time.Now()
			out.TokenEvents = 1
		case <-ctx.Done():
			out.Class, out.Err = client.ClassCanceled, ctx.Err()
			return
		}
		select {
		case <-time.After(total - ttft):
			out.Last = time.Now()
			out.TokenEvents, out.CompletionTokens = 2, 2
		case <-ctx.Done():
			out.Class, out.Err = client.ClassCanceled, ctx.Err()
		}
	}
}

// Drawn requests are cut at their cancel time and counted as abandoned:
// not failures, not in the error rate, not in the latency histograms,
// although each had its first token before the cut.
func TestDispatchAbandonsDrawnRequests(t *testing.T) {
	sched := arrival.ConstantSchedule(200, 200*time.Millisecond) // 40 slots
	plan := CancelPlan{Rate: 0.5, After: 60 * time.Millisecond, Seed: 7}
	var mu sync.Mutex
	ended := map[int]time.Duration{} // index → time from its intended time to the Doer's return
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		streamDoer(10*time.Millisecond, 200*time.Millisecond)(ctx, req, out)
		mu.Lock()
		ended[req.Index] = time.Since(out.Intended)
		mu.Unlock()
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Cancel: plan, Sender: Sender{Doer: doer}}
	_, err := d.Run(context.Background())
	require.NoError(t, err)

	want := 0
	for i := range 40 {
		if plan.Abandons(i) {
			want++
			assert.InDelta(t, 60, ended[i].Milliseconds(), 30, "request %d was cut at its cancel time", i)
		} else {
			assert.GreaterOrEqual(t, ended[i], 200*time.Millisecond, "request %d ran to its end", i)
		}
	}
	require.Positive(t, want)
	s, _ := rec.Summary()
	assert.Equal(t, want, s.Requests.Abandoned)
	assert.Equal(t, 40-want, s.Requests.Completed)
	assert.Zero(t, s.Requests.Failed)
	assert.Zero(t, s.Requests.Canceled)
	assert.Empty(t, s.Errors, "an abandoned request is no error")
	assert.Zero(t, s.ErrorRate())
	assert.Equal(t, int64(40-want), s.TTFT.Count, "only completed requests in TTFT")
	assert.Equal(t, int64(40-want), s.E2EL.Count)
}

// A drawn request that ends before its cancel time keeps its outcome; one
// still running at the drain bound is unfinished, and one the caller
// cancels first is cancelled: the planned cancel did not end them.
func TestPlannedCancelOnlyClassifiesWhatItEnded(t *testing.T) {
	run := func(ctx context.Context, doer Doer, after, drain time.Duration) observeCounts {
		sched := arrival.ConstantSchedule(100, 50*time.Millisecond) // 5 slots
		start := time.Now()
		rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
		d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Cancel: CancelPlan{Rate: 1, After: after}, Sender: Sender{Doer: doer, DrainTimeout: drain}}
		_, _ = d.Run(ctx)
		s, _ := rec.Summary()
		return observeCounts{s.Requests.Completed, s.Requests.Abandoned, s.Requests.Unfinished, s.Requests.Canceled}
	}
	fast := streamDoer(5*time.Millisecond, 10*time.Millisecond)
	assert.Equal(t, observeCounts{completed: 5}, run(context.Background(), fast, 500*time.Millisecond, time.Second))

	never := sleepDoer(time.Hour)
	assert.Equal(t, observeCounts{unfinished: 5}, run(context.Background(), never, time.Hour, 100*time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Equal(t, observeCounts{canceled: 5}, run(ctx, never, time.Hour, time.Second))
}

type observeCounts struct{ completed, abandoned, unfinished, canceled int }
