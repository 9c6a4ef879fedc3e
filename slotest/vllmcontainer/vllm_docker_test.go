package vllmcontainer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/containers/vllm"
	"github.com/llmslo/llmslo/internal/dockergate"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/slotest"
)

// TestVLLMTargetThroughTheSimulatorImage is the container target end to
// end: the simulator's image is built from this checkout (FROM scratch, no
// registry), started through containers/vllm with vLLM-style arguments by
// SLOTEST_TARGET=vllm, and a short SLO test passes through it.
func TestVLLMTargetThroughTheSimulatorImage(t *testing.T) {
	img := dockergate.SimImage(t, "llmslo/vllm-sim:slotest", vllm.BuildSimImage)

	t.Setenv(slotest.EnvTarget, "vllm")
	t.Setenv(slotest.EnvVLLMImage, img)
	t.Setenv(slotest.EnvModel, "meta-llama/Llama-3.1-8B-Instruct")
	// client_saturation measures the shared test machine, not the server.
	clientQuiet := func(th *verdict.Thresholds) { th.Off = append(th.Off, verdict.HazardClientSaturation) }
	rep := slotest.Run(t, slotest.WithFixture("fixed:256:16"), slotest.WithRates(20), slotest.WithArrival("constant"),
		slotest.WithDuration(2*time.Second), slotest.WithWarmup(0), slotest.WithSLO("ttft.p50<=1s", "itl.p90<=1s", "error_rate<=0%"),
		slotest.WithThresholds(clientQuiet),
		Options(vllm.WithVLLMArgs("--max-num-seqs", "64", "--block-size", "16"), vllm.WithStartupTimeout(2*time.Minute)))

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
