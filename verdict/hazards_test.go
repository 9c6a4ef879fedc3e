package verdict

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/observe"
	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/stats"
	"github.com/llmslo/llmslo/vllmapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepWithTTFT builds a step whose TTFT histogram holds n copies of d.
func stepWithTTFT(n int, d time.Duration, slos []SLO) *report.StepReport {
	h := stats.NewHistogram()
	for range n {
		h.Record(d)
	}
	s := &report.StepReport{RateTarget: 10, DurationS: float64(n) / 10, Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: h}}
	s.SLO = judgeSLOs(s, slos, false)
	return s
}

func TestTooFewSamples(t *testing.T) {
	p99 := []SLO{{Metric: report.MetricTTFT, Percentile: 99, Limit: time.Second}}
	th := DefaultThresholds()

	h, ok := tooFewSamples(stepWithTTFT(500, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.True(t, ok, "a passing p99 over 500 requests rests on 5 observations")
	assert.Contains(t, h.Message, "ttft.p99 rests on 5.0 observations")
	assert.Contains(t, h.Fix, "at least 120 s at 10 req/s (this one measured 50 s)", "1000 requests, 20% to spare")

	_, ok = tooFewSamples(stepWithTTFT(1000, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.False(t, ok, "1000 requests are enough for a p99")

	// A p99 whose whole interval lies above the limit failed conclusively:
	// more samples would not save it, so it is a failure, not a hazard.
	_, ok = tooFewSamples(stepWithTTFT(500, 2*time.Second, p99), stepEvidence{slos: p99}, th)
	assert.False(t, ok)
}

func TestNotSteadyOnlyJudgesPassingSteps(t *testing.T) {
	th := DefaultThresholds()
	ev := stepEvidence{Evidence: observe.Evidence{FirstHalfN: 50, SecondHalfN: 50, TTFTFirstHalfP50: 100 * time.Millisecond, TTFTSecondHalfP50: 400 * time.Millisecond}}
	pass := &report.StepReport{SLO: []report.SLOResult{{Pass: true}}}
	h, ok := notSteady(pass, ev, th)
	assert.True(t, ok)
	assert.Contains(t, h.Message, "TTFT p50 rose from 100.0 ms in the first half to 400.0 ms")
	fail := &report.StepReport{SLO: []report.SLOResult{{Pass: false}}}
	_, ok = notSteady(fail, ev, th)
	assert.False(t, ok)
	ev.TTFTSecondHalfP50 = 120 * time.Millisecond
	_, ok = notSteady(pass, ev, th)
	assert.False(t, ok)
	// A fast server's jitter: 1.0 ms to 1.8 ms is a large ratio but no queue.
	ev.TTFTFirstHalfP50, ev.TTFTSecondHalfP50 = time.Millisecond, 1800*time.Microsecond
	_, ok = notSteady(pass, ev, th)
	assert.False(t, ok)
}

func TestWarmCacheThreshold(t *testing.T) {
	th := DefaultThresholds()
	rate := func(r float64) *report.StepReport {
		return &report.StepReport{Server: vllmapi.ServerStats{PrefixCacheHitRate: &r}}
	}
	_, ok := warmCache(rate(0.35), stepEvidence{expectedHitRate: 0.30}, th)
	assert.False(t, ok, "within 10 points of the fixture's own sharing")
	h, ok := warmCache(rate(0.93), stepEvidence{}, th)
	assert.True(t, ok)
	assert.Contains(t, h.Message, "served 93% of prompt tokens but the fixture expects 0%")
	_, ok = warmCache(&report.StepReport{}, stepEvidence{}, th)
	assert.False(t, ok, "no metrics, no judgement")
}

// The fix names the length that gives every gated metric its samples: here
// ITL's p99, which a step of short outputs starves before TTFT's p95.
func TestTooFewSamplesFixCoversEveryMetric(t *testing.T) {
	slos := []SLO{{Metric: report.MetricTTFT, Percentile: 95, Limit: time.Second}, {Metric: report.MetricITL, Percentile: 99, Limit: time.Second}}
	ttft, itl := stats.NewHistogram(), stats.NewHistogram()
	for range 200 { // 4 s at 50 req/s: exactly what a p95 needs
		ttft.Record(10 * time.Millisecond)
	}
	for range 600 { // three gaps a request: a p99 needs 1000
		itl.Record(5 * time.Millisecond)
	}
	s := &report.StepReport{RateTarget: 50, DurationS: 4, Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: ttft, report.MetricITL: itl}}
	s.SLO = judgeSLOs(s, slos, false)
	h, ok := tooFewSamples(s, stepEvidence{slos: slos}, DefaultThresholds())
	require.True(t, ok)
	assert.NotContains(t, h.Message, "ttft.p95")
	// 4 s × 1000/600 × 1.2 = 8 s, rounded up to 10.
	assert.Contains(t, h.Fix, "at least 10 s at 50 req/s (this one measured 4 s)")

	// With no ITL sample at all, the fixture's mean output length says how
	// many gaps a request gives: 1000 gaps / 4 a request / 50 req/s = 5 s.
	assert.InDelta(t, 5, stepLengthFor(s, report.MetricITL, 0, 1000, 5), 1e-9)
}
