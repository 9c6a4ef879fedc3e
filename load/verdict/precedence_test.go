package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
)

func TestVerdictPrecedence(t *testing.T) {
	conclusiveFail := report.SLOResult{Metric: "error_rate", Conclusive: true, Pass: false}
	inconclusiveFail := report.SLOResult{Metric: "ttft", Percentile: 95, Conclusive: false, Pass: false}
	conclusiveLatencyFail := report.SLOResult{Metric: "ttft", Percentile: 95, Conclusive: true, Pass: false}
	pass := report.SLOResult{Metric: "ttft", Percentile: 95, Conclusive: true, Pass: true}
	hz := func(kinds ...string) []report.Hazard {
		var out []report.Hazard
		for _, k := range kinds {
			out = append(out, report.Hazard{Kind: k})
		}
		return out
	}
	cases := []struct {
		name    string
		slo     []report.SLOResult
		hazards []report.Hazard
		want    report.Verdict
	}{
		{"all pass", []report.SLOResult{pass}, nil, report.VerdictPass},
		{"a conclusive failure beats too few samples elsewhere", []report.SLOResult{conclusiveFail, pass}, hz(HazardTooFewSamples), report.VerdictFail},
		{"a conclusive failure beats not_steady", []report.SLOResult{conclusiveFail}, hz(HazardNotSteady), report.VerdictFail},
		{"a conclusive failure beats a warm cache (it only flatters)", []report.SLOResult{conclusiveFail}, hz(HazardWarmCache), report.VerdictFail},
		{"a late client cannot cause errors", []report.SLOResult{conclusiveFail}, hz(HazardClientSaturation), report.VerdictFail},
		{"a client that changed the load can", []report.SLOResult{conclusiveFail},
			[]report.Hazard{{Kind: HazardClientSaturation, ChangedLoad: true}}, report.VerdictInvalid},
		{"a late client may have caused a latency failure", []report.SLOResult{conclusiveLatencyFail}, hz(HazardClientSaturation), report.VerdictInvalid},
		{"so may a server that ignored the lengths", []report.SLOResult{conclusiveLatencyFail}, hz(HazardNotSteady, HazardLengthMismatch), report.VerdictInvalid},
		{"an inconclusive failure with a hazard cannot be judged", []report.SLOResult{inconclusiveFail}, hz(HazardTooFewSamples), report.VerdictInvalid},
		{"an inconclusive failure alone fails", []report.SLOResult{inconclusiveFail}, nil, report.VerdictFail},
		{"a hazard on a passing step makes it invalid", []report.SLOResult{pass}, hz(HazardWarmCache), report.VerdictInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, verdictOf(Judgement{SLO: tc.slo, Hazards: tc.hazards}))
		})
	}
}

func TestErrorRateIsJudgedOnItsInterval(t *testing.T) {
	limit := SLO{Metric: report.MetricErrorRate, MaxRate: 0.01}
	step := func(sent, failed int) *report.StepReport {
		return &report.StepReport{Requests: report.RequestCounts{Sent: sent, Failed: failed}}
	}
	one := judgeErrorRate(step(80, 1), limit, false)
	assert.True(t, one.Pass, "1 in 80 is consistent with a 1%% rate: %+v", one)
	assert.False(t, one.Conclusive)
	assert.InDelta(t, 0.0125, one.Observed, 1e-12)
	assert.False(t, judgeErrorRate(step(80, 1), limit, true).Pass, "strict: the upper end decides")

	third := judgeErrorRate(step(100, 30), limit, false)
	assert.False(t, third.Pass)
	assert.True(t, third.Conclusive)

	none := judgeErrorRate(step(400, 0), limit, true)
	assert.True(t, none.Pass, "0 in 400: the interval's upper end is 0.95%%")
	assert.True(t, none.Conclusive)

	zero := judgeErrorRate(step(20, 1), SLO{Metric: report.MetricErrorRate}, false)
	assert.False(t, zero.Pass, "error_rate<=0%% fails on one failure")
}

func TestErrorGuardIsAlwaysOn(t *testing.T) {
	latencyOnly := []SLO{{Metric: report.MetricTTFT, Percentile: 50, Limit: 1e9}}
	g := Guarded(latencyOnly)
	assert.Len(t, g, 2)
	assert.Equal(t, DefaultErrorRate(), g[1])
	assert.Len(t, latencyOnly, 1, "the caller's slice is left alone")
	own := []SLO{{Metric: report.MetricErrorRate, MaxRate: 0.05}}
	assert.Equal(t, own, Guarded(own), "an explicit error_rate SLO is the only one")
}

func TestThresholdsValidate(t *testing.T) {
	assert.NoError(t, Thresholds{}.Validate())
	assert.NoError(t, Thresholds{Off: []string{HazardNotSteady}}.Validate())
	assert.ErrorContains(t, Thresholds{Off: []string{"not_stedy"}}.Validate(), `"not_stedy" in Off is no hazard kind`)
	assert.ErrorContains(t, Thresholds{MaxSendLagP99: -1}.Validate(), "MaxSendLagP99 is negative")
}
