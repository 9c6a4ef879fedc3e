package load

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/internal/plantest"
	"github.com/llmslo/llmslo/internal/simtest"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
	"github.com/llmslo/llmslo/load/workload"
	"github.com/llmslo/llmslo/vllmsim"
)

// A missing baseline, and one without the step a run gates, are errors a
// face recognises (BaselineMissing) to say how its users record one.
func TestAMissingBaselineIsRecognised(t *testing.T) {
	_, err := ReadBaseline(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
	assert.ErrorContains(t, err, "no baseline at")
	assert.True(t, BaselineMissing(err))
	_, err = verdict.CompareBaseline(&report.Report{}, &report.StepReport{Name: "rate=4"}, true, 0.1)
	assert.True(t, BaselineMissing(err))
	assert.False(t, BaselineMissing(errors.New("connection refused")))
}

func TestRecordBaselineRefusesRunsThatCannotBeTrusted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Partial: true, Reason: "interrupt"}, path), "cut short")
	assert.ErrorContains(t, RecordBaseline(&report.Report{Verdict: report.VerdictInvalid}, path), "cannot be trusted")
	decided := &report.Report{Steps: []report.StepReport{{Name: "rate=6", DurationS: 23,
		UntilDecided: &report.UntilDecided{CapS: 30, Decided: true, AtS: 23}}}}
	assert.ErrorContains(t, RecordBaseline(decided, path),
		"step rate=6, stopped when decided at 23 s of its 30 s cap: a gate compared with it would compare only those seconds; record it without until-decided")
	assert.NoFileExists(t, path, "nothing refused is written")
	decided.Steps[0].UntilDecided.Decided, decided.Steps[0].DurationS = false, 30
	require.NoError(t, RecordBaseline(decided, path), "a step run until decided that reached its cap measured its whole window")
	require.NoError(t, RecordBaseline(&report.Report{Verdict: report.VerdictFail}, path))
	back, err := ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, report.VerdictFail, back.Verdict)
}

// countingSim is a simulator behind a proxy that counts the generation
// requests it passes on.
func countingSim(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	sim := simtest.Start(t, vllmsim.Config{Model: "m", ProfileName: "instant",
		Faults: vllmsim.Faults{PacedTTFT: 10 * time.Millisecond, PacedITL: time.Millisecond}})
	u, err := url.Parse(sim.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "completions") {
			sent.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &sent
}

// baselinePlan is a short gate: one constant-rate step of fixed:64:8.
func baselinePlan(t *testing.T, target string) Plan {
	p := DefaultPlan()
	p.Target, p.Fixture, p.Arrival = URLTarget{URL: target}, plantest.MustFixture(t, "fixed:64:8"), plantest.MustArrival(t, "constant")
	p.Rates, p.Duration, p.Warmup = []float64{10}, 500*time.Millisecond, 100*time.Millisecond
	p.SLOs = plantest.MustSLOs(t, "ttft.p50<=2s")
	p.Thresholds.Off = []string{"too_few_samples", "client_saturation", "not_steady"}
	p.BaselineTolerance = DefaultBaselineTolerance
	return p
}

// A baseline is a contract: a run that sends other requests, on another
// schedule, or is judged otherwise, is refused before its first request,
// naming what differs and both values; the same run is compared, paired.
func TestBaselineOfAnotherWorkloadIsRefusedBeforeAnyRequest(t *testing.T) {
	target, sent := countingSim(t)
	base, err := Measure(context.Background(), baselinePlan(t, target))
	require.NoError(t, err)
	require.NotNil(t, base.Run, "the report records what the run sent")
	path := filepath.Join(t.TempDir(), "base.json")
	require.NoError(t, RecordBaseline(base, path))
	recorded, err := ReadBaseline(path)
	require.NoError(t, err)

	cases := []struct {
		name   string
		change func(*Plan)
		want   []string
	}{
		{"fixture", func(p *Plan) { p.Fixture = plantest.MustFixture(t, "fixed:64:9") }, []string{"fixture fixed:64:8", "this run uses fixed:64:9"}},
		{"arrival", func(p *Plan) { p.Arrival = plantest.MustArrival(t, "poisson") }, []string{"arrival constant", "this run uses poisson"}},
		{"SLOs", func(p *Plan) { p.SLOs = plantest.MustSLOs(t, "ttft.p90<=2s") }, []string{"SLOs error_rate<=1%,ttft.p50<=2s, this run uses error_rate<=1%,ttft.p90<=2s"}},
		{"rates", func(p *Plan) { p.Rates = []float64{10, 20} }, []string{"steps rate=10, this run uses rate=10,rate=20"}},
		{"seed", func(p *Plan) { p.Seed = 2 }, []string{"seed 1, this run uses 2"}},
		{"API", func(p *Plan) { p.API = workload.APIChat }, []string{"API completions, this run uses chat"}},
		{"duration", func(p *Plan) { p.Duration = 2 * time.Second }, []string{"duration 500ms, this run uses 2s"}},
		{"warm-up", func(p *Plan) { p.Warmup = 0 }, []string{"warm-up 100ms, this run uses 0s"}},
		{"stopped when decided", func(p *Plan) {
			early := *recorded
			early.Steps = []report.StepReport{recorded.Steps[0]}
			early.Steps[0].UntilDecided = &report.UntilDecided{CapS: 0.5, Decided: true, AtS: 0.3}
			p.Baseline = &early
		}, []string{"the baseline has step rate=10, stopped when decided", "record it again (a recording runs whole windows)"}},
		{"model", func(p *Plan) {
			other := *recorded
			other.Target.Model = "llama"
			p.Baseline = &other
		}, []string{"model llama, this run uses m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := baselinePlan(t, target)
			p.Baseline = recorded
			tc.change(&p)
			before := sent.Load()
			rep, err := Measure(context.Background(), p)
			assert.Nil(t, rep, "refused before the first step")
			require.ErrorIs(t, err, ErrBaselineMismatch)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, before, sent.Load(), "no request was sent")
		})
	}

	p := baselinePlan(t, target)
	p.Baseline = recorded
	rep, err := Measure(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Steps[0].Baseline, "%+v", rep.Steps[0])
	for _, c := range rep.Steps[0].Baseline {
		assert.True(t, c.Paired, "the same run, checked: %+v", c)
	}
}

// A run with a step the baseline lacks is refused at the plan's check, not
// after its load ran: Measure returns no report, so the command exits 3.
func TestBaselineWithoutTheStepIsRefusedBeforeTheLoad(t *testing.T) {
	target, sent := countingSim(t)
	base := baselinePlan(t, target)
	base.Baseline = &report.Report{Seed: 1, Target: report.TargetInfo{Model: "m"}, Fixture: &fixtures.Info{Name: "fixed:64:8"},
		Run: base.runInfo(), SLO: base.sloSpecs(), Steps: []report.StepReport{{Name: "rate=10"}}}
	p := base
	p.Rates = []float64{9}
	rep, err := Measure(context.Background(), p)
	assert.Nil(t, rep)
	require.ErrorIs(t, err, ErrBaselineMismatch)
	assert.ErrorContains(t, err, "steps rate=10, this run uses rate=9")
	assert.Zero(t, sent.Load())
}

// A baseline recorded before llmslo recorded the run's settings cannot be
// checked, and says so rather than compare what it cannot vouch for.
func TestBaselineRecordedBeforeTheChecksIsRefusedClearly(t *testing.T) {
	target, sent := countingSim(t)
	p := baselinePlan(t, target)
	p.Baseline = &report.Report{Seed: 1, Fixture: &fixtures.Info{Name: "fixed:64:8"}, Steps: []report.StepReport{{Name: "rate=10"}}}
	rep, err := Measure(context.Background(), p)
	assert.Nil(t, rep)
	require.ErrorIs(t, err, ErrBaselineUnchecked)
	assert.ErrorContains(t, err, "recorded before llmslo recorded")
	assert.ErrorContains(t, err, "record it again")
	assert.Zero(t, sent.Load())
}

// A step run without the steps before it (a subtest picked by go test
// -run) starts its requests elsewhere in the fixture than the baseline's
// did: it is compared, but not paired.
func TestBaselineStepRunAloneIsNotPaired(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time step of seconds: the README's pass runs it")
	}
	target, _ := countingSim(t)
	p := baselinePlan(t, target)
	p.Rates = []float64{10, 20}
	base, err := Measure(context.Background(), p)
	require.NoError(t, err)
	p.Baseline = base
	pairedOf := func(rates ...float64) []bool {
		s, err := Open(context.Background(), p)
		require.NoError(t, err)
		defer s.Close()
		var out []bool
		for _, r := range rates {
			st, err := s.Step(context.Background(), r)
			require.NoError(t, err)
			require.NotEmpty(t, st.Baseline)
			out = append(out, st.Baseline[0].Paired)
		}
		return out
	}
	assert.Equal(t, []bool{false}, pairedOf(20), "rate=20 alone")
	assert.Equal(t, []bool{true, true}, pairedOf(10, 20), "both, in the baseline's order")
}
