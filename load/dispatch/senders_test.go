package dispatch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSendersReuseIdleGoroutines(t *testing.T) {
	// 30 requests 20 ms apart, each answered at once: every request finds
	// the one before it finished, so its goroutine is idle and takes the
	// next. A goroutine a request would start 30. The bound leaves room for
	// a busy runner (race detector, other packages) that keeps a finished
	// sender from parking again within 20 ms a few times over.
	sched := arrival.ConstantSchedule(50, 600*time.Millisecond)
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: sleepDoer(0)}}
	res, senders, err := d.run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 30, res.Sent)
	s, _ := rec.Summary()
	assert.Equal(t, 30, s.Requests.Completed)
	assert.LessOrEqual(t, senders.goroutines(), 10, "idle goroutines were not reused")
}

func TestSendersNeverWaitForAFreeOne(t *testing.T) {
	// 20 requests 2 ms apart, none of which ends before the last is sent:
	// each needs a goroutine of its own, started at its time.
	const n = 20
	sched := arrival.ConstantSchedule(500, n*2*time.Millisecond)
	require.Len(t, sched, n)
	var wg sync.WaitGroup
	wg.Add(n)
	allIn := make(chan struct{})
	go func() { wg.Wait(); close(allIn) }()
	doer := DoerFunc(func(ctx context.Context, req workload.Request, out *client.Outcome) {
		out.Sent = time.Now()
		wg.Done()
		select {
		case <-allIn:
			out.First, out.Last = time.Now(), time.Now()
			out.TokenEvents, out.CompletionTokens = 1, 1
		case <-time.After(5 * time.Second):
			out.Class, out.Err = client.ClassTimeout, context.DeadlineExceeded
		}
	})
	start := time.Now()
	rec := observe.NewRecorder(start, time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
	d := OpenLoop{Schedule: sched, Start: start, Workload: indexWorkload(), Sink: rec, Sender: Sender{Doer: doer}}
	res, senders, err := d.run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, n, res.Sent)
	s, _ := rec.Summary()
	assert.Equal(t, n, s.Requests.Completed, "a request waited for another to end")
	assert.Equal(t, n, senders.goroutines())
	assert.Less(t, time.Since(start), 2*time.Second)
}
