package slotest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// recordingTB captures what CheckStep reports, so that a failing step can
// be checked without failing this test.
type recordingTB struct {
	testing.TB
	errors, logs []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recordingTB) Log(a ...any)              { r.logs = append(r.logs, fmt.Sprint(a...)) }

func instantSim(extra ...Option) []Option {
	return append([]Option{WithSim(vllmsim.Config{ProfileName: "instant"}), WithFixture("fixed:32:4"),
		WithRates(20), WithArrival("constant"), WithDuration(time.Second), WithWarmup(0), WithThresholds(clientQuiet)}, extra...)
}

func TestSLOFailureAndHazardReadDifferently(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	healthy := measure(t, instantSim(WithSLO("ttft.p50<=10s", "error_rate<=1%"))...)
	var ok recordingTB
	CheckStep(&ok, healthy)
	assert.Empty(t, ok.errors, "a healthy run passes")
	require.Len(t, ok.logs, 1)
	assert.Contains(t, ok.logs[0], "ttft.p50")

	violated := measure(t, instantSim(WithSLO("ttft.p50<=1us"))...)
	var fail recordingTB
	CheckStep(&fail, violated)
	require.Len(t, fail.errors, 1)
	assert.Contains(t, fail.errors[0], "rate=20: SLO violated (ttft.p50 ")
	assert.Contains(t, fail.errors[0], "> 0.001 ms")
	assert.Contains(t, fail.errors[0], "95% interval")
	assert.Contains(t, fail.errors[0], "FAIL")
	assert.NotContains(t, fail.errors[0], "cannot be trusted")

	untrusted := measure(t, instantSim(WithSLO("ttft.p99<=10s"))...)
	var inv recordingTB
	CheckStep(&inv, untrusted)
	require.Len(t, inv.errors, 1)
	assert.Contains(t, inv.errors[0], "cannot be trusted (too_few_samples)")
	assert.Contains(t, inv.errors[0], "fix: run the step for at least")
	assert.NotContains(t, inv.errors[0], "SLO violated")

	// A server past its capacity fails the test though every SLO held.
	over := *healthy
	over.Verdict, over.OverCapacity = report.VerdictFail, &report.OverCapacity{Message: "over capacity: arrivals outpace completions"}
	var full recordingTB
	CheckStep(&full, &over)
	require.Len(t, full.errors, 1)
	assert.Contains(t, full.errors[0], "rate=20: over capacity: arrivals outpace completions")
}

func TestStrictModeNeedsAConclusiveInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	// 20 requests cannot bound a p95: it passes on the point estimate and
	// fails in strict mode, which says how many requests it needs.
	st := measure(t, instantSim(WithSLO("ttft.p95<=10s"), WithThresholds(func(th *verdict.Thresholds) { th.Off = append(th.Off, verdict.HazardTooFewSamples) }))...)
	assert.Equal(t, report.VerdictPass, st.Verdict)
	strict := measure(t, instantSim(WithSLO("ttft.p95<=10s"), WithStrict(), WithThresholds(func(th *verdict.Thresholds) { th.Off = append(th.Off, verdict.HazardTooFewSamples) }))...)
	assert.Equal(t, report.VerdictFail, strict.Verdict)
	assert.Equal(t, stats.MinSamplesForCI(95, 0.95), strict.SLO[0].NeededSamples)
	assert.Contains(t, stepTable(strict), "a 95% interval at p95 needs 72 or more")
}

func TestRunGatesEachRateAsASubtest(t *testing.T) {
	rep := Run(t, instantSim(WithRates(25, 40), WithSLO("ttft.p50<=10s", "itl.p50<=10s", "error_rate<=1%"))...)
	require.Len(t, rep.Steps, 2)
	assert.Equal(t, "rate=25", rep.Steps[0].Name)
	assert.Equal(t, "rate=40", rep.Steps[1].Name)
	assert.Equal(t, report.VerdictPass, rep.Verdict)
	assert.Equal(t, load.KindSim, rep.Target.Kind)
}

func TestCancelledMeasureWritesAPartialReport(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	plan, err := newPlan(instantSim(WithRates(20, 40), WithDuration(time.Second), WithSLO("ttft.p50<=10s"))...)
	require.NoError(t, err)
	rep, err := load.Measure(ctx, plan)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, rep)
	assert.True(t, rep.Partial)
	// What Run does with the report, whole or cut short.
	_, err = render.WriteDir(rep, dir)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var onDisk report.Report
	require.NoError(t, json.Unmarshal(b, &onDisk))
	assert.True(t, onDisk.Partial)
	require.Len(t, onDisk.Steps, 2, "the finished step and the cut one are both kept")
	assert.False(t, onDisk.Steps[0].Partial)
	assert.True(t, onDisk.Steps[1].Partial)
	assert.Positive(t, onDisk.Steps[0].Requests.Completed)
	for _, f := range []string{"report.html", "rate-20.hlog", "rate-40.hlog"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, "%s is written with the report", f)
	}
}

func TestFitBudget(t *testing.T) {
	cfg := newConfig(WithRates(1, 2), WithDuration(60*time.Second), WithWarmup(10*time.Second))
	shortened, err := fitBudget(time.Hour, &cfg)
	require.NoError(t, err)
	assert.False(t, shortened)
	assert.Equal(t, 60*time.Second, cfg.Duration)

	// 2 × (10 + 60 + 60) s = 260 s planned, 0.8 × 200 − 10 = 150 s to spend.
	shortened, err = fitBudget(200*time.Second, &cfg)
	require.NoError(t, err)
	assert.True(t, shortened)
	total := 2 * (cfg.Warmup + cfg.Duration + cfg.DrainTimeout)
	assert.InDelta(t, 150, total.Seconds(), 0.01)

	cfg = newConfig(WithRates(1, 2))
	_, err = fitBudget(12*time.Second, &cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "raise -timeout")
}

func TestAVLLMTargetNeedsAModel(t *testing.T) {
	t.Setenv(EnvModel, "")
	_, err := newConfig(WithTarget("vllm")).build()
	assert.ErrorContains(t, err, "needs a model: set "+EnvModel)

	_, err = newConfig(WithTarget("nonsense")).build()
	assert.ErrorContains(t, err, `unknown target "nonsense"`)

	_, err = newConfig(WithSLO("ttft.p95<=fast")).build()
	assert.ErrorContains(t, err, "slotest:", "an option's error surfaces when the plan is built")
}

func TestShortKeepsEnoughSamples(t *testing.T) {
	cfg := newConfig(WithRates(8, 16), WithDuration(60*time.Second), WithWarmup(8*time.Second), WithSLO("ttft.p95<=1s", "itl.p99<=1s"))
	shorten(&cfg)
	// A p95 needs 200 requests; at 8 req/s with 10% to spare, 27.5 s.
	assert.InDelta(t, 27.5, cfg.Duration.Seconds(), 0.01)
	assert.Equal(t, 2*time.Second, cfg.Warmup)

	cfg = newConfig(WithRates(50), WithDuration(60*time.Second), WithSLO("ttft.p95<=1s"))
	shorten(&cfg)
	assert.Equal(t, 15*time.Second, cfg.Duration, "a quarter is enough at 50 req/s")

	cfg = newConfig(WithRates(1), WithDuration(60*time.Second), WithSLO("ttft.p99<=1s"))
	shorten(&cfg)
	assert.Equal(t, 60*time.Second, cfg.Duration, "never longer than asked")
}

// Alternating side by side, a shortened step is still whole-second blocks
// (a quarter of 30 s is 7.5 s: 8 s, two blocks of 4 s), under -short and
// to fit a deadline alike, and the plan built from it is valid.
func TestShortenedAlternatingStepsAreWholeSeconds(t *testing.T) {
	opts := []Option{WithVersus("sim"), WithVersusMode(load.VersusAlternate), WithRates(50),
		WithDuration(30 * time.Second), WithWarmup(4 * time.Second), WithSLO("ttft.p90<=1s")}
	cfg := newConfig(opts...)
	shorten(&cfg)
	assert.Equal(t, 8*time.Second, cfg.Duration)
	plan, err := cfg.build()
	require.NoError(t, err)
	require.NoError(t, plan.Validate())

	cfg = newConfig(opts...)
	shortened, err := fitBudget(2*time.Minute, &cfg)
	require.NoError(t, err)
	assert.True(t, shortened)
	assert.Zero(t, cfg.Duration%time.Second, "%v", cfg.Duration)
	// Alternating, a step takes both sides' blocks, each after its warm-up
	// and drained: that, not one window, fits in 80% of two minutes less 10 s.
	n := time.Duration(len(cfg.VersusBlocks()))
	assert.LessOrEqual(t, 2*(cfg.Duration+n*(cfg.Warmup+cfg.DrainBound())), 86*time.Second, "%v in %d blocks", cfg.Duration, n)
	plan, err = cfg.build()
	require.NoError(t, err)
	require.NoError(t, plan.Validate())
}

func TestURLTargetClipsToTheServersContextLength(t *testing.T) {
	srv := simtest.Start(t, vllmsim.Config{ProfileName: "instant", MaxModelLen: 2048})
	rep, err := measureRun(t, WithTarget(srv.URL), WithFixture("fixed:4000:100"), WithRates(20),
		WithArrival("constant"), WithDuration(time.Second), WithWarmup(0), WithSLO("ttft.p50<=10s", "error_rate<=0%"),
		WithThresholds(clientQuiet))
	require.NoError(t, err)
	st := rep.Steps[0]
	assert.Equal(t, 20, st.Requests.Completed, "%v", st.Errors)
	assert.Equal(t, int64(20*(2048-100)), st.Tokens.Input, "the prompt is cut to fit max_model_len from GET /v1/models")
	assert.Equal(t, int64(20*100), st.Tokens.Output)
	require.NotNil(t, rep.Fixture)
	assert.Equal(t, 1, rep.Fixture.Clipped, "the report says the fixture was clipped")
	var b strings.Builder
	render.WriteSummary(&b, rep)
	assert.Contains(t, b.String(), "note: 1 of 1 fixture requests were clipped")
}

func TestChatPromptsAreExactThroughTokenize(t *testing.T) {
	// The chat API carries text, so prompt lengths are made exact through
	// the server's /tokenize, chat template included; usage must then
	// report exactly what the fixture asked for.
	rep, err := measureRun(t, WithSim(vllmsim.Config{ProfileName: "instant"}), WithAPI(workload.APIChat),
		WithFixture("random:300:16:0.5"), WithRates(20), WithArrival("constant"), WithDuration(time.Second), WithWarmup(0),
		WithSLO("ttft.p50<=10s"), WithThresholds(clientQuiet))
	require.NoError(t, err)
	st := rep.Steps[0]
	assert.Equal(t, 20, st.Requests.Completed, "%v", st.Errors)
	assert.Zero(t, st.LengthMismatches, "usage matches the asked lengths")
	assert.False(t, st.HasHazard(verdict.HazardLengthMismatch))
	assert.Zero(t, st.Tokens.UsageMissing)
	assert.InDelta(t, 20*300, st.Tokens.Input, 20*300*0.5, "lengths drawn within ±50% of 300")
}

// A setting Plan validation refuses is named by the option that set it.
func TestARefusedSettingNamesItsOption(t *testing.T) {
	cfg := newConfig(WithSim(vllmsim.Config{ProfileName: "instant"}), WithFixture("fixed:8:2"), WithRates(20), WithWarmup(-time.Second))
	plan, err := cfg.build()
	require.NoError(t, err)
	_, err = load.Open(context.Background(), plan)
	err = load.NameSettings(err, optionNames)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "WithWarmup "), err.Error())
	var se *load.SettingError
	assert.ErrorAs(t, err, &se)
}
