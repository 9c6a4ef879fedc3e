package verdict

import (
	"testing"
	"time"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
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
	s.SLO = judgeSLOs(s, slos, false, nil)
	return s
}

func TestTooFewSamples(t *testing.T) {
	p99 := []SLO{{Metric: report.MetricTTFT, Percentile: 99, Limit: time.Second}}
	th := DefaultThresholds()

	// 300 requests: too few for a p99 to have a 95% interval at all (it
	// needs 368), so more samples could move it across the limit.
	f := tooFewSamples(stepWithTTFT(300, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.True(t, f.decides, "an open p99 over 300 requests")
	assert.Contains(t, f.Message, "ttft.p99 rests on 3.0 observations")
	assert.Contains(t, f.Fix, "at least 120 s at 10 req/s (this one measured 30 s)", "1000 requests, 20% to spare")

	f = tooFewSamples(stepWithTTFT(1000, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.False(t, f.seen, "1000 requests are enough for a p99")

	// 500 requests far under the limit: the interval exists and lies
	// wholly below it, so the pass stands and the thin tail is a note.
	f = tooFewSamples(stepWithTTFT(500, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.True(t, f.seen)
	assert.False(t, f.decides)
	assert.Contains(t, f.Message, "wholly below the limit: more samples could not change its verdict")

	// A p99 whose whole interval lies above the limit failed conclusively:
	// more samples would not save it, so it is a note beside the failure.
	f = tooFewSamples(stepWithTTFT(500, 2*time.Second, p99), stepEvidence{slos: p99}, th)
	assert.False(t, f.decides)
	assert.Contains(t, f.Message, "wholly above the limit")
}

func TestWarmCacheThreshold(t *testing.T) {
	th := DefaultThresholds()
	rate := func(r float64) *report.StepReport {
		return &report.StepReport{Server: vllmapi.ServerStats{PrefixCacheHitRate: &r}}
	}
	assert.False(t, warmCache(rate(0.35), stepEvidence{expectedHitRate: 0.30, passing: true}, th).seen, "within 10 points of the fixture's own sharing")
	f := warmCache(rate(0.93), stepEvidence{passing: true}, th)
	assert.True(t, f.decides)
	assert.Contains(t, f.Message, "served 93% of prompt tokens but the fixture expects 0%")
	assert.False(t, warmCache(&report.StepReport{}, stepEvidence{passing: true}, th).seen, "no metrics, no judgement")
}

// The fix names the length that gives every gated metric its samples: here
// ITL's p99, which a step of short outputs starves before TTFT's p95.
func TestTooFewSamplesFixCoversEveryMetric(t *testing.T) {
	slos := []SLO{{Metric: report.MetricTTFT, Percentile: 95, Limit: time.Second}, {Metric: report.MetricITL, Percentile: 99, Limit: time.Second}}
	ttft, itl := stats.NewHistogram(), stats.NewHistogram()
	for range 200 { // 4 s at 50 req/s: exactly what a p95 needs
		ttft.Record(10 * time.Millisecond)
	}
	for i := range 600 { // three gaps a request: a p99 needs 1000
		d := 5 * time.Millisecond
		if i < 6 { // the slowest 1%, over the limit: the interval straddles it
			d = 2 * time.Second
		}
		itl.Record(d)
	}
	s := &report.StepReport{RateTarget: 50, DurationS: 4, Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: ttft, report.MetricITL: itl}}
	s.SLO = judgeSLOs(s, slos, false, nil)
	f := tooFewSamples(s, stepEvidence{slos: slos}, DefaultThresholds())
	require.True(t, f.decides)
	assert.NotContains(t, f.Message, "ttft.p95")
	// 4 s × 1000/600 × 1.2 = 8 s, rounded up to 10.
	assert.Contains(t, f.Fix, "at least 10 s at 50 req/s (this one measured 4 s)")

	// With no ITL sample at all, the fixture's mean output length says how
	// many gaps a request gives: 1000 gaps / 4 a request / 50 req/s = 5 s.
	assert.InDelta(t, 5, stepLengthFor(s, report.MetricITL, 0, 1000, 5), 1e-9)
}
