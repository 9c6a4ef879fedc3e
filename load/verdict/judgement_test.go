package verdict

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// Judging reads a step and returns its judgement: the step is left as it
// was, even one that carries an earlier judgement, and Apply writes the
// judgement in, whole, and nothing else.
func TestJudgingLeavesItsInputUnchanged(t *testing.T) {
	slos := func(s ...string) []SLO {
		parsed, err := ParseSLOs(s)
		require.NoError(t, err)
		return parsed
	}
	behind := func() (*report.StepReport, observe.Evidence) {
		due, sent := make([]int, 45), make([]int, 45)
		for i := range due {
			due[i], sent[i] = 100, 100
		}
		sent[10], sent[11] = 0, 200
		return lateStep{n: 4500, ttft: 10 * time.Millisecond, e2el: 20 * time.Second, lag: []time.Duration{time.Millisecond},
			duePerS: due, sentPerS: sent}.build()
	}
	overloaded := func() (*report.StepReport, observe.Evidence) {
		s, ev := lateStep{n: 270, ttft: 300 * time.Millisecond, e2el: 2 * time.Second, lag: []time.Duration{time.Millisecond}}.build()
		s.Server = vllmapi.ServerStats{MetricsAvailable: true, WaitingSlopePerS: 0.8, WaitingRise: 9, WaitingAtEnd: 14,
			MaxRunning: 2, RunningAtMaxShare: 0.9, MaxWaiting: 14}
		return s, ev
	}
	warm := func() (*report.StepReport, observe.Evidence) {
		s, ev := lateStep{n: 300, ttft: 3 * time.Second, e2el: 5 * time.Second, lag: []time.Duration{time.Millisecond}}.build()
		hr := 0.9
		s.Server = vllmapi.ServerStats{MetricsAvailable: true, PrefixCacheHitRate: &hr}
		return s, ev
	}
	cases := []struct {
		name  string
		step  func() (*report.StepReport, observe.Evidence)
		c     Criteria
		found func(t *testing.T, j Judgement) // that the judgement holds what the case is for
	}{
		{"hazards", behind, Criteria{SLOs: slos("ttft.p50<=5s")}, func(t *testing.T, j Judgement) {
			assert.Equal(t, report.VerdictInvalid, j.Verdict)
			assert.True(t, j.hasHazard(HazardClientSaturation))
		}},
		{"overload and binding", overloaded, Criteria{SLOs: slos("ttft.p50<=2s"), MaxNumSeqs: 2}, func(t *testing.T, j Judgement) {
			assert.NotNil(t, j.OverCapacity)
			require.NotNil(t, j.Binding)
			assert.Equal(t, BindMaxNumSeqs, j.Binding.Kind)
		}},
		{"notes and hazards off", warm, Criteria{SLOs: slos("ttft.p95<=500ms", "ttft.p99<=5s"),
			Thresholds: Thresholds{Off: []string{HazardLengthMismatch}}}, func(t *testing.T, j Judgement) {
			assert.Equal(t, report.VerdictFail, j.Verdict)
			assert.NotEmpty(t, j.Notes)
			assert.Equal(t, []string{HazardLengthMismatch}, j.HazardsOff)
		}},
	}
	judges := []struct {
		name  string
		judge func(*report.StepReport, observe.Evidence, Criteria) Judgement
	}{
		{"Judge", Judge},
		{"JudgeMerged", JudgeMerged},
		{"JudgeSLOs", func(s *report.StepReport, _ observe.Evidence, c Criteria) Judgement { return JudgeSLOs(s, c) }},
	}
	earlier := Judgement{SLO: []report.SLOResult{{Metric: "ttft", Pass: true}}, OverCapacity: &report.OverCapacity{Message: "earlier"},
		Hazards: []report.Hazard{{Kind: HazardWarmCache}}, Notes: []report.Hazard{{Kind: HazardNotSteady}},
		HazardsOff: []string{HazardTooFewSamples}, Verdict: report.VerdictPass, Binding: &report.Binding{Kind: BindCompute}}
	for _, tc := range cases {
		for _, jd := range judges {
			for _, prior := range []Judgement{{}, earlier} {
				name := tc.name + "/" + jd.name
				if prior.Binding != nil {
					name += "/judged before"
				}
				t.Run(name, func(t *testing.T) {
					s, ev := tc.step()
					prior.Apply(s)
					before, err := json.Marshal(s)
					require.NoError(t, err)

					j := jd.judge(s, ev, tc.c)
					after, err := json.Marshal(s)
					require.NoError(t, err)
					assert.JSONEq(t, string(before), string(after), "judging changed the step it was given")
					if jd.name != "JudgeSLOs" {
						tc.found(t, j)
					}

					j.Apply(s)
					assert.Equal(t, j, Judgement{SLO: s.SLO, OverCapacity: s.OverCapacity, Hazards: s.Hazards, Notes: s.Notes,
						HazardsOff: s.HazardsOff, NotJudged: s.NotJudged, Verdict: s.Verdict, Binding: s.Binding}, "Apply writes the judgement")
					prior.Apply(s) // the earlier judgement back: what else Apply wrote would show
					restored, err := json.Marshal(s)
					require.NoError(t, err)
					assert.JSONEq(t, string(before), string(restored), "Apply writes nothing but the judgement")
				})
			}
		}
	}
}
