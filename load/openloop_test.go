package load

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/dispatch"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixedWorkload asks every request for in tokens of prompt and out of output.
func fixedWorkload(in, out int) workload.Workload {
	return workload.WorkloadFunc(func(i int) workload.Request {
		ids := make([]int, in)
		for k := range ids {
			ids[k] = 1000 + (i+k)%1000
		}
		return workload.Request{Index: i, PromptIDs: ids, InputTokens: in, OutputTokens: out}
	})
}

func engineClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: url, Model: "m", StallTimeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// quietThresholds keep client-side hazards out of tests that are not about
// them: the test machine is shared and noisy.
func quietThresholds() verdict.Thresholds {
	return verdict.Thresholds{Off: []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}}
}

func TestRunMeasuresKnownTimingsThroughTheRunLoop(t *testing.T) {
	if raceEnabled {
		t.Skip("exact timings to the millisecond: run without -race, which slows the server and the client alike")
	}
	srv := pacedSim(t, 50*time.Millisecond, 5*time.Millisecond, vllmsim.Faults{})
	c := engineClient(t, srv.URL)
	p := handPlan(c, fixedWorkload(64, 20), []float64{10}, 2*time.Second, plantest.MustSLOs(t, "ttft.p50<=60ms", "itl.p50<=6ms", "error_rate<=0%"))
	p.Warmup = 200 * time.Millisecond
	p.DrainTimeout = 5 * time.Second
	records := recordLines(t, &p)
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, rep.Steps, 1)
	s := rep.Steps[0]
	assert.Equal(t, 20, s.Requests.Scheduled)
	assert.Equal(t, 20, s.Requests.Completed)
	tol := 1.0 // ms, for a single gap; TTFT carries the send lag too
	if raceEnabled {
		tol = 3
	}
	assert.InDelta(t, 50, s.TTFT.P50, 2*tol, "TTFT p50 (from the intended time)")
	assert.InDelta(t, 50, s.TTFTSend.P50, 2*tol, "TTFT p50 from send")
	assert.InDelta(t, 5, s.ITL.P50, tol, "ITL p50")
	assert.InDelta(t, 5, s.TPOT.P50, tol, "TPOT p50")
	assert.InDelta(t, 50+19*5, s.E2EL.P50, 3*tol, "E2EL p50")
	assert.InDelta(t, 50+19*5, float64(s.Histograms[report.MetricE2ELSend].Quantile(50))/float64(time.Millisecond), 3*tol, "E2EL p50 from send")
	assert.Equal(t, int64(19*20), s.ITL.Count, "one ITL sample per gap between token events")
	assert.Equal(t, int64(20*20), s.Tokens.Output, "output tokens exact")
	assert.Equal(t, int64(64*20), s.Tokens.Input)
	assert.Equal(t, report.VerdictPass, s.Verdict, "%+v", s.SLO)
	assert.Equal(t, 1.0, s.Goodput)
	assert.Empty(t, s.Hazards)
	assert.Equal(t, 10.0, s.RateAchieved, "20 sends within the 2 s window")
	require.NotNil(t, s.Evidence)
	assert.Equal(t, 20, s.Evidence.Due)
	assert.Equal(t, 20, s.Evidence.SentInWindow)
	// Throughput is over the time the step ran: from the first send to the
	// last end, 19 gaps of 100 ms and then one E2EL. That is one request's
	// end, not a median, so it gets the 5 ms of the largest TTFT below.
	assert.InDelta(t, 1900+50+19*5, 400/s.Tokens.OutputPerS*1000, 5*tol, "ms from the first send to the last end, by the output tokens per second")
	assert.Equal(t, int64(20*20), s.Tokens.Events, "one event per token")
	assert.Zero(t, s.Tokens.MultiEvents)
	var sent, done int
	var tokens int64
	for _, sec := range s.Timeline {
		sent += sec.Sent
		done += sec.Completed
		tokens += sec.OutTokens
	}
	assert.Equal(t, 20, sent, "the timeline accounts for every send")
	assert.Equal(t, 20, done, "and every completion")
	assert.Equal(t, int64(20*20), tokens, "and every output token")
	assert.Equal(t, 10, s.Timeline[0].Sent, "10 sends in the first second at 10 req/s")
	// The largest TTFT among the requests that completed in that second:
	// at least the server's 50 ms, and exactly the largest of those
	// requests' own TTFTs, read from their records (last token 1 to 2 s
	// after the 200 ms warm-up). A busy machine stretches single requests
	// past any fixed tolerance, in the client's send or the server's
	// timers, so the figure is checked against the requests themselves.
	sec1 := s.Timeline[1]
	var want float64
	for _, r := range records() {
		if r.Warmup || r.LastTokenS == nil || *r.LastTokenS-0.2 < 1 || *r.LastTokenS-0.2 >= 2 {
			continue
		}
		want = max(want, (*r.FirstTokenS-r.IntendedS)*1000)
	}
	assert.GreaterOrEqual(t, sec1.TTFTMaxMs, 50-tol, "the largest TTFT in that second")
	assert.GreaterOrEqual(t, sec1.TTFTMaxMs, sec1.TTFTMeanMs, "a maximum, not a mean")
	assert.InDelta(t, want, sec1.TTFTMaxMs, 0.005, "the largest TTFT of the requests that completed in that second (records in µs)")
	assert.LessOrEqual(t, sec1.TTFTMaxMs, s.TTFT.Max+1e-3, "no larger than the step's largest TTFT (histogram precision)")
}

// capacityServer runs at most 2 sequences at a time in steps of 11 ms,
// whatever the batch: a request's 10 tokens take 10 steps, its first token
// coming with its prefill, so each holds a slot for 110 ms and the capacity
// is 2/0.11 ≈ 18 req/s. The rest wait in vLLM's FIFO queue.
// capacityServer is a server of known capacity: two sequences at a time,
// every engine step 11 ms.
var capacityServer = vllmsim.Config{Model: "m", MaxNumSeqs: 2,
	Profile: engine.StepProfile{Name: "fixed-11ms", Fixed: 11 * time.Millisecond}}

func TestOpenLoopAboveCapacityFailsWhileClosedLoopLooksStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := virtualEngine(t, capacityServer)
		slos := plantest.MustSLOs(t, "ttft.p95<=300ms")

		// Open loop at 30 req/s, well above capacity: the queue grows every
		// second, so TTFT measured from the intended send time keeps rising.
		p := handPlan(c, fixedWorkload(16, 10), []float64{30}, 3*time.Second, slos)
		inVirtualTime(&p)
		p.DrainTimeout = 20 * time.Second
		rep, err := runPlan(context.Background(), p)
		require.NoError(t, err)
		open := rep.Steps[0]
		assert.Equal(t, report.VerdictFail, open.Verdict)
		assert.False(t, open.SLO[0].Pass)
		first, last := open.Timeline[0], open.Timeline[len(open.Timeline)-1]
		assert.Greater(t, last.TTFTMeanMs, 3*first.TTFTMeanMs, "TTFT grows through the step: %+v", open.Timeline)
		assert.Less(t, open.Goodput, 0.5, "most requests waited past the 300 ms TTFT limit")
		assert.Positive(t, open.Goodput, "the first ones, before the queue built, did not")

		// Closed loop, 4 clients, against the same server: it slows down with
		// the server, so its latency looks finite and steady and it passes.
		start := time.Now()
		rec := observe.NewRecorder(start, 3*time.Second, observe.PerRequestLimits{}, observe.LengthCheck{})
		cl := dispatch.ClosedLoop{Clients: 4, Duration: 3 * time.Second, Workload: fixedWorkload(16, 10), Doer: c, Sink: rec}
		n := cl.Run(context.Background())
		closed, ev := rec.Summary()
		verdict.JudgeSLOs(&closed, verdict.Criteria{SLOs: slos}).Apply(&closed)
		assert.True(t, closed.SLO[0].Pass, "closed loop hides the overload: %+v", closed.SLO[0])
		assert.Less(t, float64(n)/3, 20.0, "closed loop sent only what the server could take")
		ratio := float64(ev.TTFTSecondHalfP50) / float64(ev.TTFTFirstHalfP50)
		assert.InDelta(t, 1, ratio, 0.5, "closed-loop TTFT is flat")
		assert.Less(t, closed.TTFT.P95, 500.0)
	})
}

func TestOpenLoopBelowCapacityPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := virtualEngine(t, capacityServer)
		p := handPlan(c, fixedWorkload(16, 10), []float64{5}, 3*time.Second, plantest.MustSLOs(t, "ttft.p95<=300ms"))
		inVirtualTime(&p)
		p.DrainTimeout = 5 * time.Second
		rep, err := runPlan(context.Background(), p)
		require.NoError(t, err)
		s := rep.Steps[0]
		assert.Equal(t, report.VerdictPass, s.Verdict, "%+v", s.SLO)
		assert.Less(t, s.TTFT.P95, 100.0)
	})
}

func TestFaultsAreClassifiedAndCountAgainstErrorRate(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	cases := []struct {
		name   string
		faults vllmsim.Faults
		class  client.ErrorClass
		stall  time.Duration
	}{
		{"http 500", vllmsim.Faults{ErrorRate: 1, ErrorStatus: 500}, client.HTTPStatusClass(500), 0},
		{"http 429", vllmsim.Faults{ErrorRate: 1, ErrorStatus: 429}, client.HTTPStatusClass(429), 0},
		{"reset", vllmsim.Faults{DisconnectRate: 1, DisconnectAfter: 2, PacedITL: time.Millisecond}, client.ClassReset, 0},
		// Two tokens, then nothing until the client gives up.
		{"stall", vllmsim.Faults{StallRate: 1, StallAfter: 2, StallFor: time.Hour}, client.ClassStall, 300 * time.Millisecond},
		{"malformed", vllmsim.Faults{MalformedRate: 1, MalformedAfter: 1}, client.ClassMalformed, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := pacedSim(t, 0, tc.faults.PacedITL, tc.faults)
			stall := tc.stall
			if stall == 0 {
				stall = 10 * time.Second
			}
			c, err := client.New(client.Config{BaseURL: srv.URL, Model: "m", StallTimeout: stall})
			require.NoError(t, err)
			defer c.Close()
			p := handPlan(c, fixedWorkload(8, 4), []float64{20}, 500*time.Millisecond, plantest.MustSLOs(t, "error_rate<=1%", "ttft.p50<=1s"))
			p.DrainTimeout = 5 * time.Second
			done := make(chan struct{})
			var rep *report.Report
			go func() { defer close(done); rep, err = runPlan(context.Background(), p) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the run hung on a faulty server")
			}
			require.NoError(t, err)
			s := rep.Steps[0]
			assert.Equal(t, 10, s.Requests.Failed)
			assert.Equal(t, 10, s.Errors[string(tc.class)], "%v", s.Errors)
			failedBySecond := 0
			for _, sec := range s.Timeline {
				failedBySecond += sec.Failed
			}
			assert.Equal(t, 10, failedBySecond, "the timeline counts every failure")
			if tc.class == client.ClassStall {
				// The client gave up on a user who would still be waiting: each
				// request's first token and its gaps, the one still open at
				// least the stall timeout, enter as lower bounds.
				assert.Equal(t, int64(10), s.TTFT.Count)
				assert.Equal(t, int64(10*2), s.ITL.Count)
				assert.GreaterOrEqual(t, s.ITL.Max, 300.0)
			} else {
				assert.Zero(t, s.TTFT.Count, "failed requests stay out of the latency histograms")
			}
			assert.Equal(t, report.VerdictFail, s.Verdict)
			assert.Equal(t, 1.0, s.SLO[0].Observed)
		})
	}
}

func TestNoUsageIsCountedAndReported(t *testing.T) {
	srv := pacedSim(t, 0, 0, vllmsim.Faults{NoUsageRate: 1})
	c := engineClient(t, srv.URL)
	p := handPlan(c, fixedWorkload(8, 5), []float64{20}, 500*time.Millisecond, plantest.MustSLOs(t, "error_rate<=1%"))
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.Equal(t, 10, s.Requests.Completed)
	assert.Equal(t, 10, s.Tokens.UsageMissing)
	assert.Equal(t, int64(50), s.Tokens.Output, "without usage the output length is the count of token events")
}

func TestLengthMismatchFiresOnATruncatingServer(t *testing.T) {
	// Asked for 20, it stops after half of them, ignore_eos and min_tokens
	// notwithstanding.
	srv := pacedSim(t, 0, 0, vllmsim.Faults{TruncateRate: 1, TruncateFraction: 0.5})
	c := engineClient(t, srv.URL)
	p := handPlan(c, fixedWorkload(8, 20), []float64{20}, 500*time.Millisecond, plantest.MustSLOs(t, "error_rate<=1%"))
	rep, err := runPlan(context.Background(), p)
	require.NoError(t, err)
	s := rep.Steps[0]
	assert.True(t, s.HasHazard(verdict.HazardLengthMismatch), "%+v", s.Hazards)
	assert.Equal(t, 10, s.LengthMismatches)
	assert.Equal(t, report.VerdictInvalid, s.Verdict)

	// A server that honours the lengths: no hazard.
	p.Send.Doer = engineClient(t, pacedSim(t, 0, 0, vllmsim.Faults{}).URL)
	rep, err = runPlan(context.Background(), p)
	require.NoError(t, err)
	assert.False(t, rep.Steps[0].HasHazard(verdict.HazardLengthMismatch), "%+v", rep.Steps[0].Hazards)
}

func TestCancelledRunReturnsPartialReport(t *testing.T) {
	srv := pacedSim(t, 10*time.Millisecond, 0, vllmsim.Faults{})
	c := engineClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	p := handPlan(c, fixedWorkload(8, 2), []float64{20, 40}, 10*time.Second, plantest.MustSLOs(t, "error_rate<=1%"))
	start := time.Now()
	rep, err := runPlan(ctx, p)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 3*time.Second)
	require.NotNil(t, rep)
	assert.True(t, rep.Partial)
	require.Len(t, rep.Steps, 1)
	assert.True(t, rep.Steps[0].Partial)
	assert.Greater(t, rep.Steps[0].Requests.Completed, 8)
	assert.Equal(t, 1.0, rep.Steps[0].Goodput, "goodput of a cut step counts the requests whose time had come and were not cancelled")
	assert.Zero(t, rep.Steps[0].Requests.Failed, "the cancellation is not the server's failure")
}
