package slotest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// clientQuiet turns client_saturation off: it measures the shared test
// machine rather than the situation a test builds, and has tests of its own
// in package load.
func clientQuiet(th *verdict.Thresholds) {
	th.Off = append(th.Off, verdict.HazardClientSaturation)
}

func measure(t *testing.T, opts ...Option) *report.StepReport {
	t.Helper()
	rep, err := measureRun(t, opts...)
	require.NoError(t, err)
	require.Len(t, rep.Steps, 1)
	return &rep.Steps[0]
}

func TestWarmCacheFiresOnARepeatedRunWithoutSaltOrReset(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	t.Parallel()                                           // light (TestMain)
	srv := simtest.Start(t, vllmsim.Config{DevMode: true}) // serves /reset_prefix_cache
	run := func(salt, reset bool) *report.StepReport {
		return measure(t, WithTarget(srv.URL), WithFixture("fixed:1024:4"), WithRates(20),
			WithDuration(time.Second), WithWarmup(0), WithSLO("ttft.p50<=10s"), WithSeed(7),
			WithSalt(salt), WithResetPrefixCache(reset), WithThresholds(clientQuiet))
	}
	first := run(false, false)
	assert.False(t, first.HasHazard(verdict.HazardWarmCache), "a cold server: %+v", first.Hazards)
	require.NotNil(t, first.Server.PrefixCacheHitRate)

	second := run(false, false) // identical prompts to a warm cache
	require.True(t, second.HasHazard(verdict.HazardWarmCache), "%+v", second.Hazards)
	assert.Greater(t, *second.Server.PrefixCacheHitRate, 0.9)
	assert.Equal(t, report.VerdictInvalid, second.Verdict)
	assert.False(t, second.Server.PrefixCacheReset)

	// Either guard alone keeps the measurement honest.
	salted := run(true, false)
	assert.False(t, salted.HasHazard(verdict.HazardWarmCache), "salted: %+v", salted.Hazards)
	reset := run(false, true)
	assert.True(t, reset.Server.PrefixCacheReset)
	assert.False(t, reset.HasHazard(verdict.HazardWarmCache), "reset: %+v", reset.Hazards)
	assert.Equal(t, report.VerdictPass, reset.Verdict)
}

func TestTooFewSamplesFiresForAP99OverFiftyRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	t.Parallel() // light (TestMain)
	opts := []Option{WithSim(vllmsim.Config{ProfileName: "instant"}), WithFixture("fixed:16:2"), WithRates(25),
		WithArrival("constant"), WithDuration(2 * time.Second), WithWarmup(0), WithThresholds(clientQuiet)}
	st := measure(t, append(opts, WithSLO("ttft.p99<=10s"))...)
	assert.Equal(t, 50, st.Requests.Completed)
	require.True(t, st.HasHazard(verdict.HazardTooFewSamples), "%+v", st.Hazards)
	assert.Contains(t, st.Hazards[0].Message, "ttft.p99")
	assert.Contains(t, st.Hazards[0].Fix, "at least 50 s at 25 req/s", "1000 requests at 25 req/s, 20% to spare")

	st = measure(t, append(opts, WithSLO("ttft.p50<=10s"))...)
	assert.Empty(t, st.Hazards)
	assert.Equal(t, report.VerdictPass, st.Verdict)
}

// truncatingProxy stands in front of a server and halves every request's
// max_tokens over 32, as a gateway that caps long outputs does: llmslo's
// ignore_eos probe before the step asks for 16 and passes through whole,
// so it is the step that must catch it.
func truncatingProxy(t *testing.T, upstream string) string {
	u, err := url.Parse(upstream)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				if mt, ok := m["max_tokens"].(float64); ok && mt > 32 {
					m["max_tokens"] = int(mt / 2)
					delete(m, "min_tokens")
					delete(m, "max_completion_tokens")
					body, _ = json.Marshal(m)
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		}
		rp.ServeHTTP(w, r)
	})
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

func TestLengthMismatchFiresAgainstATruncatingServer(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant"})
	opts := []Option{WithFixture("fixed:64:64"), WithRates(20), WithDuration(time.Second), WithWarmup(0),
		WithSLO("ttft.p50<=10s"), WithThresholds(clientQuiet)}
	st := measure(t, append(opts, WithTarget(truncatingProxy(t, srv.URL)))...)
	require.True(t, st.HasHazard(verdict.HazardLengthMismatch), "%+v", st.Hazards)
	assert.Equal(t, st.Requests.Completed, st.LengthMismatches)
	assert.Equal(t, int64(32*st.Requests.Completed), st.Tokens.Output)

	st = measure(t, append(opts, WithTarget(srv.URL))...)
	assert.False(t, st.HasHazard(verdict.HazardLengthMismatch), "%+v", st.Hazards)
	assert.Zero(t, st.LengthMismatches)
}

// Past a KV-bound knee (300 blocks hold 3 of these 1280-token requests,
// and 3 arrive a second), preempted requests resume and find their own
// blocks again. Those lookups are no warm cache: the step stays valid. (A cache this
// small holds too little of a previous run for a re-run to hit; the warm
// re-run is TestWarmCacheFiresOnARepeatedRunWithoutSaltOrReset.)
func TestWarmCacheQuietUnderPreemption(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	t.Parallel() // light (TestMain)
	srv := simtest.Start(t, vllmsim.Config{NumGPUBlocks: 300, MaxModelLen: 4096, EnablePromptTokensDetails: true})
	st := measure(t, WithTarget(srv.URL), WithFixture("fixed:1024:256"), WithRates(3), WithArrival("constant"),
		WithDuration(3*time.Second), WithWarmup(0), WithSLO("ttft.p50<=30s"), WithSeed(11), WithThresholds(clientQuiet),
		WithThresholds(func(th *verdict.Thresholds) { th.Off = append(th.Off, verdict.HazardTooFewSamples) }))
	t.Logf("%.0f preemptions, %.0f of %.0f prompt tokens found cached, KV cache at most %.0f%% full; step took %v", st.Server.Preemptions, st.Server.PrefixHitTokens, st.Server.PrefixQueryTokens, 100*st.Server.KVCacheUsageMax, time.Since(st.StartedAt).Round(time.Millisecond))
	require.Positive(t, st.Server.Preemptions, "the KV cache must be the bottleneck: %+v", st.Server)
	assert.Greater(t, st.Server.KVCacheUsageMax, 0.8)
	assert.False(t, st.HasHazard(verdict.HazardWarmCache), "%+v %+v", st.Hazards, st.Server)
	rate, ok := st.PromptCache.HitRate()
	require.True(t, ok, "the server reports cached_tokens per request")
	assert.Less(t, rate, 0.05)
}

// measureRun measures the plan the options describe, as load.Measure does
// for a program.
func measureRun(t *testing.T, opts ...Option) (*report.Report, error) {
	t.Helper()
	p, err := newConfig(opts...).build()
	require.NoError(t, err)
	return load.Measure(context.Background(), p)
}

// newPlan is the plan the options describe, as Run builds it without the
// environment (SLOTEST_*) and -short.
func newPlan(opts ...Option) (load.Plan, error) { return newConfig(opts...).build() }
