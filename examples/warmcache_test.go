package examples

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/slotest"
	"github.com/llmslo/llmslo/vllmsim"
)

// TestWarmCacheIsCaught repeats a run against the same server with prompt
// salting and the prefix-cache reset turned off, as a hand-rolled benchmark
// loop would. The second run's prompts are all in the cache, so its TTFT is
// flattering; llmslo marks it invalid instead of passing it.
func TestWarmCacheIsCaught(t *testing.T) {
	srv := vllmsim.NewServer(vllmsim.Config{})
	defer srv.Close()
	plan, err := slotest.NewPlan(
		slotest.WithTarget(srv.URL),
		slotest.WithFixture("azure-code-2023"), // long prompts, no shared prefixes: 0% hits expected
		slotest.WithRates(4),
		slotest.WithDuration(3*time.Second),
		slotest.WithWarmup(0),
		slotest.WithSLO("ttft.p50<=1s"),
		slotest.WithSalt(false),
		slotest.WithResetPrefixCache(false),
	)
	require.NoError(t, err)
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
