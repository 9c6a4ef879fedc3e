package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sleepDoer answers after a fixed delay with one token, honouring ctx: a
// server with a known, constant service time and no capacity limit.
func sleepDoer(delay time.Duration) DoerFunc {
	return func(ctx context.Context, req workload.Request, out *client.Outcome) {
		out.Sent = time.Now()
		select {
		case <-time.After(delay):
			out.First, out.Last = time.Now(), time.Now()
			out.TokenEvents, out.CompletionTokens = 1, 1
		case <-ctx.Done():
			out.Class, out.Err = client.ClassCanceled, ctx.Err()
		}
	}
}

func indexWorkload() workload.Workload {
	return workload.WorkloadFunc(func(i int) workload.Request { return workload.Request{Index: i, OutputTokens: 1} })
}

func TestDispatchSendsEverySlotWithoutWaitingForCompletions(t *testing.T) {
	// 50 slots 10 ms apart, each request takes 200 ms: a closed-loop client
	// with one worker would need 10 s; open loop needs 0.5 s + 0.2 s.
	sched := arrival.ConstantSchedule(100, 500*time.Millisecond)
	require.Len(t, sched, 50)
	var mu sync.Mutex
	var sent []int
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		mu.Lock()
		sent = append(sent, req.Index)
		mu.Unlock()
		sleepDoer(200*time.Millisecond)(ctx, req, out)
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), FirstIndex: 100, Sink: rec, Sender: Sender{Doer: doer}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	elapsed := time.Since(start)
	assert.Less(t, elapsed, 2*time.Second, "the dispatcher waited for completions")
	assert.Equal(t, Result{Scheduled: 50, Sent: 50, Drained: true, End: res.End}, res)
	assert.Len(t, sent, 50)
	seen := map[int]bool{}
	for _, i := range sent {
		seen[i] = true
	}
	for i := 100; i < 150; i++ {
		assert.True(t, seen[i], "request %d never sent", i)
	}
	s, _ := rec.Summary()
	assert.Equal(t, 50, s.Requests.Completed)
	assert.InDelta(t, 200, s.E2EL.P50, 30, "E2EL is measured from the intended time")
}

func TestDispatchLateSendIsRecordedNotShifted(t *testing.T) {
	// A Workload that blocks for 300 ms before the first request makes the
	// first slots late; they must all be sent, at once, with their lag.
	sched := arrival.ConstantSchedule(100, 200*time.Millisecond) // 20 slots over 200 ms
	var once sync.Once
	w := workload.WorkloadFunc(func(i int) workload.Request {
		once.Do(func() { time.Sleep(300 * time.Millisecond) })
		return workload.Request{Index: i}
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: w, Sink: rec, Sender: Sender{Doer: sleepDoer(time.Millisecond)}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 20, res.Sent)
	s, _ := rec.Summary()
	assert.Equal(t, int64(20), s.SendLag.Count)
	// The first slot was due at 0 and went out after ~300 ms; the last was
	// due at 190 ms, so its lag is ~110 ms: every slot kept its intended time.
	assert.Greater(t, s.SendLag.Max, 250.0)
	assert.Greater(t, s.SendLag.P50, 80.0)
	assert.InDelta(t, s.TTFT.Max, s.SendLag.Max, 30, "TTFT counts from the intended time, lag included")
}

func TestDispatchCapDropsInsteadOfQueueing(t *testing.T) {
	sched := arrival.ConstantSchedule(200, 250*time.Millisecond) // 50 slots, 5 ms apart
	var peak, cur atomic.Int64
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		sleepDoer(100*time.Millisecond)(ctx, req, out)
		cur.Add(-1)
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: doer, MaxInFlight: 4}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, peak.Load(), int64(4))
	assert.Equal(t, 50, res.Sent+res.Dropped)
	assert.Greater(t, res.Dropped, 30)
	s, _ := rec.Summary()
	assert.Equal(t, res.Dropped, s.Requests.Dropped)
	assert.Equal(t, res.Dropped, s.Errors[string(client.ClassDropped)])
	assert.Less(t, s.SendLag.Max, 50.0, "a capped request is dropped, never queued until a slot frees")
}

func TestDispatchDrainBoundKeepsUnfinishedAsLowerBounds(t *testing.T) {
	// Requests 0-4 finish in 10 ms; request 5 never answers. With a 300 ms
	// drain bound it must come back as unfinished, with its elapsed time in
	// the TTFT and E2EL histograms.
	sched := arrival.ConstantSchedule(100, 60*time.Millisecond)
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		if req.Index == 5 {
			out.Sent = time.Now()
			<-ctx.Done()
			out.Class, out.Err = client.ClassCanceled, ctx.Err()
			return
		}
		sleepDoer(10*time.Millisecond)(ctx, req, out)
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: doer, DrainTimeout: 300 * time.Millisecond}}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.False(t, res.Drained)
	s, _ := rec.Summary()
	assert.Equal(t, 5, s.Requests.Completed)
	assert.Equal(t, 1, s.Requests.Unfinished)
	assert.Equal(t, 1, s.Errors[string(client.ClassUnfinished)])
	assert.Equal(t, int64(6), s.TTFT.Count, "the unfinished request is in the TTFT histogram")
	// It was due at 50 ms; the bound passed 300 ms after the last send.
	assert.InDelta(t, 300, s.TTFT.Max, 60)
	assert.InDelta(t, 300, s.E2EL.Max, 60)
	assert.InDelta(t, 1.0/6, s.ErrorRate(), 1e-9)
}

func TestDispatchCancelReturnsPromptlyAndRecordsInFlight(t *testing.T) {
	sched := arrival.ConstantSchedule(10, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	start := time.Now()
	rec := observe.NewRecorder(start, 10*time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: sleepDoer(time.Hour)}}
	res, err := d.Run(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.True(t, res.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, 3, res.Sent) // slots at 0, 100 and 200 ms
	s, _ := rec.Summary()
	assert.Equal(t, 3, s.Errors[string(client.ClassCanceled)])
	assert.Equal(t, 3, s.Requests.Canceled)
	assert.Zero(t, s.Requests.Failed, "requests cancelled by the caller are not server failures")
	assert.Zero(t, s.ErrorRate())
}

func TestDispatchWarmupIsNotMeasured(t *testing.T) {
	sched := arrival.ConstantSchedule(100, 400*time.Millisecond) // 40 slots
	start := time.Now()
	rec := observe.NewRecorder(start.Add(200*time.Millisecond), 200*time.Millisecond, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: sleepDoer(5 * time.Millisecond)}}
	_, err := d.Run(context.Background())
	require.NoError(t, err)
	s, _ := rec.Summary()
	assert.Equal(t, 20, s.Requests.Sent)
	assert.Equal(t, 20, s.Requests.Completed)
}

// Stop ends the schedule, not the run: nothing after it is sent, what is
// in flight finishes and is measured, and the run is neither canceled nor
// an error.
func TestDispatchStopEndsTheScheduleAndDrains(t *testing.T) {
	sched := arrival.ConstantSchedule(10, 10*time.Second)
	start := time.Now()
	rec := observe.NewRecorder(start, 10*time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	stop := make(chan struct{})
	time.AfterFunc(250*time.Millisecond, func() { close(stop) })
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec,
		Sender: Sender{Doer: sleepDoer(300 * time.Millisecond)}, Stop: stop}
	res, err := d.Run(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Stopped)
	assert.False(t, res.Canceled)
	assert.True(t, res.Drained)
	assert.Equal(t, 3, res.Sent) // slots at 0, 100 and 200 ms
	assert.Less(t, time.Since(start), 2*time.Second)
	s, _ := rec.Summary()
	assert.Equal(t, 3, s.Requests.Completed, "what was in flight at the stop finished and was measured")
	assert.Zero(t, s.Requests.Canceled)
}
