package dockerrun

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

const (
	// healthPollInterval spaces the health checks; a token bucket of one
	// keeps a slow answer from being followed by a burst.
	healthPollInterval = 250 * time.Millisecond
	// healthRequestTimeout bounds one GET /health, so that a server that
	// accepts and never answers is asked again.
	healthRequestTimeout = 5 * time.Second
)

// exitedProbe reports whether the container has stopped, and its exit code.
type exitedProbe func(ctx context.Context) (exited bool, code int, err error)

// waitHealthy polls url until it answers 200, the container exits, timeout
// passes (an error wrapping context.DeadlineExceeded) or ctx ends.
func waitHealthy(ctx context.Context, url string, timeout time.Duration, exited exitedProbe) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// No keep-alive: nothing is left open once the server is healthy.
	hc := &http.Client{Timeout: healthRequestTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	lim := rate.NewLimiter(rate.Every(healthPollInterval), 1)
	last := "no answer yet"
	for {
		// Wait fails at once when the next slot lies past the deadline.
		if err := lim.Wait(ctx); err != nil {
			if err := parent.Err(); err != nil {
				return fmt.Errorf("waiting for GET /health: %w", context.Cause(parent))
			}
			return fmt.Errorf("GET /health did not answer 200 within %v (last: %s): %w", timeout, last, context.DeadlineExceeded)
		}
		if done, code, err := exited(ctx); err == nil && done {
			return fmt.Errorf("container exited with code %d before GET /health answered 200", code)
		}
		status, err := get(ctx, hc, url)
		switch {
		case err != nil:
			last = err.Error()
		case status == http.StatusOK:
			return nil
		default:
			last = fmt.Sprintf("status %d", status)
		}
	}
}

// get asks url once and returns the status.
func get(ctx context.Context, hc *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
