package dispatch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
)

// DefaultDrainTimeout is how long Run waits for in-flight requests after
// the last send when OpenLoop.DrainTimeout is zero.
const DefaultDrainTimeout = 30 * time.Second

// OpenLoop sends requests on an open-loop schedule: request i goes out at
// start+Schedule[i] whether or not earlier ones have finished. A late
// dispatcher sends at once and the lag is recorded (Outcome.Sent −
// Outcome.Intended); no slot is ever skipped or shifted. The only request
// not sent at its time is one refused by the in-flight cap, which is counted
// as dropped: queueing it in the client would hide the server's queue.
type OpenLoop struct {
	// Schedule holds the intended send offsets from Start, ascending.
	Schedule []time.Duration
	// Start is when offset zero falls. Zero means now.
	Start time.Time
	// Workload builds request FirstIndex+i for slot i. It is called from one
	// goroutine, ahead of the schedule, so that building prompts does not
	// sit on the send path.
	Workload   workload.Workload
	FirstIndex int
	Sender
	// Sink receives every outcome.
	Sink OutcomeSink
	// Lookahead is how many requests are built ahead of the schedule.
	// Zero means 256.
	Lookahead int
	// Cancel abandons a drawn fraction of requests mid-stream (a user
	// pressing stop); the zero plan abandons none.
	Cancel CancelPlan
	// Stop, when closed, ends the schedule where it stands: no request
	// after it is sent, and those in flight finish and are drained as at
	// the schedule's end. The run is not canceled (a step that stopped
	// once its verdict was decided). Nil never stops.
	Stop <-chan struct{}
}

// Result says how an open-loop run ended.
type Result struct {
	Scheduled int
	Sent      int // handed to the Doer
	Dropped   int
	Canceled  bool      // ctx ended before the schedule did
	Stopped   bool      // Stop was closed before the schedule ended
	StoppedAt time.Time // when stopped: the intended time of the first slot not sent
	Drained   bool      // every request finished before the drain bound
	End       time.Time // when the last request finished or the bound passed
}

// Run dispatches the schedule and waits for the drain. It returns early only
// when ctx ends, after cancelling and recording what was in flight.
func (o *OpenLoop) Run(ctx context.Context) (Result, error) {
	res, _, err := o.run(ctx)
	return res, err
}

// run is Run, also returning the senders it ran the requests on (tests
// count their goroutines).
func (o *OpenLoop) run(ctx context.Context) (Result, *senders, error) {
	if o.Doer == nil || o.Workload == nil || o.Sink == nil {
		return Result{}, nil, errors.New("dispatch: OpenLoop needs a Doer, a Workload and a Sink")
	}
	start := o.Start
	if start.IsZero() {
		start = time.Now()
	}
	res := Result{Scheduled: len(o.Schedule)}

	// Requests in flight run under reqCtx, which the drain bound or the
	// caller's cancellation ends; drainExpired tells them which it was.
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	var drainExpired atomic.Bool
	var boundAt atomic.Int64 // when the bound passed, as an offset from start (monotonic)
	var inFlight atomic.Int64
	firsts, _ := o.Sink.(FirstTokenSink)
	senders := newSenders(func(s send) {
		req, intended := s.req, s.intended
		out := client.Outcome{Request: req, Intended: intended}
		var told atomic.Bool // FirstToken is called once for each request
		if firsts != nil {
			out.OnFirst = func(at time.Time) {
				if !told.Swap(true) {
					firsts.FirstToken(intended, at)
				}
			}
		}
		doCtx, disarm := o.Cancel.arm(reqCtx, req.Index, intended)
		o.Doer.Do(doCtx, req, &out)
		disarm()
		end := time.Now()
		end = markAbandoned(doCtx, &out, end)
		if !out.OK() && out.Class != client.ClassAbandoned && reqCtx.Err() != nil {
			if drainExpired.Load() {
				out.Class = client.ClassUnfinished
				end = start.Add(time.Duration(boundAt.Load()))
			} else {
				out.Class = client.ClassCanceled
			}
		}
		inFlight.Add(-1)
		if firsts != nil && !told.Load() {
			firsts.FirstToken(intended, out.First) // a Doer without the hook, or no first token (zero)
		}
		o.Sink.Record(&out, end)
	})

	prepared, stopPrep := o.prepare(ctx)
	defer stopPrep()

	// The schedule waits under schedCtx, which Stop ends too.
	schedCtx, endSchedule := context.WithCancel(ctx)
	defer endSchedule()
	if o.Stop != nil {
		go func() {
			select {
			case <-o.Stop:
				endSchedule()
			case <-schedCtx.Done():
			}
		}()
	}
	wait := newWaiter(schedCtx, o.Wait)
	defer wait.close()
	ended := func(intended time.Time) {
		if ctx.Err() == nil && o.Stop != nil {
			res.Stopped, res.StoppedAt = true, intended
			return
		}
		res.Canceled = true
	}

dispatch:
	for _, off := range o.Schedule {
		intended := start.Add(off)
		var req workload.Request
		select {
		case req = <-prepared:
		case <-schedCtx.Done():
			ended(intended)
			break dispatch
		}
		if !wait.until(schedCtx, intended) {
			ended(intended)
			break dispatch
		}
		if o.MaxInFlight > 0 && inFlight.Load() >= int64(o.MaxInFlight) {
			res.Dropped++
			recordDrop(o.Sink, req, intended)
			continue
		}
		res.Sent++
		inFlight.Add(1)
		o.Sink.Started(intended)
		senders.start(send{req, intended})
	}

	senders.closing()
	drained, canceled := awaitDrain(ctx, senders.wait, o.DrainTimeout, func() {
		boundAt.Store(int64(time.Since(start)))
		drainExpired.Store(true)
	}, cancelReqs)
	res.Drained, res.Canceled = drained, res.Canceled || canceled
	res.End = time.Now()
	if res.Canceled {
		return res, senders, ctx.Err()
	}
	return res, senders, nil
}

// prepare builds requests ahead of the schedule on one goroutine.
func (o *OpenLoop) prepare(ctx context.Context) (<-chan workload.Request, func()) {
	ahead := o.Lookahead
	if ahead <= 0 {
		ahead = 256
	}
	ch := make(chan workload.Request, ahead)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	preparer, _ := o.Doer.(Preparer)
	go func() {
		defer wg.Done()
		for i := range o.Schedule {
			req := o.Workload.Request(o.FirstIndex + i)
			if req.Index == 0 {
				req.Index = o.FirstIndex + i
			}
			if preparer != nil {
				preparer.Prepare(&req)
			}
			select {
			case ch <- req:
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, func() { close(stop); wg.Wait() }
}
