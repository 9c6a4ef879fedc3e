package load

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTraceStepsStartAtTheTracesFirstRow(t *testing.T) {
	// Five rows 100 ms apart, each with its own prompt length: a replay
	// must send row k at arrival k in every step, not only the first.
	path := filepath.Join(t.TempDir(), "trace.csv")
	rows := "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:00:00.0000000,10,2\n2023-11-16 18:00:00.1000000,20,2\n2023-11-16 18:00:00.2000000,30,2\n" +
		"2023-11-16 18:00:00.3000000,40,2\n2023-11-16 18:00:00.4000000,50,2"
	require.NoError(t, os.WriteFile(path, []byte(rows), 0o644))
	ctx := context.Background()
	cfg := DefaultPlan()
	cfg.Target = simTarget(vllmsim.Config{ProfileName: "instant"})
	cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, path), []float64{20}, plantest.MustArrival(t, "trace")
	cfg.Duration, cfg.Warmup, cfg.SLOs = 700*time.Millisecond, 0, plantest.MustSLOs(t, "ttft.p50<=10s")
	cfg.Thresholds.Off = []string{verdict.HazardClientSaturation}
	s, err := Open(ctx, cfg)
	require.NoError(t, err)
	defer s.Close()

	// 14 arrivals a step (20 req/s for 0.7 s): rows 0-4, 0-4, 0-3.
	first, err := s.Step(ctx, 20)
	require.NoError(t, err)
	second, err := s.Step(ctx, 20)
	require.NoError(t, err)
	want := int64(2*(10+20+30+40+50) + 10 + 20 + 30 + 40)
	assert.Equal(t, want, first.Tokens.Input)
	assert.Equal(t, want, second.Tokens.Input, "the second step starts at row 0 again, with its arrivals")
	assert.Equal(t, 29, s.next, "indices 15-28: a fresh row-0 index, so prompts never repeat")
}

// A step invalid for client_saturation alone is measured again up to
// StarvedRetries times, and only the last attempt enters the report, with
// the others listed; any other verdict is final at once.
func TestStarvedStepsAreMeasuredAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	ctx := context.Background()
	open := func(slo string, lateFraction float64) *Measurement {
		cfg := DefaultPlan()
		cfg.Target = simTarget(vllmsim.Config{ProfileName: "instant"})
		cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, "fixed:16:2"), []float64{50}, plantest.MustArrival(t, "constant")
		cfg.Duration, cfg.Warmup, cfg.SLOs = 300*time.Millisecond, 0, plantest.MustSLOs(t, slo)
		cfg.Thresholds.Off = []string{verdict.HazardTooFewSamples}
		// No client keeps a schedule to the nanosecond: every send is
		// late, and every attempt starved.
		cfg.Thresholds.MaxLateFraction = lateFraction
		cfg.Thresholds.MinLateness = time.Nanosecond
		cfg.StarvedRetries = 2
		s, err := Open(ctx, cfg)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}

	s := open("ttft.p50<=10s", 1e-9)
	st, err := s.Step(ctx, 50)
	require.NoError(t, err)
	assert.Equal(t, report.VerdictInvalid, st.Verdict)
	require.Len(t, st.Retried, 2, "two retries, then the third attempt kept")
	assert.Contains(t, st.Retried[0], verdict.HazardClientSaturation)
	assert.Len(t, s.Report().Steps, 1, "one step in the report")
	assert.Equal(t, 45, s.next, "three attempts of 15 requests each used fresh indices")

	// A session replay is measured again the same way, with fresh sessions.
	dir, _ := smallWeka(t)
	cfg := DefaultPlan()
	cfg.Target = simTarget(vllmsim.Config{ProfileName: "instant", MaxModelLen: 65536})
	cfg.Fixture, cfg.Rates, cfg.Arrival = plantest.MustFixture(t, dir), []float64{3}, plantest.MustArrival(t, "constant")
	cfg.Duration, cfg.Warmup, cfg.SLOs = time.Second, 0, plantest.MustSLOs(t, "ttft.p50<=10s")
	cfg.ThinkTimeScale, cfg.MaxThink = 0.01, 50*time.Millisecond
	cfg.Thresholds.Off = []string{verdict.HazardTooFewSamples, verdict.HazardNotSteady, verdict.HazardWarmCache}
	cfg.Thresholds.MaxLateFraction, cfg.Thresholds.MinLateness, cfg.StarvedRetries = 1e-9, time.Nanosecond, 1
	replay, err := Open(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { replay.Close() })
	st, err = replay.Step(ctx, 3)
	require.NoError(t, err)
	require.NotNil(t, st.Sessions)
	require.Len(t, st.Retried, 1, "one retry, then the second attempt kept")
	assert.Len(t, replay.Report().Steps, 1)
	assert.Equal(t, 6, replay.next, "two attempts of 3 sessions each used fresh indices")

	// An SLO failed by a client that kept its schedule is final.
	s = open("ttft.p50<=1ns", 0)
	st, err = s.Step(ctx, 50)
	require.NoError(t, err)
	assert.Equal(t, report.VerdictFail, st.Verdict)
	assert.Empty(t, st.Retried)
	assert.Equal(t, 15, s.next)
}
