package tune

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// The overload gate on the simulator: four sequences of 128 prompt and 64
// output tokens carry about 7 req/s. Tune (one sweep) finds that knee,
// Protect recommends an admission limit from what the server held there,
// and the session's last step, at 1.5× the knee with that limit, passes
// the gate: the excess is shed with fast 503s and the admitted requests
// meet their SLOs. The same step without the limit queues, and fails
// with the flag and value to set.
func TestOverloadGatePassesWithTheRecommendedLimitAndFailsWithout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := load.DefaultPlan()
		plan.Target = simArgsTarget(t, "--profile", "h100-llama3-8b", "--max-num-seqs", "4")
		plan.Fixture, plan.Rates, plan.Arrival = plantest.MustFixture(t, "fixed:128:64"), []float64{4, 10}, plantest.MustArrival(t, "constant")
		plan.Duration, plan.Warmup = 4*time.Second, time.Second
		plan.SLOs = plantest.MustSLOs(t, "ttft.p95<=1500ms")
		plan.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		rep, err := Tune(context.Background(), plan, Options{Search: Search{Refine: 2}, Budget: 1})
		require.NoError(t, err)
		p := rep.Protect
		require.NotNil(t, p)
		t.Logf("knee %s; protect %s (held %.0f), in system > %g per replica", render(rep.Capacity), p.Flag, p.HeldAtKnee, p.InSystemThreshold)
		g := rep.Tune.OverloadGate
		require.NotNil(t, g, "the session's last step is the overload gate")
		last := rep.Steps[len(rep.Steps)-1]
		t.Logf("%s: %s", last.Name, g.Message)
		assert.Contains(t, last.Name, "overload "+p.Flag)
		assert.True(t, g.Pass, "%+v", g.Checks)
		assert.Equal(t, report.VerdictPass, last.Verdict)
		require.NotNil(t, g.Shed)
		assert.Positive(t, g.Shed.Count, "1.5× the knee sheds")
		assert.Less(t, g.Shed.CI95[0], g.Shed.Share)
		assert.LessOrEqual(t, g.ShedP99Ms, 250.0)
		assert.Positive(t, g.WorstQueueWaitS)

		// The same step on the server as given: it queues.
		plan.Rates, plan.Overload = []float64{last.RateTarget}, &verdict.OverloadSettings{QueuedReqs: p.MaxNumQueuedReqs}
		queued, err := load.Measure(context.Background(), plan)
		require.NoError(t, err)
		st := queued.Steps[0]
		require.NotNil(t, st.OverloadGate)
		t.Logf("without a limit: %s", st.OverloadGate.Message)
		assert.False(t, st.OverloadGate.Pass)
		assert.Equal(t, report.VerdictFail, st.Verdict)
		assert.Zero(t, st.Requests.Shed)
		assert.Contains(t, st.OverloadGate.Message, "queued instead of shedding")
		assert.Contains(t, st.OverloadGate.Message, fmt.Sprintf("--max-num-queued-reqs %d", p.MaxNumQueuedReqs))
		assert.Contains(t, st.OverloadGate.Message, "worst queue wait")
	})
}

func render(c *report.Capacity) string { return fmt.Sprintf("[%g, %g]", c.PassRate, c.FailRate) }
