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

// The sweeps on the simulator run in virtual time (testing/synctest, the
// simulator on in-memory connections): a sweep of minutes takes the CPU
// time it needs. They test the search and the server, not the client.

// sweepSim sweeps the default simulator with extra vLLM flags over two
// rates (below and above its knee) with constant arrivals, in virtual
// time.
func sweepSim(t *testing.T, simArgs []string, fixture string, rates []float64, slos ...string) *report.Report {
	t.Helper()
	var rep *report.Report
	synctest.Test(t, func(t *testing.T) {
		cfg := load.DefaultPlan()
		cfg.Target = simArgsTarget(t, simArgs...)
		cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, fixture), rates, plantest.MustArrival(t, "constant")
		cfg.Duration, cfg.Warmup, cfg.SLOs = 3*time.Second, 0, plantest.MustSLOs(t, slos...)
		cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		var err error
		rep, err = Sweep(context.Background(), cfg, Search{Refine: 0})
		require.NoError(t, err)
		require.NotNil(t, rep.Capacity)
	})
	require.NotNil(t, rep, "the sweep failed")
	return rep
}

// Each binding constraint, on a server built to make it bind: the sweep
// names it at the knee.
func TestSweepNamesWhatBinds(t *testing.T) {
	cases := []struct {
		name    string
		simArgs []string
		fixture string
		rates   []float64
		slos    []string
		want    string
	}{
		// max_num_seqs (two sequences at a time: a queue at the cap, KV
		// nearly empty) is the knee of the growing-queue test below and of
		// the variant sweep's base.
		// 280 blocks (4,480 tokens) hold four 1152-token requests: a
		// fifth waits for KV cache, not for a batch slot.
		{"kv_cache", []string{"--num-gpu-blocks-override", "280", "--max-model-len", "4096"}, "fixed:1024:128", []float64{0.5, 4},
			[]string{"ttft.p50<=250ms"}, verdict.BindKVCache},
		// 8000-token prompts: each prefill shares an ~0.5 s step with
		// every running decode, so ITL's tail fails while TTFT holds.
		{"max_num_batched_tokens", nil, "fixed:8000:64", []float64{0.2, 2},
			[]string{"ttft.p95<=5s", "itl.p99<=100ms"}, verdict.BindMaxNumBatchedTokens},
		// Everything admitted, nothing waits, the KV cache nearly empty:
		// decode steps slow as the batch grows.
		{"compute", nil, "fixed:128:64", []float64{2, 60}, []string{"tpot.p50<=10ms"}, verdict.BindCompute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := sweepSim(t, tc.simArgs, tc.fixture, tc.rates, tc.slos...)
			c := rep.Capacity
			for _, s := range rep.Steps {
				for _, r := range s.SLO {
					t.Logf("%s: %s; %s p%g %.1f ms (limit %.0f)", s.Name, s.Verdict, r.Metric, r.Percentile, r.ObservedMs, r.LimitMs)
				}
			}
			if c.Binding != nil {
				t.Logf("binding %s: %s", c.Binding.Kind, c.Binding.Evidence)
			}
			require.Equal(t, tc.rates[0], c.PassRate, "%+v", rep.Steps)
			require.Equal(t, tc.rates[1], c.FailRate)
			require.NotNil(t, c.Binding, "%+v", rep.Steps[1].Server)
			assert.Equal(t, tc.want, c.Binding.Kind, "%s; server %+v", c.Binding.Evidence, rep.Steps[1].Server)
			assert.NotEmpty(t, c.Binding.Flag)
			assert.Len(t, c.Curve, 2)
		})
	}
}

// The tuning loop: raising the flag that binds moves the knee up; raising
// one that does not leaves it where it was.
func TestVariantSweepMovesTheKneeOnlyWithTheBindingFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := load.DefaultPlan()
		cfg.Target = simArgsTarget(t, "--max-num-seqs", "2")
		// Two sequences carry about 3.7 req/s of these requests, four about
		// 7.5: 6 req/s is past the first knee and below the second.
		cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, "fixed:256:64"), []float64{2, 6}, plantest.MustArrival(t, "constant")
		cfg.Duration, cfg.Warmup, cfg.SLOs = 2*time.Second, 0, plantest.MustSLOs(t, "ttft.p50<=60ms")
		cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		rep, err := Sweep(context.Background(), cfg, Search{Refine: 0, Variants: []string{"", "--max-num-seqs 4", "--max-num-batched-tokens 16384"}})
		require.NoError(t, err)
		require.Len(t, rep.Variants, 3)
		base, more, other := rep.Variants[0], rep.Variants[1], rep.Variants[2]
		t.Logf("knees: base [%g, %g], --max-num-seqs 4 [%g, %g], --max-num-batched-tokens 16384 [%g, %g]",
			base.PassRate, base.FailRate, more.PassRate, more.FailRate, other.PassRate, other.FailRate)
		require.NotNil(t, base.Binding)
		assert.Equal(t, verdict.BindMaxNumSeqs, base.Binding.Kind)
		assert.Equal(t, []float64{2, 6}, []float64{base.PassRate, base.FailRate})
		assert.Equal(t, 6.0, more.PassRate, "twice the sequences, a higher knee")
		assert.Equal(t, base.PassRate, other.PassRate, "a flag that does not bind leaves the knee")
		assert.Equal(t, base.FailRate, other.FailRate)
		assert.Contains(t, rep.Steps[0].Name, "rate=2")
	})
}

// A variant of the vllm target restarts its container with the variant's
// flags after the starter's own: here a starter that serves each request
// with an in-process simulator reading those flags.
func TestVariantSweepRestartsTheContainerTarget(t *testing.T) {
	var got [][]string
	starter := load.ContainerStarterFunc(func(ctx context.Context, req load.ContainerRequest) (load.StartedContainer, error) {
		got = append(got, req.Args)
		sim, err := vllmsim.ParseServeArgs(append([]string{req.Model}, req.Args...))
		if err != nil {
			return load.StartedContainer{}, err
		}
		srv := vllmsim.NewServer(sim)
		return load.StartedContainer{URL: srv.URL, Model: req.Model, Stop: func() error { srv.Close(); return nil }}, nil
	})
	cfg := load.DefaultPlan()
	cfg.Target = load.ContainerTarget{Starter: starter, Image: "img", Model: "acme/served", Args: []string{"--max-num-seqs", "1"}}
	cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, "fixed:256:64"), []float64{1, 6}, plantest.MustArrival(t, "constant")
	cfg.Duration, cfg.Warmup, cfg.SLOs = time.Second, 0, plantest.MustSLOs(t, "ttft.p50<=60ms")
	cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
	rep, err := Sweep(context.Background(), cfg, Search{Refine: 0, Variants: []string{"--max-num-seqs 8"}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, []string{"--max-num-seqs", "1", "--max-num-seqs", "8"}, got[0], "the variant's flags come after the base ones")
	require.Len(t, rep.Variants, 1)
	assert.Equal(t, 6.0, rep.Variants[0].PassRate, "eight sequences carry 6 req/s of these requests; one would not")
}

// A server whose waiting queue grows through the window is over capacity:
// the step fails on that evidence though every SLO held so far (no step
// length would keep them), and the sweep counts it as past the knee and
// names what binds there.
func TestAGrowingQueueFailsAsOverCapacityAndTheSweepNamesWhatBinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two sequences at a time, about 3.6 req/s of fixed:128:64: 8 req/s
		// grows the queue by about 4 requests a second.
		// Steps of 4 s: enough /metrics samples in the second half for the
		// queue's rise (the race pass, whose detector slows the scraper, does
		// not run this sweep).
		cfg := load.DefaultPlan()
		cfg.Target = simArgsTarget(t, "--max-num-seqs", "2")
		cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, "fixed:128:64"), []float64{2, 8}, plantest.MustArrival(t, "constant")
		cfg.Duration, cfg.Warmup, cfg.SLOs = 4*time.Second, 0, plantest.MustSLOs(t, "ttft.p50<=60s")
		cfg.Thresholds.Off = []string{verdict.HazardClientSaturation, verdict.HazardTooFewSamples}
		rep, err := Sweep(context.Background(), cfg, Search{Refine: 0})
		require.NoError(t, err)
		require.NotNil(t, rep.Capacity)
		require.Len(t, rep.Steps, 2)
		over := rep.Steps[1]
		assert.Equal(t, report.VerdictFail, over.Verdict)
		require.NotNil(t, over.OverCapacity, "server %+v", over.Server)
		t.Logf("%s", over.OverCapacity.Message)
		assert.Greater(t, over.OverCapacity.GrowthPerS, 2.0)
		assert.Contains(t, over.OverCapacity.Message, "arrivals outpace completions")
		for _, r := range over.SLO {
			assert.True(t, r.Pass, "%s held: only the queue says the rate is past the knee", r.Metric)
		}
		assert.Empty(t, over.Hazards)
		// Below capacity the same server is steady.
		assert.Equal(t, report.VerdictPass, rep.Steps[0].Verdict)
		assert.Nil(t, rep.Steps[0].OverCapacity, "server %+v", rep.Steps[0].Server)
		assert.Empty(t, rep.Steps[0].Hazards)
		assert.Equal(t, 8.0, rep.Capacity.FailRate)
		require.NotNil(t, rep.Capacity.Binding)
		assert.Equal(t, verdict.BindMaxNumSeqs, rep.Capacity.Binding.Kind)
		assert.NotEmpty(t, rep.Capacity.Binding.Flag)
		assert.Equal(t, 2, over.Server.MaxNumSeqs, "the simulator's own cap, reported")
	})
}
