package vllmapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ResetStatus says whether a prefix-cache reset is known to have happened,
// and why not when it is not. vLLM answers POST /reset_prefix_cache with
// 200 whether or not it reset: its KV cache manager refuses while running
// requests hold blocks and only logs "Failed to reset prefix cache". A 2xx
// is trusted only when the server's metrics showed nothing running or
// waiting just before, or when it was told to preempt what runs.
type ResetStatus string

const (
	ResetOff        ResetStatus = ""           // not asked for
	ResetDone       ResetStatus = "done"       // 2xx with the server idle, or preempting what ran
	ResetNotServed  ResetStatus = "not_served" // 404 or 405: vLLM without VLLM_SERVER_DEV_MODE=1
	ResetBusy       ResetStatus = "busy"       // 2xx, but requests still ran: vLLM refuses then
	ResetUnverified ResetStatus = "unverified" // 2xx, but no /metrics to show the server idle
	ResetFailed     ResetStatus = "failed"     // another status, or no answer
)

// DefaultResetWait bounds the wait for the server to go idle before a
// reset.
const DefaultResetWait = 10 * time.Second

// ResetOptions shape ResetPrefixCache.
type ResetOptions struct {
	// WaitIdle bounds the wait for the server's metrics to show nothing
	// running or waiting; 0 means DefaultResetWait, negative no wait.
	WaitIdle time.Duration
	// ResetRunning allows the reset to preempt the requests still running
	// when the server did not go idle in time (reset_running_requests=true):
	// they are recomputed, which the step's first requests may feel.
	ResetRunning bool
}

// ResetPrefixCache waits, within opts.WaitIdle, for the server's /metrics
// to show nothing running or waiting, then asks it to drop its prefix
// cache (POST /reset_prefix_cache, which vLLM serves in dev mode). It
// reports whether the reset is known to have happened, and an error only
// when the request could not be made.
func ResetPrefixCache(ctx context.Context, hc *http.Client, baseURL string, opts ResetOptions) (ResetStatus, error) {
	base := strings.TrimSuffix(baseURL, "/")
	idle, metrics := waitIdle(ctx, hc, base, opts.WaitIdle)
	url := base + "/reset_prefix_cache"
	preempt := !idle && opts.ResetRunning
	if preempt {
		url += "?reset_running_requests=true"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return ResetFailed, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return ResetFailed, fmt.Errorf("reset prefix cache: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return ResetNotServed, nil
	case resp.StatusCode/100 != 2:
		return ResetFailed, nil
	case idle || preempt:
		return ResetDone, nil
	case !metrics:
		return ResetUnverified, nil
	}
	return ResetBusy, nil
}

// waitIdle polls /metrics until it shows nothing running or waiting, for
// at most wait; metrics is false when no scrape succeeded (a server
// without them is not waited on).
func waitIdle(ctx context.Context, hc *http.Client, base string, wait time.Duration) (idle, metrics bool) {
	if wait == 0 {
		wait = DefaultResetWait
	}
	deadline := time.Now().Add(max(wait, 0))
	for {
		s, err := ScrapeServer(ctx, hc, base)
		if err != nil {
			return false, metrics // no metrics to wait on
		}
		metrics = true
		if s.Running == 0 && s.Waiting == 0 {
			return true, true
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return false, metrics
		}
		select {
		case <-time.After(min(50*time.Millisecond, time.Until(deadline))):
		case <-ctx.Done():
			return false, metrics
		}
	}
}
