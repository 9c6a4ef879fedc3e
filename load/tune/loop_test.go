package tune

import (
	"context"
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

// tunePlan is the tuning test's plan: the hand-fit profile, whose step
// time grows by 60 µs a batched token on a fixed 7.9 ms, under requests
// of 512 prompt and 32 output tokens: the GPU's compute saturates near
// 30 req/s, and TPOT rises with the rate well before (19 ms at about
// 18 req/s, with 11 requests running). Four sequences carry about
// 10 req/s, eight about 15.
func tunePlan(t *testing.T, args ...string) load.Plan {
	plan := load.DefaultPlan()
	plan.Target = simArgsTarget(t, args...)
	plan.Fixture, plan.Rates, plan.Arrival = plantest.MustFixture(t, "fixed:512:32"), []float64{8, 16}, plantest.MustArrival(t, "constant")
	plan.Duration, plan.Warmup = 3*time.Second, time.Second
	plan.SLOs = plantest.MustSLOs(t, "ttft.p95<=2s", "tpot.p50<=19ms")
	plan.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
	return plan
}

// The loop from --max-num-seqs 4: the first iteration names max_num_seqs
// and raises it, every kept change raises the knee beyond its bracket,
// and the loop ends where compute binds (or on a stated trade).
func TestTuneRaisesTheBatchCapUntilComputeBinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		plan := tunePlan(t, "--profile", "h100-llama3-8b", "--max-num-seqs", "4")
		rep, err := Tune(context.Background(), plan, Options{Search: Search{Refine: 3, Precision: 0.1}, Budget: 5})
		require.NoError(t, err)
		tu := rep.Tune
		require.NotNil(t, tu)
		for _, it := range tu.Iterations {
			t.Logf("%v: %s knee %s binding %s kept %v: %s", it.Args, it.Change, Bracket(it.PassRate, it.FailRate), it.Binding, it.Kept, it.Why)
		}
		t.Logf("stop: %s; %s; in %v", tu.Stop, tu.Command, time.Since(start).Round(time.Second))
		require.GreaterOrEqual(t, len(tu.Iterations), 2)
		first := tu.Iterations[0]
		assert.Equal(t, verdict.BindMaxNumSeqs, first.Binding, "four sequences bind first")
		assert.Equal(t, "--max-num-seqs 8", tu.Iterations[1].Change)
		prevFail := first.FailRate
		for _, it := range tu.Iterations[1:] {
			if it.Kept {
				assert.GreaterOrEqual(t, it.PassRate, prevFail, "a kept change moves the knee beyond the bracket before it")
				prevFail = it.FailRate
			}
		}
		last := tu.Iterations[len(tu.Iterations)-1]
		if last.Kept {
			assert.Equal(t, verdict.BindCompute, last.Binding)
			assert.Contains(t, tu.Stop, "compute binds")
		} else {
			assert.Contains(t, tu.Stop, "trades one SLO for another", "the loop ends on compute or a trade")
		}
		assert.Len(t, rep.Variants, len(tu.Iterations), "one curve per iteration")
		assert.Contains(t, tu.Command, "vllm serve")
		require.NotNil(t, rep.Capacity)
		assert.GreaterOrEqual(t, rep.Capacity.PassRate, first.FailRate)
		require.NotNil(t, rep.Protect)
		t.Logf("protect: %+v", *rep.Protect)
		assert.Greater(t, rep.Protect.MaxNumQueuedReqs, 0)
		g := tu.OverloadGate
		require.NotNil(t, g, "the last step is the overload gate")
		for _, st := range rep.Steps {
			if st.OverloadGate != nil {
				t.Logf("%s: %s", st.Name, st.OverloadGate.Message)
			}
		}
		assert.True(t, g.Pass, "with Protect's limit, lowered where compute binds: %s", g.Message)
		assert.Equal(t, report.VerdictPass, rep.Verdict)
	})
}
