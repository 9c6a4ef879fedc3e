package load

import (
	"context"
	"sync"
	"time"
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
	Workload Workload
	Doer     Doer
	Recorder *Recorder
}

// Run sends until Duration has passed, then waits for the last requests.
// It returns how many requests were sent.
func (c *ClosedLoop) Run(ctx context.Context) int {
	end := time.Now().Add(c.Duration)
	var mu sync.Mutex
	next := 0
	take := func() (Request, bool) {
		mu.Lock()
		defer mu.Unlock()
		if time.Now().After(end) || ctx.Err() != nil {
			return Request{}, false
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
				req, ok := take()
				if !ok {
					return
				}
				now := time.Now()
				out := Outcome{Request: req, Intended: now}
				c.Recorder.Started(now)
				c.Doer.Do(ctx, req, &out)
				c.Recorder.Record(&out, time.Now())
			}
		}()
	}
	wg.Wait()
	return next
}
