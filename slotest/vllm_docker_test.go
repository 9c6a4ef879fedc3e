package slotest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/internal/dockergate"
	"github.com/llmslo/llmslo/load/report"
)

// TestVLLMTargetThroughTheSimulatorImage is the container target end to
// end: the simulator's image is built from this checkout (FROM scratch, no
// registry), started through containers/vllm with vLLM-style arguments by
// SLOTEST_TARGET=vllm, and a short SLO test passes through it.
func TestVLLMTargetThroughTheSimulatorImage(t *testing.T) {
	img := dockergate.SimImage(t, "llmslo/vllm-sim:slotest", vllm.BuildSimImage)

	t.Setenv(EnvTarget, "vllm")
	t.Setenv(EnvVLLMImage, img)
	t.Setenv(EnvModel, "meta-llama/Llama-3.1-8B-Instruct")
	rep := Run(t, WithFixture("fixed:256:16"), WithRates(20), WithArrival("constant"), WithDuration(2*time.Second),
		WithWarmup(0), WithSLO("ttft.p50<=1s", "itl.p90<=1s", "error_rate<=0%"), WithThresholds(clientQuiet),
		WithVLLMOptions(vllm.WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16"), vllm.WithStartupTimeout(2*time.Minute)))

	assert.Equal(t, "vllm", rep.Target.Kind)
	assert.Equal(t, "meta-llama/Llama-3.1-8B-Instruct", rep.Target.Model)
	require.Len(t, rep.Steps, 1)
	st := rep.Steps[0]
	assert.Equal(t, report.VerdictPass, st.Verdict)
	assert.Equal(t, st.Requests.Scheduled, st.Requests.Completed)
	if !testing.Short() { // -short shortens the step to what the p50 needs
		assert.Equal(t, 40, st.Requests.Completed)
	}
	assert.True(t, st.Server.MetricsAvailable, "/metrics scraped from the container")
	assert.True(t, st.Server.PrefixCacheReset, "dev mode lets the cache be reset")
}
