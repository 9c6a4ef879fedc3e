package dockerrun

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func running(context.Context) (bool, int, error) { return false, 0, nil }

// healthAfter answers 503 to the first n requests, then 200.
func healthAfter(t *testing.T, n int64) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestWaitHealthyWaitsForOK(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv, calls := healthAfter(t, 2)
	start := time.Now()
	require.NoError(t, waitHealthy(context.Background(), srv.URL, time.Minute, running))
	assert.Equal(t, int64(3), calls.Load())
	// The bucket spaces the polls: two waits between three requests.
	assert.GreaterOrEqual(t, time.Since(start), 2*healthPollInterval-50*time.Millisecond)
}

func TestWaitHealthyTimesOut(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv, _ := healthAfter(t, 1<<40)
	err := waitHealthy(context.Background(), srv.URL, 700*time.Millisecond, running)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "did not answer 200 within 700ms (last: status 503)")
}

func TestWaitHealthyStopsWhenTheContainerExits(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv, calls := healthAfter(t, 1<<40)
	var probes atomic.Int64
	exited := func(context.Context) (bool, int, error) {
		if probes.Add(1) < 3 {
			return false, 0, nil
		}
		return true, 3, nil
	}
	err := waitHealthy(context.Background(), srv.URL, time.Minute, exited)
	assert.EqualError(t, err, "container exited with code 3 before GET /health answered 200")
	assert.Equal(t, int64(2), calls.Load())
}

func TestWaitHealthyKeepsPollingThroughProbeErrors(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv, _ := healthAfter(t, 1)
	flaky := func(context.Context) (bool, int, error) { return true, 1, errors.New("engine busy") }
	require.NoError(t, waitHealthy(context.Background(), srv.URL, time.Minute, flaky),
		"a failed probe says nothing about the container")
}

func TestWaitHealthyHonoursTheCallersContext(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv, _ := healthAfter(t, 1<<40)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	err := waitHealthy(ctx, srv.URL, time.Minute, running)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}

func TestWaitHealthyUnreachable(t *testing.T) {
	t.Parallel() // waits on Docker and on start-up delays, and measures no latency
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	err := waitHealthy(context.Background(), url, 600*time.Millisecond, running)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "connection refused")
}

func TestEnvListIsSorted(t *testing.T) {
	assert.Equal(t, []string{"A=1", "B=", "C=x=y"}, envList(map[string]string{"C": "x=y", "A": "1", "B": ""}))
	assert.Empty(t, envList(nil))
}
