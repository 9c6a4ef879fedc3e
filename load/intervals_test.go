package load

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load/client"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/llmslo/llmslo/vllmsim/engine"
)

// intervalStep runs one 11-second step (eleven one-second clusters: enough
// blocks for the bootstrap) in virtual time against a server started on
// cfg; in < 0 asks for prompts of 1,000 to 2,999 tokens, spread evenly
// over the requests.
func intervalStep(t *testing.T, cfg vllmsim.Config, rate float64, in, out int) report.StepReport {
	t.Helper()
	return intervalSteps(t, intervalPlan(t, cfg, true, rate, in, out))[0]
}

// intervalPlan is an interval check's step against a server started on
// cfg: in virtual time (testing/synctest, the server on in-memory
// connections), where the server's structure is exact, or in real time,
// where the machine's own noise is part of what an interval must cover.
func intervalPlan(t *testing.T, cfg vllmsim.Config, virtual bool, rate float64, in, out int) stepPlan {
	t.Helper()
	var c *client.Client
	if virtual {
		c = virtualEngine(t, cfg)
	} else {
		c = engineClient(t, simtest.Start(t, cfg).URL)
	}
	p := constantPlan(t, c, rate, 11*time.Second, max(in, 1), out, "ttft.p95<=1h", "itl.p99<=1h")
	if virtual {
		inVirtualTime(&p)
	}
	if in < 0 {
		p.Workload = workload.WorkloadFunc(func(i int) workload.Request {
			return fixedWorkload(1000+i*7919%2000, out).Request(i)
		})
	}
	p.Seed = 7
	return p
}

// intervalSteps runs the plans side by side, each a step of its own, and
// returns their steps in order: light steps that share the machine alike,
// in the time of one.
func intervalSteps(t *testing.T, plans ...stepPlan) []report.StepReport {
	t.Helper()
	reps := make([]*report.Report, len(plans))
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i := range plans {
		wg.Go(func() { reps[i], errs[i] = runPlan(context.Background(), plans[i]) })
	}
	wg.Wait()
	steps := make([]report.StepReport, len(plans))
	for i := range plans {
		require.NoError(t, errs[i])
		steps[i] = reps[i].Steps[0]
		require.Zero(t, steps[i].Requests.Failed, "%v", steps[i].Errors)
	}
	return steps
}

// Design effects against a server of known structure: an engine whose
// prompts of 1,000 to 3,000 tokens each take a prefill step of 22 to 62 ms
// stalls every running stream at once, about five at a time, so its longest
// gaps come in bunches of one length; the design effect says so and widens
// the interval. (With prompts of one length every stall would be the same
// 42 ms, the p99 would sit on that atom with no gap above it: no design
// effect, and rightly a narrow interval. A paced server is no "independent"
// reference either: a hiccup of the machine delays every stream at once,
// and its ITL p99, made of such hiccups, showed design effects of 1 to 3.
// Independent observations are checked in package stats.)
func TestDesignEffectAgainstKnownServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stalls := vllmsim.Config{Model: "m",
			Profile: engine.StepProfile{Name: "prefill-stalls", Fixed: 2 * time.Millisecond, PerToken: 20 * time.Microsecond}}
		s := intervalStep(t, stalls, 10, -1, 100)
		itl := sloResult(t, &s, report.MetricITL)
		t.Logf("ITL p99 %.1f ms, design effect %.2f, interval %v, %d gaps", itl.ObservedMs, itl.DesignEffect, itl.CI95Ms, itl.Samples)
		assert.Greater(t, itl.DesignEffect, 2.0, "gaps stalled together by one prefill step")
		require.NotNil(t, itl.CI95Ms)
		lo, hi, ok := s.Histogram(report.MetricITL).QuantileCIAt(99, verdict.CIConfidence)
		require.True(t, ok)
		plain := float64(hi-lo) / 1e6
		assert.Greater(t, itl.CI95Ms[1]-itl.CI95Ms[0], plain, "the reported interval is wider than one that takes every gap as independent")
	})
}

// The baseline comparison's ratio interval against servers of known
// latency: the same paced server rerun on the same seed gives an interval
// around 1; one whose TTFT is 150 ms where the baseline's was 100 ms gives
// one around 1.5 (less the client's own share of each TTFT), and regresses.
func TestBaselineRatioIntervalAgainstKnownServers(t *testing.T) {
	testkit.Long(t) // 11 s steps
	t.Parallel()    // light (TestMain)
	// The baseline, its rerun and the slower server's step run side by
	// side: 60 req/s of 20-token streams in all, well within the machine.
	fast := pacedConfig(100*time.Millisecond, 2*time.Millisecond, vllmsim.Faults{})
	slowSrv := pacedConfig(150*time.Millisecond, 2*time.Millisecond, vllmsim.Faults{})
	steps := intervalSteps(t, intervalPlan(t, fast, false, 20, 8, 20), intervalPlan(t, fast, false, 20, 8, 20), intervalPlan(t, slowSrv, false, 20, 8, 20))
	base := &report.Report{Seed: 7, Steps: []report.StepReport{steps[0]}}
	again, slow := steps[1], steps[2]

	cs, err := verdict.CompareBaseline(base, &again, true, 0.10)
	require.NoError(t, err)
	for _, c := range cs {
		require.NotNil(t, c.RatioCI95, "%s: eleven seconds make eleven blocks", c.Metric)
		assert.True(t, c.Paired)
		if c.Metric != string(report.MetricTTFT) {
			// The p99 of 2 ms paced gaps is the machine's timer jitter
			// (2.8 to 4.5 ms from one run to the next on a busy one), not
			// the server's: only TTFT's 100 ms stands well above it.
			continue
		}
		assert.LessOrEqual(t, c.RatioCI95[0], 1.05, "%s: %+v", c.Metric, c)
		assert.GreaterOrEqual(t, c.RatioCI95[1], 0.95, "%s: %+v", c.Metric, c)
		assert.False(t, c.Regressed, "%s: %+v", c.Metric, c)
	}

	cs, err = verdict.CompareBaseline(base, &slow, true, 0.10)
	require.NoError(t, err)
	for _, c := range cs {
		if c.Metric != string(report.MetricTTFT) {
			continue
		}
		require.NotNil(t, c.RatioCI95)
		t.Logf("TTFT ratio %.3f, interval %v", c.Ratio, *c.RatioCI95)
		assert.Greater(t, c.RatioCI95[0], 1.35, "150 ms against 100 ms, plus the client's own share")
		assert.Less(t, c.RatioCI95[1], 1.65)
		assert.True(t, c.Regressed)
	}
}
