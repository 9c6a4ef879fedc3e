package examples

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/simtarget"
)

// TestOverloadIsNotHiddenByAClosedLoop measures a small server (four
// sequences at a time) above its capacity two ways. Eight closed-loop
// clients, as `vllm bench serve --max-concurrency 8` would use, slow down
// with the server: latency looks finite and the SLO passes. Open-loop
// arrivals at a fixed rate keep coming, the queue grows through the step,
// and TTFT measured from when each user arrived breaks the SLO.
func TestOverloadIsNotHiddenByAClosedLoop(t *testing.T) {
	ctx := context.Background()
	plan := load.DefaultPlan()
	plan.Target = simtarget.Sim{Config: vllmsim.Config{MaxNumSeqs: 4}}
	fx, err := formats.Open("fixed:512:64")
	require.NoError(t, err)
	slos, err := verdict.ParseSLOs([]string{"ttft.p90<=2s"})
	require.NoError(t, err)
	plan.Fixture, plan.SLOs, plan.Rates = fx, slos, []float64{12}
	plan.Arrival = arrival.Spec{Kind: arrival.Constant}
	plan.Duration, plan.Warmup = 5*time.Second, 0
	s, err := load.Open(ctx, plan)
	require.NoError(t, err)
	defer s.Close()

	closed, err := s.ClosedLoop(ctx, 8)
	require.NoError(t, err)
	open, err := s.Step(ctx, 12)
	require.NoError(t, err)

	t.Logf("closed loop: %.1f req/s, TTFT p90 %.0f ms: %s", closed.RateTarget, closed.TTFT.P90, closed.Verdict)
	t.Logf("open loop:   %.1f req/s offered, TTFT p90 %.0f ms: %s %v", open.RateTarget, open.TTFT.P90, open.Verdict, open.Hazards)
	assert.Equal(t, report.VerdictPass, closed.Verdict, "the closed loop hides the overload")
	assert.Equal(t, report.VerdictFail, open.Verdict, "the open loop shows it")
	assert.Less(t, closed.RateTarget, open.RateTarget, "the closed loop offered less load than users do")
}
