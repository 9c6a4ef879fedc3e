package load

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// stepWithTTFT builds a step whose TTFT histogram holds n copies of d.
func stepWithTTFT(n int, d time.Duration, slos []SLO) *StepReport {
	h := NewHistogram()
	for range n {
		h.Record(d)
	}
	s := &StepReport{RateTarget: 10, hists: map[Metric]*Histogram{MetricTTFT: h}}
	s.SLO = judgeSLOs(s, slos, false)
	return s
}

func TestTooFewSamples(t *testing.T) {
	p99 := []SLO{{Metric: MetricTTFT, Percentile: 99, Limit: time.Second}}
	th := DefaultThresholds()

	h, ok := tooFewSamples(stepWithTTFT(500, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.True(t, ok, "a passing p99 over 500 requests rests on 5 observations")
	assert.Contains(t, h.Message, "ttft.p99 rests on 5.0 observations")
	assert.Contains(t, h.Fix, "100 s at 10 req/s (1000 requests)")

	_, ok = tooFewSamples(stepWithTTFT(1000, 10*time.Millisecond, p99), stepEvidence{slos: p99}, th)
	assert.False(t, ok, "1000 requests are enough for a p99")

	// A p99 whose whole interval lies above the limit failed conclusively:
	// more samples would not save it, so it is a failure, not a hazard.
	_, ok = tooFewSamples(stepWithTTFT(500, 2*time.Second, p99), stepEvidence{slos: p99}, th)
	assert.False(t, ok)
}

func TestNotSteadyOnlyJudgesPassingSteps(t *testing.T) {
	th := DefaultThresholds()
	ev := stepEvidence{firstHalfN: 50, secondHalfN: 50, ttftFirstHalfP50: 100 * time.Millisecond, ttftSecondHalfP50: 400 * time.Millisecond}
	pass := &StepReport{SLO: []SLOResult{{Pass: true}}}
	h, ok := notSteady(pass, ev, th)
	assert.True(t, ok)
	assert.Contains(t, h.Message, "TTFT p50 rose from 100.0 ms in the first half to 400.0 ms")
	fail := &StepReport{SLO: []SLOResult{{Pass: false}}}
	_, ok = notSteady(fail, ev, th)
	assert.False(t, ok)
	ev.ttftSecondHalfP50 = 120 * time.Millisecond
	_, ok = notSteady(pass, ev, th)
	assert.False(t, ok)
	// A fast server's jitter: 1.0 ms to 1.8 ms is a large ratio but no queue.
	ev.ttftFirstHalfP50, ev.ttftSecondHalfP50 = time.Millisecond, 1800*time.Microsecond
	_, ok = notSteady(pass, ev, th)
	assert.False(t, ok)
}

func TestWarmCacheThreshold(t *testing.T) {
	th := DefaultThresholds()
	rate := func(r float64) *StepReport { return &StepReport{Server: ServerStats{PrefixCacheHitRate: &r}} }
	_, ok := warmCache(rate(0.35), stepEvidence{expectedHitRate: 0.30}, th)
	assert.False(t, ok, "within 10 points of the fixture's own sharing")
	h, ok := warmCache(rate(0.93), stepEvidence{}, th)
	assert.True(t, ok)
	assert.Contains(t, h.Message, "served 93% of prompt tokens but the fixture expects 0%")
	_, ok = warmCache(&StepReport{}, stepEvidence{}, th)
	assert.False(t, ok, "no metrics, no judgement")
}
