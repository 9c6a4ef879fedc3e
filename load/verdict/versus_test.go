package verdict

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// versusStep is a step whose TTFT p90 is scale times 100 ms, in 20
// one-second clusters of the same requests, with a verdict and hazards.
func versusStep(scale float64, v report.Verdict, hazards ...string) *report.StepReport {
	h, c := stats.NewHistogram(), stats.NewClusters()
	for sec := range 20 {
		for i := range 10 {
			d := time.Duration(scale * float64(50+10*i) * float64(time.Millisecond))
			h.Record(d)
			c.Record(sec, d)
		}
	}
	st := &report.StepReport{Name: "rate=6", DurationS: 20, Verdict: v,
		Histograms: map[report.Metric]*stats.Histogram{report.MetricTTFT: h},
		Clusters:   map[report.Metric]*stats.Clusters{report.MetricTTFT: c},
		SLO: []report.SLOResult{{Metric: "ttft", Percentile: 90, Samples: h.Count(), Pass: true,
			ObservedMs: float64(h.Quantile(90)) / 1e6}}}
	for _, k := range hazards {
		st.Hazards = append(st.Hazards, report.Hazard{Kind: k})
	}
	return st
}

// What the base side's hazards do to a side-by-side comparison: a refused
// base leaves a passing step invalid, since its hazard could have hidden a
// regression or made one; a regression found against a base whose only
// hazard is a late client (which only slows it) stands; a step that fails
// its own SLO keeps its failure; a healthy base judges as a recorded
// baseline does.
func TestJudgeVersusWeighsTheBasesHazards(t *testing.T) {
	cases := []struct {
		name      string
		own, base *report.StepReport
		want      report.Verdict
		flagged   bool // versus_base_invalid added
	}{
		{"alike, healthy base", versusStep(1, report.VerdictPass), versusStep(1, report.VerdictPass), report.VerdictPass, false},
		{"slower, healthy base", versusStep(1.5, report.VerdictPass), versusStep(1, report.VerdictPass), report.VerdictFail, false},
		{"alike, base with a warm cache", versusStep(1, report.VerdictPass), versusStep(1, report.VerdictInvalid, HazardWarmCache), report.VerdictInvalid, true},
		{"slower, base with a warm cache", versusStep(1.5, report.VerdictPass), versusStep(1, report.VerdictInvalid, HazardWarmCache), report.VerdictInvalid, true},
		{"slower, base with a late client", versusStep(1.5, report.VerdictPass), versusStep(1, report.VerdictInvalid, HazardClientSaturation), report.VerdictFail, false},
		{"alike, base with a late client", versusStep(1, report.VerdictPass), versusStep(1, report.VerdictInvalid, HazardClientSaturation), report.VerdictInvalid, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, JudgeVersus(c.own, c.base, 0.05))
			require.Len(t, c.own.Versus, 1)
			assert.True(t, c.own.Versus[0].Paired)
			assert.Equal(t, c.want, c.own.Verdict)
			flagged := false
			for _, h := range c.own.Hazards {
				flagged = flagged || h.Kind == HazardVersusBase
			}
			assert.Equal(t, c.flagged, flagged)
		})
	}
	own := versusStep(1.5, report.VerdictFail)
	own.SLO[0].Pass = false
	require.NoError(t, JudgeVersus(own, versusStep(1, report.VerdictInvalid, HazardWarmCache), 0.05))
	assert.Equal(t, report.VerdictFail, own.Verdict, "a step failing its own SLO keeps its failure")
}
