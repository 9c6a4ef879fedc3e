package slotest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/verdict"
)

// failures records what an assertion reported instead of failing the test.
type failures struct{ msgs []string }

func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

// knownStep has 400 TTFTs of 100 ms and 20 of 900 ms (p95 100 ms, p99
// 900 ms), ITLs of 10 ms with a 2% tail at 80 ms (p99 80 ms), 2 failures in 400 sent,
// 300 of 400 requests good, and the given hazards.
func knownStep(hazards ...string) *report.StepReport {
	ttft, itl := stats.NewHistogram(), stats.NewHistogram()
	for i := range 420 {
		if i < 400 {
			ttft.Record(100 * time.Millisecond)
		} else {
			ttft.Record(900 * time.Millisecond)
		}
	}
	for i := range 10000 {
		if i%50 == 0 {
			itl.Record(80 * time.Millisecond)
		} else {
			itl.Record(10 * time.Millisecond)
		}
	}
	s := &report.StepReport{Name: "rate=8", RateTarget: 8, DurationS: 50,
		Requests:   report.RequestCounts{Scheduled: 400, Sent: 400, Completed: 398, Failed: 2, Good: 300},
		Goodput:    0.75,
		Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: ttft, report.MetricITL: itl}}
	for _, k := range hazards {
		s.Hazards = append(s.Hazards, report.Hazard{Kind: k, Message: "test"})
	}
	return s
}

// Every Assert helper passes on a step that meets it and fails, saying
// why, on one that does not.
func TestAssertHelpersFailWhenTheyShould(t *testing.T) {
	cases := []struct {
		name       string
		assert     func(assert.TestingT, *report.StepReport) bool
		step       *report.StepReport
		wantPass   bool
		wantInText string
	}{
		{"SLO holds", func(t assert.TestingT, s *report.StepReport) bool { return AssertSLO(t, s, "ttft.p50<=150ms") }, knownStep(), true, ""},
		{"SLO broken", func(t assert.TestingT, s *report.StepReport) bool { return AssertSLO(t, s, "ttft.p99<=500ms") }, knownStep(), false, "ttft.p99"},
		{"SLO expression bad", func(t assert.TestingT, s *report.StepReport) bool { return AssertSLO(t, s, "tfft.p99<=1s") }, knownStep(), false, "unknown metric"},
		{"p95 TTFT holds", func(t assert.TestingT, s *report.StepReport) bool { return AssertP95TTFT(t, s, "200ms") }, knownStep(), true, ""},
		{"p95 TTFT broken", func(t assert.TestingT, s *report.StepReport) bool { return AssertP95TTFT(t, s, "50ms") }, knownStep(), false, "ttft.p95"},
		{"p99 ITL holds", func(t assert.TestingT, s *report.StepReport) bool { return AssertP99ITL(t, s, "100ms") }, knownStep(), true, ""},
		{"p99 ITL broken", func(t assert.TestingT, s *report.StepReport) bool { return AssertP99ITL(t, s, "50ms") }, knownStep(), false, "itl.p99"},
		{"error rate holds", func(t assert.TestingT, s *report.StepReport) bool { return AssertErrorRate(t, s, "1%") }, knownStep(), true, ""},
		{"error rate broken", func(t assert.TestingT, s *report.StepReport) bool { return AssertErrorRate(t, s, "0%") }, knownStep(), false, "error_rate 0.50%"},
		{"goodput holds", func(t assert.TestingT, s *report.StepReport) bool { return AssertGoodput(t, s, 0.7) }, knownStep(), true, ""},
		{"goodput short", func(t assert.TestingT, s *report.StepReport) bool { return AssertGoodput(t, s, 0.9) }, knownStep(), false, "goodput 75.0%"},
		{"valid", AssertValid, knownStep(), true, ""},
		{"invalid", AssertValid, knownStep(verdict.HazardWarmCache), false, "cannot be trusted"},
		{"hazard present", func(t assert.TestingT, s *report.StepReport) bool { return AssertHazard(t, s, verdict.HazardWarmCache) },
			knownStep(verdict.HazardWarmCache), true, ""},
		{"hazard absent", func(t assert.TestingT, s *report.StepReport) bool { return AssertHazard(t, s, verdict.HazardWarmCache) },
			knownStep(verdict.HazardNotSteady), false, "expected hazard warm_cache"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f failures
			got := tc.assert(&f, tc.step)
			assert.Equal(t, tc.wantPass, got)
			if tc.wantPass {
				assert.Empty(t, f.msgs)
				return
			}
			if assert.Len(t, f.msgs, 1) {
				assert.Contains(t, f.msgs[0], tc.wantInText)
			}
		})
	}
}
