package examples

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/fixtures/formats"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// TestWarmCacheIsCaught repeats a run against the same server with prompt
// salting and the prefix-cache reset turned off, as a hand-rolled benchmark
// loop would. The second run's prompts are all in the cache, so its TTFT is
// flattering; llmslo marks it invalid instead of passing it.
func TestWarmCacheIsCaught(t *testing.T) {
	srv := vllmsim.NewServer(vllmsim.Config{})
	defer srv.Close()
	plan := load.DefaultPlan()
	plan.Target = load.URLTarget{URL: srv.URL}
	fx, err := formats.Open("azure-code-2023") // long prompts, no shared prefixes: 0% hits expected
	require.NoError(t, err)
	slos, err := verdict.ParseSLOs([]string{"ttft.p50<=1s"})
	require.NoError(t, err)
	plan.Fixture, plan.SLOs, plan.Rates = fx, slos, []float64{4}
	plan.Duration, plan.Warmup = 3*time.Second, 0
	plan.Salt, plan.ResetPrefixCache = false, false
	ctx := context.Background()
	first, err := load.Measure(ctx, plan)
	require.NoError(t, err)
	again, err := load.Measure(ctx, plan)
	require.NoError(t, err)

	cold, warm := first.Steps[0], again.Steps[0]
	assert.False(t, cold.HasHazard(verdict.HazardWarmCache))
	assert.True(t, warm.HasHazard(verdict.HazardWarmCache), "the repeat run was served from the cache")
	assert.Equal(t, report.VerdictInvalid, warm.Verdict)
	assert.Less(t, warm.TTFT.P50, cold.TTFT.P50/2, "and it would have looked twice as fast")
	for _, h := range warm.Hazards {
		t.Logf("%s: %s (fix: %s)", h.Kind, h.Message, h.Fix)
	}
}
