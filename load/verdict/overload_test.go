package verdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
)

// overloadStep is a step past the knee: 100 judged requests, shed of them
// shed in shedP99 ms at p99, ttft's SLO passing or not, and the server's
// queue-time histogram's worst bucket at 2 s.
func overloadStep(shed int, shedP99 float64, ttftPass bool, unfinished int) *report.StepReport {
	ttft := 400.0
	if !ttftPass {
		ttft = 600
	}
	s := &report.StepReport{Verdict: report.VerdictFail,
		Requests: report.RequestCounts{Sent: 100, Completed: 100 - shed - unfinished, Shed: shed, Unfinished: unfinished},
		Errors:   map[string]int{},
		SLO: []report.SLOResult{{Metric: "ttft", Percentile: 95, LimitMs: 500, ObservedMs: ttft, Pass: ttftPass},
			{Metric: "error_rate", MaxRate: 0.01, Pass: false}},
		Server: vllmapi.ServerStats{MaxRunning: 8, QueueTime: &vllmapi.QueueTime{Count: 80, P95S: 1, MaxS: 2}},
	}
	s.Shed = s.Requests.ShedShare()
	if shed > 0 {
		s.ShedTime = &stats.Summary{Count: int64(shed), P99: shedP99}
	}
	return s
}

func TestJudgeOverload(t *testing.T) {
	cases := []struct {
		name    string
		step    *report.StepReport
		pass    bool
		message string
	}{
		{"fast shedding, admitted served", overloadStep(30, 20, true, 0), true, "shed 30 of 100 (30.0%, 95% interval"},
		{"slow 503s", overloadStep(30, 400, true, 0), false, "503 in 400.0 ms at p99 (limit 250 ms)"},
		{"admitted late", overloadStep(30, 20, false, 0), false, "ttft p95 600.0 ms > 500 ms"},
		{"admitted unfinished", overloadStep(30, 20, true, 2), false, "2 requests waited past their timeout"},
		{"queued instead of shedding", overloadStep(0, 0, false, 0), false, "queued instead of shedding"},
		{"nothing to shed", overloadStep(0, 0, true, 0), true, "did not overload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := JudgeOverload(tc.step, OverloadSettings{})
			assert.Equal(t, tc.pass, g.Pass, g.Message)
			assert.Contains(t, g.Message, tc.message)
			assert.Contains(t, g.Message, "worst queue wait at most 2 s")
			assert.Same(t, g, tc.step.OverloadGate)
			want := report.VerdictFail
			if tc.pass {
				want = report.VerdictPass
			}
			assert.Equal(t, want, tc.step.Verdict, "the shed requests' error rate is judged on the admitted ones instead")
		})
	}
	g := JudgeOverload(overloadStep(0, 0, false, 0), OverloadSettings{QueuedReqs: 12})
	assert.Contains(t, g.Message, "set --max-num-queued-reqs 12")
	g = JudgeOverload(overloadStep(0, 0, false, 0), OverloadSettings{})
	assert.NotContains(t, g.Message, "set --max-num-queued-reqs 9", "max_num_seqs+1 lets in as many as queued: no value is read from one step")
	assert.Contains(t, g.Message, "at most the requests in the system at the last rate that meets every SLO")
	assert.Zero(t, g.SuggestedQueuedReqs)
	invalid := overloadStep(30, 20, true, 0)
	invalid.Verdict = report.VerdictInvalid
	JudgeOverload(invalid, OverloadSettings{})
	assert.Equal(t, report.VerdictInvalid, invalid.Verdict, "a hazard still makes the step invalid")
}

// Within one run, a step that met every SLO gives the limit a later
// overloaded step names: the requests in the system there by Little's law
// (10 req/s × 850 ms = 8.5, so 8). With a limit that shed fast but let
// too many in, the gate names a lower one and why.
func TestOverloadNamesTheLimitReadAtTheLastRateThatMet(t *testing.T) {
	var o OverloadRun
	met := &report.StepReport{Verdict: report.VerdictPass, RateTarget: 10, RateAchieved: 10,
		Requests: report.RequestCounts{Sent: 100, Completed: 100}, E2EL: stats.Summary{Mean: 850},
		SLO: []report.SLOResult{{Metric: "ttft", Percentile: 95, LimitMs: 500, ObservedMs: 300, Pass: true}}}
	assert.True(t, o.Judge(met).Pass)
	g := o.Judge(overloadStep(0, 0, false, 0))
	assert.False(t, g.Pass)
	assert.Equal(t, 8, g.SuggestedQueuedReqs)
	assert.Contains(t, g.Message, "set --max-num-queued-reqs 8 so that overload gets fast 503s")
	assert.Contains(t, g.Message, "at 10 req/s, the last rate of this run that met every SLO")

	tooMany := overloadStep(30, 20, false, 0)
	tooMany.Server.MaxRunning = 12
	g = o.Judge(tooMany)
	assert.Equal(t, 8, g.SuggestedQueuedReqs)
	assert.Contains(t, g.Message, "lower --max-num-queued-reqs from 12 to 8")

	g = JudgeOverload(tooMany, OverloadSettings{QueuedReqs: 12})
	assert.Equal(t, 9, g.SuggestedQueuedReqs, "three quarters, with no rate that met")
	assert.Contains(t, g.Message, "lower --max-num-queued-reqs from 12 to 9 (three quarters of it)")

	slowShed := overloadStep(30, 900, false, 0)
	assert.Zero(t, JudgeOverload(slowShed, OverloadSettings{QueuedReqs: 12}).SuggestedQueuedReqs, "a lower limit does not make a refusal faster")
}
