package load

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthOutcomes is a step's requests with varied, known timings: some in
// the warm-up, some failed, some unfinished at the drain bound.
func synthOutcomes(n int, measureFrom time.Time) []client.Outcome {
	out := make([]client.Outcome, n)
	for k := range out {
		intended := measureFrom.Add(time.Duration(k)*23*time.Millisecond - 200*time.Millisecond)
		sent := intended.Add(time.Duration(k%7) * 150 * time.Microsecond)
		o := client.Outcome{
			Request:  workload.Request{Index: k, InputTokens: 100 + k%50, OutputTokens: 6},
			Intended: intended, Sent: sent, Written: sent.Add(40 * time.Microsecond),
			First: sent.Add(time.Duration(20+(k*13)%70) * time.Millisecond),
		}
		o.Last = o.First
		for g := range 5 {
			gap := time.Duration(2000+(k*g*97)%4000) * time.Microsecond
			o.ITL = append(o.ITL, gap)
			o.Last = o.Last.Add(gap)
		}
		o.TokenEvents, o.PromptTokens, o.CompletionTokens, o.UsageReported = 6, o.Request.InputTokens, 6, true
		if k%17 == 0 {
			o.CompletionTokens = 3 // off the asked length
		}
		switch {
		case k%29 == 0:
			o.Class, o.First, o.Last, o.ITL = client.HTTPStatusClass(500), time.Time{}, time.Time{}, nil
		case k%31 == 0:
			o.Class = client.ClassUnfinished
		}
		out[k] = o
	}
	return out
}

// stepFrom records the outcomes kept by keep as runStep would and judges
// the step: the whole schedule's step, or one shard's.
func stepFrom(outs []client.Outcome, measureFrom time.Time, d time.Duration, c verdict.Criteria, keep func(k int) bool) report.StepReport {
	rec := observe.NewRecorder(measureFrom, d, verdict.GoodputLimits(c.SLOs), observe.LengthCheck{Tolerance: 0.01})
	scheduled := 0
	for k := range outs {
		if !keep(k) {
			continue
		}
		o := outs[k]
		if !o.Intended.Before(measureFrom) {
			scheduled++
		}
		rec.Started(o.Intended)
		at := o.Last
		if o.Class != "" {
			at = o.Sent.Add(time.Second)
		}
		rec.Record(&o, at)
	}
	st, ev := rec.Summary()
	st.Evidence = rec.ReportEvidence()
	st.Name, st.RateTarget, st.Arrival, st.DurationS, st.WarmupS = "rate=43", 43, "poisson", d.Seconds(), 0.2
	st.Requests.Scheduled = scheduled
	hr := 0.02
	st.Server = vllmapi.ServerStats{MetricsAvailable: true, PrefixCacheHitRate: &hr, Samples: 5}
	st.SetGoodput(scheduled)
	verdict.Judge(&st, ev, c).Apply(&st)
	return st
}

func testJudging(t *testing.T) verdict.Criteria {
	return verdict.Criteria{SLOs: plantest.MustSLOs(t, "ttft.p90<=80ms", "itl.p50<=4ms", "e2el.p99<=1s", "error_rate<=10%"), MeanOutputTokens: 6}
}

// shardReports splits the outcomes over n shards' reports, as n processes
// running --shard i/n would write them.
func shardReports(t *testing.T, outs []client.Outcome, n int, measureFrom time.Time, d time.Duration) ([]*report.Report, []string) {
	c := testJudging(t)
	cfg := Plan{Shard: Shard{Count: n}, StartAt: measureFrom.Add(-200 * time.Millisecond), Rates: []float64{43},
		Arrival: arrival.Spec{Kind: arrival.Poisson}, Duration: d, Warmup: 200 * time.Millisecond, API: workload.APICompletions}
	var reps []*report.Report
	var names []string
	for i := range n {
		cfg.Shard.Index = i
		r := &report.Report{Version: report.Version, Seed: 5, Shard: cfg.shardInfo(),
			Fixture: &fixtures.Info{Name: "fixed:100:6", Requests: 1, OutputTokens: fixtures.Dist{Mean: 6}},
			Target:  report.TargetInfo{Kind: KindURL, URL: "http://server:8000", Model: "m"}}
		for _, s := range verdict.Guarded(c.SLOs) {
			r.SLO = append(r.SLO, s.Spec())
		}
		r.Steps = []report.StepReport{stepFrom(outs, measureFrom, d, c, func(k int) bool { return k%n == i })}
		r.Verdict = r.Steps[0].Verdict
		reps, names = append(reps, roundTrip(t, r)), append(names, fmt.Sprintf("shard-%d.json", i))
	}
	return reps, names
}

// roundTrip passes a report through its JSON, as merge reads files.
func roundTrip(t *testing.T, r *report.Report) *report.Report {
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back report.Report
	require.NoError(t, json.Unmarshal(b, &back))
	return &back
}

func TestMergeEqualsTheSingleClientsStep(t *testing.T) {
	measureFrom := time.Now()
	d := 8 * time.Second
	outs := synthOutcomes(360, measureFrom)
	whole := stepFrom(outs, measureFrom, d, testJudging(t), func(int) bool { return true })
	reps, names := shardReports(t, outs, 3, measureFrom, d)
	merged, err := verdict.MergeShards(reps, names)
	require.NoError(t, err)
	require.Len(t, merged.Steps, 1)
	m := merged.Steps[0]

	assert.Equal(t, whole.Requests, m.Requests, "counts add")
	assert.Equal(t, whole.Errors, m.Errors)
	assert.Equal(t, whole.LengthMismatches, m.LengthMismatches)
	assert.Equal(t, whole.Tokens.Input, m.Tokens.Input)
	assert.Equal(t, whole.Tokens.Output, m.Tokens.Output)
	assert.Equal(t, whole.Tokens.Events, m.Tokens.Events)
	assert.InEpsilon(t, whole.Tokens.OutputPerS, m.Tokens.OutputPerS, 1e-9)
	assert.InEpsilon(t, whole.RateAchieved, m.RateAchieved, 1e-9)
	assert.Equal(t, whole.Goodput, m.Goodput)
	// Merged histograms hold the very observations: every summary is the
	// single client's, to the last bit.
	for _, pair := range [][2]any{{whole.TTFT, m.TTFT}, {whole.TTFTSend, m.TTFTSend}, {whole.ITL, m.ITL},
		{whole.TPOT, m.TPOT}, {whole.E2EL, m.E2EL}, {whole.SendLag, m.SendLag}, {whole.BodyWrite, m.BodyWrite}} {
		assert.Equal(t, pair[0], pair[1])
	}
	wev, _ := observe.EvidenceOf(&whole)
	mev, _ := observe.EvidenceOf(&m)
	assert.Equal(t, wev.Due, mev.Due, "the window's counts add across shards")
	assert.Equal(t, wev, mev, "the hazards' evidence")
	require.Len(t, m.Timeline, len(whole.Timeline))
	for i, s := range whole.Timeline {
		got := m.Timeline[i]
		assert.InDelta(t, s.TTFTMeanMs, got.TTFTMeanMs, 1e-9, "second %d", i)
		got.TTFTMeanMs = s.TTFTMeanMs
		assert.Equal(t, s, got, "second %d", i)
	}
	assert.Equal(t, whole.SLO, m.SLO, "SLOs judged on the same figures")
	assert.Equal(t, whole.Hazards, m.Hazards)
	assert.Equal(t, whole.Verdict, m.Verdict)
	assert.Equal(t, whole.Server, m.Server)
	for _, r := range reps {
		assert.True(t, r.Steps[0].HasHazard(verdict.HazardTooFewSamples), "a share alone lacks the samples the whole has")
	}
	require.Len(t, m.Shards, 3)
	assert.True(t, m.Shards[0].ServerStats)
	assert.Equal(t, []string{"shard-0.json", "shard-1.json", "shard-2.json"}, merged.Merged.Sources)
}

func TestMergeOfAStarvedShardIsInvalid(t *testing.T) {
	measureFrom := time.Now()
	outs := synthOutcomes(360, measureFrom)
	reps, names := shardReports(t, outs, 3, measureFrom, 8*time.Second)
	merged, err := verdict.MergeShards(reps, names)
	require.NoError(t, err)
	require.False(t, merged.Steps[0].HasHazard(verdict.HazardClientSaturation))

	// Shard 1's client was starved: 30 of its 120 requests went out after
	// the window's end. Its own hazard does not carry over by itself; what
	// its lateness did to the whole schedule is in the merged counts, and
	// that is what makes the merged step invalid.
	st := &reps[1].Steps[0]
	st.Client.SchedLatencyP99Ms = 3
	st.Evidence.SentInWindow -= 30
	due, sent := 0, 0
	for _, r := range reps {
		due, sent = due+r.Steps[0].Evidence.Due, sent+r.Steps[0].Evidence.SentInWindow
	}
	merged, err = verdict.MergeShards(reps, names)
	require.NoError(t, err)
	m := merged.Steps[0]
	require.True(t, m.HasHazard(verdict.HazardClientSaturation), "%+v", m.Notes)
	assert.Contains(t, m.Hazards[0].Message, fmt.Sprintf("%d of the %d requests due in the window went out within it", sent, due))
	assert.Equal(t, report.VerdictInvalid, m.Verdict)
	assert.Equal(t, report.VerdictInvalid, merged.Verdict)
	assert.Equal(t, 3.0, m.Client.SchedLatencyP99Ms, "the busiest shard's client figures")
	assert.InDelta(t, float64(sent)/8, m.RateAchieved, 1e-9, "what every shard sent within the shared 8 s window")

	// Turned off, as in the shards' own run, it is not carried either.
	th, _ := json.Marshal(verdict.Thresholds{Off: []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}})
	for _, r := range reps {
		r.Shard.Thresholds = th
	}
	merged, err = verdict.MergeShards(reps, names)
	require.NoError(t, err)
	assert.False(t, merged.Steps[0].HasHazard(verdict.HazardClientSaturation))
	assert.Equal(t, []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}, merged.Steps[0].HazardsOff)
}

func TestMergeRefusesReportsThatDoNotBelongTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	measureFrom := time.Now()
	outs := synthOutcomes(60, measureFrom)
	cases := []struct {
		name   string
		doctor func(reps []*report.Report) []*report.Report
		want   string
	}{
		{"fixture", func(r []*report.Report) []*report.Report { r[2].Fixture.Name = "azure-code-2023"; return r }, "shard-2.json: fixture is"},
		{"seed", func(r []*report.Report) []*report.Report { r[1].Seed = 6; return r }, "shard-1.json: seed is 6, but shard-0.json's is 5"},
		{"rates", func(r []*report.Report) []*report.Report { r[1].Shard.Rates = []float64{44}; return r }, "shard-1.json: shard.rates is [44]"},
		{"arrival", func(r []*report.Report) []*report.Report { r[2].Shard.Arrival = "constant"; return r }, "shard-2.json: shard.arrival is constant"},
		{"duration", func(r []*report.Report) []*report.Report { r[1].Shard.DurationS = 9; return r }, "shard-1.json: shard.duration_s is 9"},
		{"start", func(r []*report.Report) []*report.Report {
			r[1].Shard.StartAt = r[1].Shard.StartAt.Add(time.Second)
			return r
		}, "shard-1.json: shard.start_at"},
		{"count", func(r []*report.Report) []*report.Report { r[2].Shard.Count = 4; return r }, "shard-2.json: shard.count is 4, but shard-0.json's is 3"},
		{"duplicate", func(r []*report.Report) []*report.Report { r[2].Shard.Index = 1; return r }, "shard-2.json: shard.index 1 is duplicate (also shard-1.json)"},
		{"missing", func(r []*report.Report) []*report.Report { return r[:2] }, "shard.index 2 of 3 is missing"},
		{"not a shard", func(r []*report.Report) []*report.Report { r[1].Shard = nil; return r }, "shard-1.json: not a shard's report"},
		{"step", func(r []*report.Report) []*report.Report { r[1].Steps[0].DurationS = 4; return r }, "shard-1.json: steps[0] ran 4s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reps, names := shardReports(t, outs, 3, measureFrom, 8*time.Second)
			reps = tc.doctor(reps)
			_, err := verdict.MergeShards(reps, names[:len(reps)])
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
