package verdict

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// lateStep is a 45 s step at 6 req/s (270 requests, the PR gate's
// settings) whose server answers every request in ttft from its actual
// send and whose client sent each request lag[i % len(lag)] late.
type lateStep struct {
	n        int
	ttft     time.Duration
	e2el     time.Duration
	lag      []time.Duration
	sentIn   int // sent within the window; n when zero
	duePerS  []int
	sentPerS []int
}

func (l lateStep) build() (*report.StepReport, observe.Evidence) {
	ttft, ttftSend, e2el, e2elSend, lag := stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram()
	itl := stats.NewHistogram()
	for i := range l.n {
		for range 20 {
			itl.Record(10 * time.Millisecond) // gaps are the server's: no lag in them
		}
		d := l.lag[i%len(l.lag)]
		lag.Record(d)
		ttftSend.Record(l.ttft)
		ttft.Record(l.ttft + d)
		e2elSend.Record(l.e2el)
		e2el.Record(l.e2el + d)
	}
	s := &report.StepReport{
		RateTarget: float64(l.n) / 45, DurationS: 45,
		Requests: report.RequestCounts{Scheduled: l.n, Sent: l.n, Completed: l.n},
		SendLag:  lag.Summary(),
		Histograms: map[report.Metric]*stats.Histogram{
			report.MetricTTFT: ttft, report.MetricTTFTSend: ttftSend, report.MetricE2EL: e2el, report.MetricE2ELSend: e2elSend,
			report.MetricITL: itl,
		},
	}
	sentIn := l.sentIn
	if sentIn == 0 {
		sentIn = l.n
	}
	return s, observe.Evidence{Due: l.n, SentInWindow: sentIn, SendLag: lag, DuePerS: l.duePerS, SentPerS: l.sentPerS}
}

func judge(t *testing.T, l lateStep, slos ...string) *report.StepReport {
	t.Helper()
	parsed, err := ParseSLOs(slos)
	require.NoError(t, err)
	s, ev := l.build()
	Judge(s, ev, Criteria{SLOs: parsed}).Apply(s)
	return s
}

func hazardOf(s *report.StepReport, kind string, notes bool) *report.Hazard {
	list := s.Hazards
	if notes {
		list = s.Notes
	}
	for i := range list {
		if list[i].Kind == kind {
			return &list[i]
		}
	}
	return nil
}

func ms17() []time.Duration {
	lag := make([]time.Duration, 90)
	for i := range lag {
		lag[i] = 500 * time.Microsecond
	}
	lag[0] = 17 * time.Millisecond // 3 of 270 sends 17 ms late: a p99 of 17 ms
	return lag
}

// A shared VM's hiccup: three sends of 270 were 17 ms late, against SLOs
// in seconds. It is seen and said, but it decides nothing.
func TestLagThatCannotFlipAVerdictIsANote(t *testing.T) {
	s := judge(t, lateStep{n: 270, ttft: 120 * time.Millisecond, e2el: 2 * time.Second, lag: ms17()}, "ttft.p95<=5s", "itl.p99<=2s")
	require.Greater(t, s.SendLag.P99, 5.0, "the lag is over the 5 ms it is noticed from")
	assert.Equal(t, report.VerdictPass, s.Verdict)
	assert.Empty(t, s.Hazards)
	n := hazardOf(s, HazardClientSaturation, true)
	require.NotNil(t, n, "the lag is a note")
	assert.Contains(t, n.Message, "could not have changed the verdict")
	assert.Contains(t, n.Message, "ttft.p95 120.5 ms as measured, 120.0 ms without the delay (limit 5000 ms); itl.p99 10.0 ms as measured, 10.0 ms without the delay (limit 2000 ms)")
	assert.Contains(t, n.Message, "270 of the 270 requests due in the window went out within it")
	assert.Contains(t, n.Message, "0 of 270 sends were late by more than 500.0 ms")
}

// The same lag on every request, with the TTFT limit between the figure
// with it and the figure without it: the lag decides the SLO.
func TestLagThatPushesAPercentileAcrossItsLimitIsInvalid(t *testing.T) {
	lag := []time.Duration{30 * time.Millisecond}
	s := judge(t, lateStep{n: 270, ttft: 480 * time.Millisecond, e2el: 2 * time.Second, lag: lag}, "ttft.p95<=500ms")
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.Contains(t, h.Message, "ttft.p95 is 510.0 ms as measured and 480.0 ms without the client's delay (limit 500 ms)")
	assert.Contains(t, h.Message, "the delay decides it")

	// With a limit far from both figures, the same lag is a note.
	s = judge(t, lateStep{n: 270, ttft: 480 * time.Millisecond, e2el: 2 * time.Second, lag: lag}, "ttft.p95<=2s")
	assert.Equal(t, report.VerdictPass, s.Verdict)
	assert.NotNil(t, hazardOf(s, HazardClientSaturation, true))
}

// A client that could not send what was due: 900 of 1000 went out within
// the window. The server saw 10% less load than the schedule's.
func TestSustainedLatenessThatLowersTheAchievedRateIsInvalid(t *testing.T) {
	s := judge(t, lateStep{n: 1000, ttft: 50 * time.Millisecond, e2el: time.Second, lag: []time.Duration{time.Millisecond}, sentIn: 900}, "ttft.p95<=5s")
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.Contains(t, h.Message, "900 of the 1000 requests due in the window went out within it: 10.0% short")

	// One request of 40 pushed past the window's end by a millisecond is
	// no lower rate: its interval reaches down to 0.
	s = judge(t, lateStep{n: 40, ttft: 50 * time.Millisecond, e2el: time.Second, lag: []time.Duration{time.Millisecond}, sentIn: 39}, "ttft.p50<=5s")
	assert.Nil(t, hazardOf(s, HazardClientSaturation, false))
}

// A share of sends late by more than a tenth of both the gap between
// arrivals and the service time changed the load the server saw.
func TestSendsLateBeyondTheGapAndServiceTimeAreInvalid(t *testing.T) {
	lag := make([]time.Duration, 10)
	for i := range lag {
		lag[i] = 100 * time.Microsecond
	}
	lag[0] = 80 * time.Millisecond // one send in ten
	// 4500 requests in 45 s: a 10 ms gap; a 20 ms service time.
	s := judge(t, lateStep{n: 4500, ttft: 10 * time.Millisecond, e2el: 20 * time.Millisecond, lag: lag}, "ttft.p50<=5s")
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.Contains(t, h.Message, "450 of 4500 sends were late by more than 10.0 ms (the server's median inter-token gap")
	assert.NotContains(t, h.Message, "decides it", "the SLO is far from the limit either way: the load alone decides")
}

// A client that stalled for a second and then caught up sent the whole
// step's count, but bunched a second's arrivals.
func TestAShortWindowThatFellBehindIsInvalid(t *testing.T) {
	due, sent := make([]int, 45), make([]int, 45)
	for i := range due {
		due[i], sent[i] = 100, 100
	}
	sent[10], sent[11] = 0, 200
	s := judge(t, lateStep{n: 4500, ttft: 10 * time.Millisecond, e2el: 20 * time.Second, lag: []time.Duration{time.Millisecond},
		duePerS: due, sentPerS: sent}, "ttft.p50<=5s")
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.Contains(t, h.Message, "in seconds 10–11 of the window 0 of 100 due went out")
}

// A waiting queue that keeps growing is a server past its capacity: the
// step fails with the growth as evidence and what binds, not invalid.
func TestAGrowingQueueFailsAsOverCapacity(t *testing.T) {
	s, ev := lateStep{n: 270, ttft: 300 * time.Millisecond, e2el: 2 * time.Second, lag: []time.Duration{time.Millisecond}}.build()
	s.Server = vllmapi.ServerStats{MetricsAvailable: true, WaitingSlopePerS: 0.8, WaitingRise: 9, WaitingAtEnd: 14,
		MaxRunning: 2, RunningAtMaxShare: 0.9, MaxWaiting: 14}
	parsed, err := ParseSLOs([]string{"ttft.p50<=2s"})
	require.NoError(t, err)
	Judge(s, ev, Criteria{SLOs: parsed, MaxNumSeqs: 2}).Apply(s)
	assert.Equal(t, report.VerdictFail, s.Verdict, "every SLO held so far, but no step length would keep them")
	require.NotNil(t, s.OverCapacity)
	assert.Contains(t, s.OverCapacity.Message, "arrivals outpace completions by 0.80 req/s")
	assert.Empty(t, s.Hazards)
	require.NotNil(t, s.Binding)
	assert.Equal(t, BindMaxNumSeqs, s.Binding.Kind)

	// Turned off with not_steady, the step passes.
	Judge(s, ev, Criteria{SLOs: parsed, MaxNumSeqs: 2, Thresholds: Thresholds{Off: []string{HazardNotSteady}}}).Apply(s)
	assert.Equal(t, report.VerdictPass, s.Verdict)
	assert.Nil(t, s.OverCapacity)
}

// A conclusive failure outranks the hazards that could not have caused
// it: they are kept as notes, so that a step's hazards are exactly what
// made it invalid.
func TestHazardsBesideAStandingFailureAreNotes(t *testing.T) {
	s, ev := lateStep{n: 300, ttft: 3 * time.Second, e2el: 5 * time.Second, lag: []time.Duration{time.Millisecond}}.build()
	hr := 0.9
	s.Server = vllmapi.ServerStats{MetricsAvailable: true, PrefixCacheHitRate: &hr}
	parsed, err := ParseSLOs([]string{"ttft.p95<=500ms", "ttft.p99<=5s"})
	require.NoError(t, err)
	Judge(s, ev, Criteria{SLOs: parsed}).Apply(s)
	assert.Equal(t, report.VerdictFail, s.Verdict)
	assert.Empty(t, s.Hazards)
	assert.NotNil(t, hazardOf(s, HazardWarmCache, true))
	assert.NotNil(t, hazardOf(s, HazardTooFewSamples, true), "the p99 is open, but the p95's failure stands")
}

func TestLengthMismatchDecidesByDirection(t *testing.T) {
	failing := stepEvidence{Evidence: observe.Evidence{LengthChecked: 100}}
	s := &report.StepReport{LengthMismatches: 10}
	f := lengthMismatch(s, failing, DefaultThresholds())
	assert.True(t, f.seen)
	assert.False(t, f.decides, "all shorter: less work, and it still failed")
	assert.Contains(t, f.Message, "the failure stands")

	failing.LengthLonger = 3
	f = lengthMismatch(s, failing, DefaultThresholds())
	assert.True(t, f.decides, "more work than asked could have caused the failure")
	assert.Contains(t, f.Message, "3 with more tokens than asked")

	passing := stepEvidence{passing: true, Evidence: observe.Evidence{LengthChecked: 100}}
	assert.True(t, lengthMismatch(s, passing, DefaultThresholds()).decides, "less work than asked could have made it pass")
	s.LengthMismatches = 2
	assert.False(t, lengthMismatch(s, passing, DefaultThresholds()).seen, "2% is within the threshold")
}

// A client that ran out of its own descriptors changed the load (those
// requests never left) and says so, even where the in-flight cap's drops
// are allowed.
func TestAClientOutOfDescriptorsIsInvalid(t *testing.T) {
	s, ev := lateStep{n: 1000, ttft: 10 * time.Millisecond, e2el: 20 * time.Millisecond, lag: []time.Duration{time.Millisecond}, sentIn: 400}.build()
	s.Requests.Dropped = 600
	s.Errors = map[string]int{"client_limit": 600}
	parsed, err := ParseSLOs([]string{"ttft.p95<=5s"})
	require.NoError(t, err)
	Judge(s, ev, Criteria{SLOs: parsed, Thresholds: Thresholds{AllowDrops: true}}).Apply(s)
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.True(t, h.ChangedLoad)
	assert.Contains(t, h.Message, "600 requests never left for want of the client's own file descriptors or ports")
	assert.NotContains(t, h.Message, "in-flight cap")
	assert.Contains(t, h.Fix, "raise its open-file limit (ulimit -n)")
}

// At 4,500 req/s against a server answering in 0.2 ms, a quarter of the
// service time is 55 µs, under what a loaded kernel's timers resolve. Sends
// late by half a millisecond bunch nothing the server can tell apart: under
// the 1 ms floor they are a note. With the floor turned down to nothing,
// the same sends change the load.
func TestLatenessUnderTheServersGranularityIsANote(t *testing.T) {
	lag := make([]time.Duration, 50)
	for i := range lag {
		lag[i] = 500 * time.Microsecond
	}
	lag[0] = 8 * time.Millisecond // p99 over the 5 ms that notices it
	parsed, err := ParseSLOs([]string{"ttft.p95<=5s"})
	require.NoError(t, err)
	build := func() (*report.StepReport, observe.Evidence) {
		s, ev := lateStep{n: 4500, ttft: 200 * time.Microsecond, e2el: 200 * time.Microsecond, lag: lag}.build()
		s.DurationS = 1
		delete(s.Histograms, report.MetricITL) // one-token answers: no gaps
		return s, ev
	}
	s, ev := build()
	Judge(s, ev, Criteria{SLOs: parsed}).Apply(s)
	assert.Equal(t, report.VerdictPass, s.Verdict, "%+v", s.Hazards)
	n := hazardOf(s, HazardClientSaturation, true)
	require.NotNil(t, n)
	assert.Contains(t, n.Message, "90 of 4500 sends were late by more than 1.0 ms (the floor of 1.0 ms")

	s, ev = build()
	Judge(s, ev, Criteria{SLOs: parsed, Thresholds: Thresholds{MinLateness: time.Nanosecond}}).Apply(s)
	assert.Equal(t, report.VerdictInvalid, s.Verdict)
	h := hazardOf(s, HazardClientSaturation, false)
	require.NotNil(t, h)
	assert.True(t, h.ChangedLoad)
}

// The client's delay decides an SLO only where a verdict can tell: a pass
// that turns to a failure, or a failure whose conclusiveness changes. Two
// passes, one with an interval and one without, decide nothing: a healthy
// server's step was refused for that on a busy machine.
func TestDelayDecidesOnlyWhatAVerdictCanTell(t *testing.T) {
	pass := report.SLOResult{Pass: true, Conclusive: true}
	passNoInterval := report.SLOResult{Pass: true}
	fail := report.SLOResult{Conclusive: true}
	failInconclusive := report.SLOResult{}
	cases := []struct {
		name      string
		with, alt report.SLOResult
		decides   bool
	}{
		{"two passes, one without an interval", passNoInterval, pass, false},
		{"two passes, the other way", pass, passNoInterval, false},
		{"a failure only with the delay", fail, pass, true},
		{"a conclusive failure only with the delay", fail, failInconclusive, true},
		{"the same failure", fail, fail, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.decides, delayDecides(tc.with, tc.alt), tc.name)
	}
}
