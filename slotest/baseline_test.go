package slotest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/report"
	"github.com/llmslo/llmslo/runner"
	"github.com/llmslo/llmslo/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

func TestCompareBaseline(t *testing.T) {
	base := &report.Report{Steps: []report.StepReport{{Name: "rate=4", SLO: []report.SLOResult{
		{Metric: "ttft", Percentile: 95, ObservedMs: 100, Samples: 300},
		{Metric: "error_rate", Samples: 300},
	}}}}
	step := func(obs float64, ci *[2]float64) *report.StepReport {
		return &report.StepReport{Name: "rate=4", SLO: []report.SLOResult{
			{Metric: "ttft", Percentile: 95, ObservedMs: obs, CI95Ms: ci, Samples: 300},
			{Metric: "error_rate", Samples: 300},
		}}
	}
	cases := []struct {
		name      string
		st        *report.StepReport
		regressed bool
	}{
		{"faster", step(90, &[2]float64{80, 95}), false},
		{"slower within the tolerance", step(108, &[2]float64{100, 115}), false},
		{"slower, but the interval reaches back under the bound", step(130, &[2]float64{105, 150}), false},
		{"slower, the whole interval over the bound", step(130, &[2]float64{115, 150}), true},
		{"no interval: the observed value decides", step(111, nil), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := verdict.CompareBaseline(base, tc.st, 0.10)
			require.NoError(t, err)
			require.Len(t, cs, 1, "error_rate has no baseline check")
			assert.Equal(t, tc.regressed, cs[0].Regressed)
			assert.Equal(t, 100.0, cs[0].BaselineMs)
		})
	}

	_, err := verdict.CompareBaseline(base, &report.StepReport{Name: "rate=8"}, 0.1)
	assert.ErrorContains(t, err, "no step rate=8")
	_, err = verdict.CompareBaseline(base, &report.StepReport{Name: "rate=4", SLO: []report.SLOResult{{Metric: "itl", Percentile: 99, ObservedMs: 1, Samples: 9}}}, 0.1)
	assert.ErrorContains(t, err, "no itl.p99")
	_, err = runner.LoadBaseline(filepath.Join(t.TempDir(), "missing.json"), "go test -slotest.update")
	assert.ErrorContains(t, err, "-slotest.update")
}

func TestBaselineCatchesASlowerServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	opts := func(profile string, extra ...Option) []Option {
		return append([]Option{WithSim(vllmsim.Config{ProfileName: profile}), WithFixture("fixed:512:8"), WithRates(20),
			WithArrival("constant"), WithDuration(2 * time.Second), WithWarmup(0), WithSLO("ttft.p50<=10s"),
			WithThresholds(clientQuiet)}, extra...)
	}
	// Record on an instant server.
	t.Run("record", func(t *testing.T) {
		t.Setenv(EnvUpdateBaselines, "1")
		Run(t, opts("instant", WithBaseline(path, 0))...)
	})
	base, err := runner.LoadBaseline(path, "")
	require.NoError(t, err)
	require.Len(t, base.Steps, 1)

	// The modelled H100 is far slower than instant: a regression, and the
	// step fails although its SLO holds.
	rep, err := runner.Measure(context.Background(), NewConfig(opts("h100-llama3-8b", WithBaseline(path, 0.5))...))
	require.NoError(t, err)
	st := rep.Steps[0]
	assert.True(t, st.SLO[0].Pass)
	require.Len(t, st.Baseline, 1)
	assert.True(t, st.Baseline[0].Regressed, "%+v", st.Baseline[0])
	assert.Equal(t, report.VerdictFail, st.Verdict)
	var rec recordingTB
	CheckStep(&rec, &st)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "slower than its baseline: ttft.p50")
	assert.Contains(t, rec.errors[0], "REGRESSED")

	// The same server against itself, with room for timing noise: no regression.
	rep, err = runner.Measure(context.Background(), NewConfig(opts("instant", WithBaseline(path, 5))...))
	require.NoError(t, err)
	assert.False(t, rep.Steps[0].Baseline[0].Regressed, "%+v", rep.Steps[0].Baseline[0])
	assert.Equal(t, report.VerdictPass, rep.Steps[0].Verdict)
}
