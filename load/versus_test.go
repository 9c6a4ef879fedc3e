package load

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/testkit"
	"github.com/llmslo/llmslo/load/arrival"
	"github.com/llmslo/llmslo/load/observe"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/vllmsim"
)

// gatePlan is the README's PR gate on a simulator (in virtual time)
// configured by cfg: azure-conv-2023 at 6 req/s, 30 s after 5 s.
func gatePlan(t *testing.T, cfg vllmsim.Config) Plan {
	p := DefaultPlan()
	cfg.ProfileName = "h200-llama3-8b"
	p.Target = virtualSimTarget(cfg)
	p.Fixture, p.Rates, p.Seed = plantest.MustFixture(t, "azure-conv-2023"), []float64{6}, 1000
	p.Duration, p.Warmup = 30*time.Second, 5*time.Second
	p.SLOs = plantest.MustSLOs(t, "ttft.p90<=5s", "itl.p99<=2s")
	return p
}

// Drift (every simulator 20% slower from a moment on, as a node that runs
// warm) between a baseline's recording and the gate that compares with it
// raises a false alarm on an unchanged server. Side by side, both servers
// meet the same drift: the unchanged one passes, and one whose every
// engine step is 20% slower is caught.
func TestSideBySideCancelsTheDriftARecordedBaselineMeets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(5 * time.Minute)
		drift := vllmsim.Drift{Kind: vllmsim.DriftStep, Amplitude: 0.2, At: at}
		same := vllmsim.Config{Drift: drift}

		recorded, err := Measure(context.Background(), gatePlan(t, same))
		require.NoError(t, err)
		require.Equal(t, report.VerdictPass, recorded.Verdict)
		time.Sleep(time.Until(at)) // the node runs warm
		p := gatePlan(t, same)
		p.Baseline = recorded
		later, err := Measure(context.Background(), p)
		require.NoError(t, err)
		st := later.Steps[0]
		t.Logf("recorded baseline, after the drift: %s: %s", st.Verdict, render.VersusLine(st.Baseline))
		assert.Equal(t, report.VerdictFail, st.Verdict, "a false alarm: the server did not change")
		assert.NotEmpty(t, verdict.Regressions(st.Baseline))

		p = gatePlan(t, same)
		p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", Drift: drift})
		side, err := Measure(context.Background(), p)
		require.NoError(t, err)
		st = side.Steps[0]
		t.Logf("side by side, unchanged: %s: %s", st.Verdict, render.VersusLine(st.Versus))
		assert.Equal(t, report.VerdictPass, st.Verdict)
		require.Len(t, st.Versus, 2)
		for _, c := range st.Versus {
			require.NotNil(t, c.RatioCI95, c.Metric)
			assert.LessOrEqual(t, c.RatioCI95[0], 1.0, c.Metric)
			assert.GreaterOrEqual(t, c.RatioCI95[1], 1.0, c.Metric)
			assert.True(t, c.Paired)
		}
		require.NotNil(t, side.Versus)
		assert.Equal(t, report.VersusTogether, side.Versus.Mode)
		require.Len(t, side.Versus.Steps, 1)
		assert.Equal(t, report.VerdictPass, side.Versus.Steps[0].Verdict, "the base side is judged on its own SLOs")
		assert.Equal(t, st.Requests.Sent, side.Versus.Steps[0].Requests.Sent, "the same schedule")

		p = gatePlan(t, vllmsim.Config{Drift: drift, StepTimeScale: 1.2})
		p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", Drift: drift})
		slower, err := Measure(context.Background(), p)
		require.NoError(t, err)
		st = slower.Steps[0]
		t.Logf("side by side, ×1.2: %s: %s", st.Verdict, render.VersusLine(st.Versus))
		assert.Equal(t, report.VerdictFail, st.Verdict)
		assert.NotEmpty(t, verdict.Regressions(st.Versus))
	})
}

// The paired interval, on two servers alike but for each one's own noise
// (every step up to 10% slower, drawn from each server's seed) under a
// drift they share: it covers ×1 in at least 95% of trials, and is
// narrower than the interval of two unpaired runs of the same length (the
// same servers, each alone, on other seeds and at other moments).
func TestThePairedIntervalCoversOneAndIsNarrower(t *testing.T) {
	testkit.Long(t) // 60 runs in virtual time, about 19 s
	pairedIntervalTrials(t, VersusTogether)
}

// The same, alternating: block k of both sides paired.
func TestTheAlternatingPairedIntervalCoversOneAndIsNarrower(t *testing.T) {
	testkit.Long(t) // 60 runs in virtual time, about 20 s
	pairedIntervalTrials(t, VersusAlternate)
}

func pairedIntervalTrials(t *testing.T, mode string) {
	const trials = 20
	synctest.Test(t, func(t *testing.T) {
		drift := vllmsim.Drift{Kind: vllmsim.DriftSine, Amplitude: 0.1, Period: 3 * time.Minute}
		server := func(seed int64) vllmsim.Config {
			return vllmsim.Config{ProfileName: "h200-llama3-8b", Drift: drift, StepJitter: 0.1, Seed: seed}
		}
		covered, pairedWidth, unpairedWidth, n := 0, 0.0, 0.0, 0
		for i := range trials {
			seed := int64(3000 + i)
			p := gatePlan(t, server(seed))
			p.Duration, p.Seed, p.VersusMode = 20*time.Second, seed, mode
			p.Versus = virtualSimTarget(server(seed + 500))
			rep, err := Measure(context.Background(), p)
			require.NoError(t, err)
			st := rep.Steps[0]
			ok := true
			for _, c := range st.Versus {
				require.NotNil(t, c.RatioCI95, c.Metric)
				ok = ok && c.RatioCI95[0] <= 1 && c.RatioCI95[1] >= 1
				pairedWidth += c.RatioCI95[1] - c.RatioCI95[0]
			}
			if ok {
				covered++
			}
			// The same two servers, each alone, on other seeds, a third of
			// the drift's period apart.
			p = gatePlan(t, server(seed))
			p.Duration, p.Seed = 20*time.Second, seed+100
			a, err := Measure(context.Background(), p)
			require.NoError(t, err)
			time.Sleep(time.Minute)
			p = gatePlan(t, server(seed+500))
			p.Duration, p.Seed = 20*time.Second, seed+200
			b, err := Measure(context.Background(), p)
			require.NoError(t, err)
			cs, err := verdict.CompareBaseline(b, &a.Steps[0], false, 0.1)
			require.NoError(t, err)
			for _, c := range cs {
				require.NotNil(t, c.RatioCI95, c.Metric)
				unpairedWidth += c.RatioCI95[1] - c.RatioCI95[0]
			}
			n += len(cs)
		}
		pairedWidth, unpairedWidth = pairedWidth/float64(n), unpairedWidth/float64(n)
		t.Logf("%s: covered ×1 in %d of %d trials; mean interval width %.3f paired, %.3f unpaired", mode, covered, trials, pairedWidth, unpairedWidth)
		assert.GreaterOrEqual(t, covered, trials*95/100)
		assert.Less(t, pairedWidth, unpairedWidth)
	})
}

// Side by side, both servers get exactly the same requests at the same
// intended moments: the per-request records of the two sides list the same
// indices, prompts of the same length and the same intended times, and
// each step's window starts at one instant on both.
func TestSideBySideSendsTheSameRequestsAtTheSameMoments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := gatePlan(t, vllmsim.Config{})
		p.Rates, p.Duration, p.Warmup = []float64{4, 8}, 5*time.Second, time.Second
		p.Versus = virtualSimTarget(vllmsim.Config{ProfileName: "h200-llama3-8b", StepTimeScale: 1.5})
		p.RequestsOut = filepath.Join(t.TempDir(), "requests.jsonl")
		rep, err := Measure(context.Background(), p)
		require.NoError(t, err)
		require.Len(t, rep.Steps, 2)
		require.Len(t, rep.Versus.Steps, 2)
		for i, st := range rep.Steps {
			assert.Equal(t, st.StartedAt, rep.Versus.Steps[i].StartedAt, "%s: one start", st.Name)
			assert.Equal(t, st.Requests.Sent, rep.Versus.Steps[i].Requests.Sent)
		}
		read := func(path string) []observe.RequestRecord {
			out := readRecords(t, path)
			slices.SortFunc(out, func(a, b observe.RequestRecord) int { return a.Index - b.Index })
			return out
		}
		own, base := read(p.RequestsOut), read(filepath.Join(filepath.Dir(p.RequestsOut), "requests.versus.jsonl"))
		require.NotEmpty(t, own)
		require.Len(t, base, len(own))
		for i := range own {
			assert.Equal(t, own[i].Index, base[i].Index)
			assert.Equal(t, own[i].Step, base[i].Step)
			assert.Equal(t, own[i].InputTokens, base[i].InputTokens, "request %d", own[i].Index)
			assert.InDelta(t, own[i].IntendedS, base[i].IntendedS, 1e-9, "request %d", own[i].Index)
		}
	})
}

// A side-by-side plan that cannot run as asked is refused before either
// target starts, naming the setting.
func TestSideBySideSetupMistakesAreRefused(t *testing.T) {
	base := virtualSimTarget(vllmsim.Config{})
	cases := []struct {
		name  string
		edit  func(*Plan)
		field string
	}{
		{"a mode without a base", func(p *Plan) { p.Versus, p.VersusMode = nil, VersusTogether }, "VersusMode"},
		{"a mode unknown", func(p *Plan) { p.VersusMode = "interleave" }, "VersusMode"},
		{"a block without alternating", func(p *Plan) { p.VersusBlock = 5 * time.Second }, "VersusBlock"},
		{"a block of a fraction of a second", func(p *Plan) { p.VersusMode, p.VersusBlock = VersusAlternate, 7500*time.Millisecond }, "VersusBlock"},
		{"a window not cut in whole-second blocks", func(p *Plan) { p.VersusMode, p.Duration = VersusAlternate, 30*time.Second+500*time.Millisecond }, "Duration"},
		{"an odd window in 1 s blocks", func(p *Plan) { p.VersusMode, p.VersusBlock, p.Duration = VersusAlternate, time.Second, 5*time.Second }, "Duration"},
		{"too short for a block a side in each order", func(p *Plan) { p.VersusMode, p.Duration = VersusAlternate, time.Second }, "Duration"},
		{"no transient to leave out", func(p *Plan) { p.VersusMode, p.Warmup = VersusAlternate, 0 }, "Warmup"},
		{"a trace's own times in blocks", func(p *Plan) { p.VersusMode, p.Arrival = VersusAlternate, arrival.Spec{Kind: arrival.Trace} }, "Arrival"},
		{"and a recorded baseline", func(p *Plan) { p.Baseline = &report.Report{} }, "Versus"},
		{"alternating and a recorded baseline", func(p *Plan) { p.VersusMode, p.Baseline = VersusAlternate, &report.Report{} }, "Versus"},
		{"alternating until decided", func(p *Plan) { p.VersusMode, p.UntilDecided = VersusAlternate, true }, "UntilDecided"},
		{"alternating and sharded", func(p *Plan) { p.VersusMode, p.Shard = VersusAlternate, Shard{Index: 0, Count: 2} }, "Versus"},
		{"an overload step", func(p *Plan) { p.Overload = &verdict.OverloadSettings{} }, "Versus"},
		{"a negative tolerance", func(p *Plan) { p.VersusTolerance = -0.1 }, "VersusTolerance"},
		{"sessions", func(p *Plan) {
			root := &fixtures.Session{ID: "chat", Turns: []fixtures.Turn{{Input: 50, Output: 3}}}
			fx, err := fixtures.FromSessions("chat", fixtures.Provenance{}, 0, []*fixtures.Session{root})
			require.NoError(t, err)
			p.Fixture = fx
		}, "Versus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gatePlan(t, vllmsim.Config{})
			p.Versus = base
			c.edit(&p)
			_, err := Open(context.Background(), p)
			var se *SettingError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, c.field, se.Field, "%v", err)
		})
	}
}

// The ratio side by side against servers of known latency, at once and
// alternating: a paced server whose first token comes 150 ms after each
// request beside one whose comes after 100 ms reads ×1.5, and its
// interval holds it; each side's rate and TTFT are its server's.
func TestSideBySideRatioAgainstKnownServers(t *testing.T) {
	for _, mode := range []string{VersusTogether, VersusAlternate} {
		synctest.Test(t, func(t *testing.T) {
			p := DefaultPlan()
			p.Target = virtualSimTarget(pacedConfig(150*time.Millisecond, 2*time.Millisecond, vllmsim.Faults{}))
			p.Versus = virtualSimTarget(pacedConfig(100*time.Millisecond, 2*time.Millisecond, vllmsim.Faults{}))
			p.Fixture, p.Rates, p.Arrival = plantest.MustFixture(t, "fixed:8:20"), []float64{20}, plantest.MustArrival(t, "constant")
			p.Duration, p.Warmup, p.VersusMode = 12*time.Second, time.Second, mode
			if mode == VersusAlternate {
				p.VersusBlock = 6 * time.Second
			}
			p.SLOs = plantest.MustSLOs(t, "ttft.p90<=1s")
			rep, err := Measure(context.Background(), p)
			require.NoError(t, err)
			st, base := rep.Steps[0], rep.Versus.Steps[0]
			require.Len(t, st.Versus, 1)
			c := st.Versus[0]
			t.Logf("%s: %s", mode, render.VersusLine(st.Versus))
			require.NotNil(t, c.RatioCI95)
			assert.InDelta(t, 1.5, c.Ratio, 0.05, mode)
			assert.LessOrEqual(t, c.RatioCI95[0], 1.5+0.03, mode)
			assert.GreaterOrEqual(t, c.RatioCI95[1], 1.5-0.03, mode)
			assert.True(t, c.Regressed, "%s: ×1.5 against a 5%% tolerance", mode)
			assert.Equal(t, report.VerdictFail, st.Verdict, mode)
			// Each side's own figures, against its server's known timing:
			// a constant 20 req/s over the whole window, TTFT 150 and 100 ms.
			assert.InDelta(t, 20, st.RateAchieved, 0.5, mode)
			assert.Equal(t, 240, st.Requests.Scheduled, mode)
			assert.InDelta(t, 150, st.TTFT.P50, 10, mode)
			assert.InDelta(t, 100, base.TTFT.P50, 10, mode)
			assert.Equal(t, st.Requests.Scheduled, base.Requests.Scheduled, mode)
		})
	}
}
