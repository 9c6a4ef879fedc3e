package slotest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// A gate run side by side with a base server: SLOTEST_VERSUS names it, the
// report holds both sides, and the target's percentiles are compared with
// the base's, here a server whose steps take three times as long.
func TestRunSideBySideWithABaseServer(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	t.Setenv(EnvVersus, "sim")
	fast := engine.StepProfile{Name: "fixed-4ms", Fixed: 4 * time.Millisecond}
	rep := Run(t, WithSim(vllmsim.Config{Profile: fast}),
		WithVersusSim(vllmsim.Config{Profile: fast, StepTimeScale: 3}), WithVersusMode(load.VersusTogether),
		WithFixture("fixed:64:16"), WithRates(20), WithArrival("constant"), WithDuration(3*time.Second), WithWarmup(500*time.Millisecond),
		WithSLO("ttft.p50<=5s", "itl.p50<=5s"), WithThresholds(func(th *verdict.Thresholds) { th.Off = []string{verdict.HazardClientSaturation} }),
		WithReportDir(t.TempDir()))
	require.NotNil(t, rep.Versus)
	assert.Equal(t, report.VersusTogether, rep.Versus.Mode)
	require.Len(t, rep.Versus.Steps, 1)
	st := rep.Steps[0]
	require.Len(t, st.Versus, 2)
	for _, c := range st.Versus {
		t.Logf("%s.p%g ×%.2f %v", c.Metric, c.Percentile, c.Ratio, c.RatioCI95)
		assert.Less(t, c.Ratio, 0.7, "%s: the base's steps take three times as long", c.Metric)
		assert.False(t, c.Regressed)
	}
	assert.Equal(t, report.VerdictPass, st.Verdict)
}

// Alternating: the load moves between the two servers in blocks
// (WithVersusMode, WithVersusBlock), and each side's step is its blocks.
func TestRunAlternatingWithABaseServer(t *testing.T) {
	testkit.Long(t) // four real-time blocks, about 7 s; load's tests drive alternating in virtual time
	fast := engine.StepProfile{Name: "fixed-4ms", Fixed: 4 * time.Millisecond}
	rep := Run(t, WithSim(vllmsim.Config{Profile: fast}), WithVersus("sim"),
		WithVersusSim(vllmsim.Config{Profile: fast, StepTimeScale: 3}), WithVersusMode(load.VersusAlternate), WithVersusBlock(time.Second),
		WithFixture("fixed:64:16"), WithRates(20), WithArrival("constant"), WithDuration(2*time.Second), WithWarmup(500*time.Millisecond),
		WithSLO("ttft.p50<=5s", "itl.p50<=5s"), WithThresholds(func(th *verdict.Thresholds) {
			th.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		}),
		WithReportDir(t.TempDir()))
	require.NotNil(t, rep.Versus)
	assert.Equal(t, report.VersusAlternate, rep.Versus.Mode)
	assert.Equal(t, []float64{1, 1}, rep.Versus.BlocksS)
	st := rep.Steps[0]
	assert.Len(t, st.Blocks, 2)
	assert.Len(t, rep.Versus.Steps[0].Blocks, 2)
	assert.Equal(t, 2.0, st.DurationS)
	require.Len(t, st.Versus, 2)
	for _, c := range st.Versus {
		t.Logf("%s.p%g ×%.2f %v", c.Metric, c.Percentile, c.Ratio, c.RatioCI95)
		assert.Less(t, c.Ratio, 0.7, "%s: the base's steps take three times as long", c.Metric)
	}
}

// A vllm base server takes serve flags of its own (WithVersusVLLMArgs,
// SLOTEST_VERSUS_VLLM_ARGS over them); a base that is not vllm refuses
// them rather than ignore them.
func TestAVLLMBaseTakesItsOwnServeFlags(t *testing.T) {
	starter := load.ContainerStarterFunc(func(context.Context, load.ContainerRequest) (load.StartedContainer, error) {
		return load.StartedContainer{}, errors.New("not started in this test")
	})
	c := newConfig(WithVersus("vllm"), WithModel("m"), WithContainerStarter(starter), WithVersusVLLMArgs("--max-num-seqs", "32"))
	base, err := c.versusOf()
	require.NoError(t, err)
	ct, ok := base.(load.ContainerTarget)
	require.True(t, ok, "%T", base)
	assert.Equal(t, []string{"--max-num-seqs", "32"}, ct.Args)

	t.Setenv(EnvVersusVLLMArgs, "--max-num-seqs 16 --enable-prefix-caching")
	base, err = c.versusOf()
	require.NoError(t, err)
	assert.Equal(t, []string{"--max-num-seqs", "16", "--enable-prefix-caching"}, base.(load.ContainerTarget).Args)

	_, err = newConfig(WithVersus("sim"), WithVersusVLLMArgs("--max-num-seqs", "32")).versusOf()
	assert.ErrorContains(t, err, "for a vllm base")
}
