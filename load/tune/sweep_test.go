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
	"github.com/llmslo/llmslo/vllmsim"
)

func TestSweepBracketsTheKnee(t *testing.T) {
	// A server whose capacity is 11 req/s: every rate above fails.
	judge := func(knee float64) func(float64) (report.Verdict, error) {
		return func(r float64) (report.Verdict, error) {
			if r <= knee {
				return report.VerdictPass, nil
			}
			return report.VerdictFail, nil
		}
	}
	cases := []struct {
		name       string
		knee       float64
		rates      []float64
		refine     int
		pass, fail float64
	}{
		{"bisects between the last pass and the first fail", 11, []float64{2, 4, 8, 16}, 3, 11, 12},
		{"no refinement", 11, []float64{2, 4, 8, 16}, 0, 8, 16},
		{"everything passes", 100, []float64{2, 4}, 3, 4, 0},
		{"nothing passes", 1, []float64{2, 4}, 3, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sweep(context.Background(), tc.refine, 0, tc.rates, judge(tc.knee))
			require.NoError(t, err)
			assert.Equal(t, report.Capacity{PassRate: tc.pass, FailRate: tc.fail}, *c)
		})
	}
}

func TestSweepStopsOnAnInvalidStep(t *testing.T) {
	var ran []float64
	c, err := sweep(context.Background(), 3, 0, []float64{1, 2, 4}, func(r float64) (report.Verdict, error) {
		ran = append(ran, r)
		if r == 2 {
			return report.VerdictInvalid, nil
		}
		return report.VerdictPass, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ran)
	assert.Equal(t, report.Capacity{PassRate: 1}, *c)
}

func TestSweepFindsTheSimulatorsKnee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two sequences at a time, 256 prompt and 64 output tokens: about 545 ms
		// of service each (one prefill step of ~23 ms, 63 decode steps of ~8 ms,
		// and a little for prefills sharing steps), so the capacity is about
		// 2/0.545 ≈ 3.7 req/s. With constant arrivals TTFT stays near one
		// prefill step (~25 ms) below it and climbs past 100 ms within 3 s above
		// it, so the sweep must bracket 3.7 between 3.5 (pass) and 4 (fail).
		cfg := load.DefaultPlan()
		cfg.Target = simTarget(vllmsim.Config{MaxNumSeqs: 2})
		cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, "fixed:256:64"), []float64{2, 4}, plantest.MustArrival(t, "constant")
		cfg.Duration, cfg.Warmup, cfg.SLOs = 3*time.Second, 0, plantest.MustSLOs(t, "ttft.p50<=60ms")
		cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		rep, err := Sweep(context.Background(), cfg, Search{Refine: 2})
		require.NoError(t, err)
		c := rep.Capacity
		require.NotNil(t, c)
		t.Logf("capacity bracket: passes at %g, fails at %g req/s", c.PassRate, c.FailRate)
		assert.GreaterOrEqual(t, c.PassRate, 2.0)
		assert.LessOrEqual(t, c.PassRate, 3.8)
		assert.GreaterOrEqual(t, c.FailRate, 3.5)
		assert.LessOrEqual(t, c.FailRate, 4.0)
		assert.Len(t, rep.Steps, 4, "rates 2, 4 (fails), then two bisections")
	})
}

// Bisection stops once the bracket is within the asked precision.
func TestSweepStopsAtItsPrecision(t *testing.T) {
	calls := 0
	c, err := sweep(context.Background(), 20, 0.05, []float64{2, 4, 8, 16}, func(r float64) (report.Verdict, error) {
		calls++
		if r <= 11 {
			return report.VerdictPass, nil
		}
		return report.VerdictFail, nil
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, (c.FailRate-c.PassRate)/c.FailRate, 0.05)
	assert.Greater(t, (c.FailRate-c.PassRate*1)/c.FailRate, 0.0)
	assert.Less(t, calls, 4+20, "it stopped before the 20 refinements")
	assert.LessOrEqual(t, c.PassRate, 11.0)
	assert.Greater(t, c.FailRate, 11.0)
}

// Each rate of a sweep is chosen from the last step's verdict, which one
// shard alone cannot know.
func TestSweepRefusesAShardedPlan(t *testing.T) {
	plan := load.DefaultPlan()
	plan.Rates, plan.Target = []float64{2}, load.URLTarget{URL: "http://server:8000"}
	plan.Shard, plan.StartAt = load.Shard{Index: 0, Count: 2}, time.Now().Add(time.Minute)
	plan.Fixture = plantest.MustFixture(t, "fixed:8:2")
	_, err := Sweep(context.Background(), plan, Search{Refine: 1})
	assert.ErrorContains(t, err, "a sweep cannot be sharded")
}
