package dispatch

import (
	"context"
	"sync"
	"time"

	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/workload"
	"golang.org/x/time/rate"
)

// ClosedLoop drives a server the way a concurrency-limited benchmark does
// (vllm bench serve --max-concurrency C): C clients, each sending its next
// request only when its previous one finished. Every request's intended time
// is its actual send time, so the time a user would have waited while the
// client held back is never seen: coordinated omission.
//
// It exists to show that trap side by side with the open-loop dispatcher, in
// tests and examples. Do not gate on it: against an overloaded server it
// reports finite, steady latency because it slows down with the server.
type ClosedLoop struct {
	Clients  int
	Duration time.Duration
	Workload workload.Workload
	Doer     Doer
	Sink     OutcomeSink
	// MaxRate, when positive, caps the loop's request rate (req/s) with a
	// token bucket: a closed loop may smooth its own sends, since it makes
	// no promise about when a request was due. The open-loop dispatcher
	// never uses one (see package doc).
	MaxRate float64
}

// Run sends until Duration has passed, then waits for the last requests.
// It returns how many requests were sent.
func (c *ClosedLoop) Run(ctx context.Context) int {
	end := time.Now().Add(c.Duration)
	var limit *rate.Limiter
	if c.MaxRate > 0 {
		limit = rate.NewLimiter(rate.Limit(c.MaxRate), 1)
	}
	var mu sync.Mutex
	next := 0
	take := func() (workload.Request, bool) {
		mu.Lock()
		defer mu.Unlock()
		if time.Now().After(end) || ctx.Err() != nil {
			return workload.Request{}, false
		}
		req := c.Workload.Request(next)
		next++
		return req, true
	}
	var wg sync.WaitGroup
	for range c.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if limit != nil && limit.Wait(ctx) != nil {
					return
				}
				req, ok := take()
				if !ok {
					return
				}
				now := time.Now()
				out := client.Outcome{Request: req, Intended: now}
				c.Sink.Started(now)
				c.Doer.Do(ctx, req, &out)
				c.Sink.Record(&out, time.Now())
			}
		}()
	}
	wg.Wait()
	return next
}
