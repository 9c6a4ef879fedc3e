package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/vllmcaptures"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that admits 8 requests at a time, each of which lasts about
// 100 ms (five 20 ms steps), serves about 80 a second. At twice that rate
// it refuses about half with vLLM's admission 503: the report counts them
// as shed, not as server errors, gives their share with its interval, and
// the default error guard fails the step, since a user turned away was
// not served.
func TestShedRequestsAreTheirOwnOutcomeAndFailTheErrorGuard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := vllmsim.ParseServeArgs([]string{"--model", "m", "--max-num-queued-reqs", "8"})
		require.NoError(t, err)
		cfg.Profile = engine.StepProfile{Name: "fixed-20ms", Fixed: 20 * time.Millisecond}
		p := handPlan(virtualEngine(t, cfg), fixedWorkload(16, 5), []float64{160}, 2*time.Second, plantest.MustSLOs(t, "ttft.p50<=10s"))
		inVirtualTime(&p)
		p.DrainTimeout = 5 * time.Second
		rep, err := runPlan(context.Background(), p)
		require.NoError(t, err)
		s := rep.Steps[0]

		n := s.Requests
		assert.Positive(t, n.Shed)
		assert.Zero(t, n.Failed, "errors %v", s.Errors)
		assert.NotContains(t, s.Errors, "http_503", "a shed request is no server error")
		assert.NotContains(t, s.Errors, string(client.ClassShed))
		assert.Equal(t, n.Judged(), n.Completed+n.Shed+n.Unfinished)
		share := float64(n.Shed) / float64(n.Judged())
		assert.InDelta(t, 0.5, share, 0.3, "shed %d of %d", n.Shed, n.Judged())
		require.NotNil(t, s.Shed)
		assert.Equal(t, n.Shed, s.Shed.Count)
		assert.InDelta(t, share, s.Shed.Share, 1e-12)
		assert.Less(t, s.Shed.CI95[0], share)
		assert.Greater(t, s.Shed.CI95[1], share)
		t.Logf("shed %d of %d (%.3f, CI %v), unfinished %d, goodput %.3f", n.Shed, n.Judged(), share, s.Shed.CI95, n.Unfinished, s.Goodput)
		assert.Contains(t, s.ErrorMessages[string(client.ClassShed)], vllmsim.MsgQueueOverflow)

		// Not served counts against goodput and the default error guard.
		assert.LessOrEqual(t, s.Goodput, 1-share+1e-9)
		guard := sloResult(t, &s, report.MetricErrorRate)
		assert.False(t, guard.Pass, "%+v", guard)
		assert.Equal(t, report.VerdictFail, s.Verdict)
		assert.InDelta(t, float64(n.Shed+n.Unfinished)/float64(n.Judged()), s.ErrorRate(), 1e-12)
	})
}

// The time a shed request waited for its refusal is measured from its
// intended send to the 503: against a server that refuses every request
// after exactly 40 ms, its median reads 40 ms plus the trip to the server
// and back, within a few milliseconds and never below.
func TestShedTimeIsTheWaitForTheRefusal(t *testing.T) {
	const refuseAfter = 40 * time.Millisecond
	body := vllmcaptures.Read("error-503-admission.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(refuseAfter)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	p := handPlan(engineClient(t, srv.URL), fixedWorkload(16, 5), []float64{20}, time.Second, plantest.MustSLOs(t, "ttft.p50<=10s"))
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	require.Equal(t, 20, s.Requests.Shed, "errors %v", s.Errors)
	require.NotNil(t, s.ShedTime)
	assert.Equal(t, int64(20), s.ShedTime.Count)
	ms := float64(refuseAfter) / float64(time.Millisecond)
	tol := 3.0 // the trip on loopback, a late timer and the send lag
	if raceEnabled {
		tol = 10
	}
	assert.InDelta(t, ms+tol/2, s.ShedTime.P50, tol/2, "%+v", *s.ShedTime)
}
