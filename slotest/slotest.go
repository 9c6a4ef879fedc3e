package slotest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/internal/outputs"
	"github.com/llmslo/llmslo/load"
	"github.com/llmslo/llmslo/load/render"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/verdict"
)

// Run measures the target at each of the config's rates, each step a
// subtest named like "rate=4" (so -run picks one), and fails a step whose
// SLO is violated or whose measurement cannot be trusted, with a message
// that says which and what to do. It returns the run's report.
//
// SLOTEST_TARGET, when set, overrides the target (sim, vllm or a URL), so
// one test file gates the simulator on a laptop and a real server in CI
// (vllm needs package slotest/vllmcontainer imported).
// SLOTEST_SHARD=I/N with SLOTEST_START_AT runs shard I of N of the
// schedule, for llmslo merge to join (docs/sharding.md).
// Under -short steps and warm-ups are a quarter as long, but a step stays
// long enough for its gated percentiles. Steps are shortened to fit the
// test's deadline, or the test fails before it starts when they
// cannot fit. The report goes to t.ArtifactDir() under -artifacts, or to
// SLOTEST_REPORT_DIR; a cancelled run still writes it, marked partial.
func Run(t *testing.T, opts ...Option) *report.Report {
	t.Helper()
	cfg := newConfig(opts...)
	if env := os.Getenv(EnvTarget); env != "" {
		cfg.target = env
	}
	if err := applyShardEnv(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.baselinePath != "" && Updating() && cfg.ForRecording() {
		t.Log("slotest: recording the baseline: each step runs its whole window (WithUntilDecided stops the runs compared with it)")
	}
	if testing.Short() {
		shorten(&cfg)
	}
	if err := fitRun(t, &cfg); err != nil {
		t.Fatal(err)
	}
	dir := shardDir(reportDir(t, cfg), cfg)
	if dir != "" && cfg.RequestsOut == "" {
		cfg.RequestsOut = filepath.Join(dir, load.RequestsFile)
	}
	plan, err := cfg.build()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.baselinePath != "" && Updating() {
		// Found before the load, not after it: the file is written at the end.
		if err := outputs.CheckWritable(cfg.baselinePath); err != nil {
			t.Fatalf("slotest: cannot record the baseline in %s: %v", cfg.baselinePath, err)
		}
	}
	s, err := load.Open(t.Context(), plan)
	if err != nil {
		err = load.NameSettings(err, optionNames)
		if errors.Is(err, load.ErrBaselineMismatch) && testing.Short() {
			err = fmt.Errorf("%w (-short shortens steps: record and compare the baseline both with -short or both without)", err)
		}
		t.Fatal(err)
	}
	if fx := s.Report().Fixture; fx != nil && fx.Clipped > 0 {
		t.Logf("slotest: %d of %d fixture requests clipped to fit the server's context length", fx.Clipped, fx.Requests)
	}
	logFit(t, s.Report().Fit)
	t.Cleanup(func() {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Errorf("slotest: close target: %v", err)
		}
	})
	t.Cleanup(func() {
		t.Helper()
		writeReports(t, s, dir)
	})
	if cfg.baselinePath != "" && Updating() {
		t.Cleanup(func() {
			t.Helper()
			if err := load.RecordBaseline(s.Report(), cfg.baselinePath); err != nil {
				t.Errorf("slotest: %v", err)
				return
			}
			t.Logf("slotest: baseline recorded in %s", cfg.baselinePath)
		})
	}
	for _, rate := range s.Rates() {
		t.Run(s.StepName(rate), func(t *testing.T) {
			t.Helper() // with Run a helper too, a failure points at the user's call of Run
			st, err := s.Step(t.Context(), rate)
			if st == nil {
				t.Fatalf("slotest: step did not run: %v", err)
			}
			for _, r := range st.Retried {
				t.Logf("slotest: %s: measured again after an attempt whose client was starved (%s)", st.Name, r)
			}
			if u := st.UntilDecided; u != nil {
				t.Logf("slotest: %s: %s", st.Name, u.Why)
			}
			CheckStep(t, st)
			if err != nil {
				t.Errorf("slotest: step cut short (%v); its report is marked partial", withRecordHint(err))
			}
		})
	}
	return s.Report()
}

// CheckStep logs a step's table and fails t when the step is not a pass,
// once for each reason (stepProblems): a hazard and an SLO violation give
// different messages.
func CheckStep(t testing.TB, st *report.StepReport) {
	t.Helper()
	table := stepTable(st)
	problems := stepProblems(st)
	if len(problems) == 0 {
		t.Log("\n" + table)
	}
	for _, p := range problems {
		t.Errorf("%s: %s:\n%s", st.Name, p, table)
	}
}

// stepProblems says, in a test's words, why a judged step is not a pass,
// from what the judgement wrote into it: its hazards when it could not be
// trusted; otherwise the overload gate's message, or the SLOs it broke,
// the server past its capacity and the regressions against its baseline.
// A pass has none.
func stepProblems(st *report.StepReport) []string {
	switch st.Verdict {
	case report.VerdictPass:
		return nil
	case report.VerdictInvalid:
		var kinds []string
		for _, h := range st.Hazards {
			kinds = append(kinds, h.Kind)
		}
		return []string{fmt.Sprintf("the measurement cannot be trusted (%s), so the SLOs were not judged", strings.Join(kinds, ", "))}
	}
	if g := st.OverloadGate; g != nil {
		return []string{g.Message}
	}
	var out, failed []string
	for _, r := range st.SLO {
		if !r.Pass {
			failed = append(failed, render.FailedSLO(r))
		}
	}
	if len(failed) > 0 {
		out = append(out, fmt.Sprintf("SLO violated (%s)", strings.Join(failed, ", ")))
	}
	if st.OverCapacity != nil {
		out = append(out, st.OverCapacity.Message)
	}
	if regs := verdict.Regressions(st.Baseline); len(regs) > 0 {
		out = append(out, "slower than its baseline: "+strings.Join(regs, "; "))
	}
	if len(out) == 0 { // a verdict that is not a pass always fails the test
		out = append(out, "verdict "+string(st.Verdict))
	}
	return out
}

// shorten divides steps and warm-ups by ShortDivisor, but keeps each step
// long enough for its gated percentiles at the lowest rate: a -short run
// that could only end in too_few_samples would save nothing.
func shorten(cfg *config) {
	d := cfg.Duration / ShortDivisor
	if need := minStepDuration(cfg); need > d {
		d = min(need, cfg.Duration)
	}
	cfg.Duration = cfg.WholeBlocks(d) // alternating side by side runs whole-second blocks
	cfg.Warmup /= ShortDivisor
}

// minStepDuration is how long a step at the config's lowest rate must run
// for every gated request percentile to rest on MinTailSamples observations,
// with 10% to spare for failures. ITL has many samples per request
// and is left out.
func minStepDuration(cfg *config) time.Duration {
	slos := cfg.SLOs
	th := cfg.Thresholds.Resolved()
	if len(cfg.Rates) == 0 || th.IsOff(verdict.HazardTooFewSamples) {
		return 0
	}
	need := 0.0
	for _, s := range slos {
		if s.Metric != report.MetricErrorRate && s.Metric != report.MetricITL {
			need = max(need, th.MinTailSamples/(1-s.Percentile/100))
		}
	}
	rate := slices.Min(cfg.Rates)
	return time.Duration(1.1 * need / rate * float64(time.Second))
}

// fitDeadline shortens steps so the run ends before the test's deadline,
// keeping a margin; it fails when even a short step cannot fit.
func fitDeadline(t *testing.T, cfg *config) error {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		return nil
	}
	shortened, err := fitBudget(time.Until(deadline), cfg)
	if shortened {
		t.Logf("slotest: steps shortened to %v (warm-up %v) to end before the test's deadline",
			cfg.Duration.Round(time.Millisecond), cfg.Warmup.Round(time.Millisecond))
	}
	return err
}

// fitBudget scales steps, warm-ups and drains by one factor so that they
// fit in 80% of left less 10s for start-up and reports.
func fitBudget(left time.Duration, cfg *config) (shortened bool, err error) {
	steps := max(len(cfg.Rates), 1)
	budget := time.Duration(float64(left)*0.8) - 10*time.Second
	drain := cfg.DrainBound()
	per := cfg.Warmup + cfg.Duration + drain
	if cfg.VersusMode == load.VersusAlternate {
		// Each side runs every block after its own warm-up, and drains it,
		// one server at a time; fewer blocks once scaled take less.
		n := time.Duration(max(len(cfg.VersusBlocks()), 2))
		per = 2 * (cfg.Duration + n*(cfg.Warmup+drain))
	}
	if per*time.Duration(steps) <= budget {
		return false, nil
	}
	scale := float64(budget) / float64(per*time.Duration(steps))
	if scale <= 0 || time.Duration(float64(cfg.Duration)*scale) < time.Second {
		return false, fmt.Errorf("slotest: %d steps of %v (+%v warm-up, up to %v drain) cannot fit in the %v left before the test's deadline: raise -timeout or use fewer rates",
			steps, cfg.Duration, cfg.Warmup, drain, left.Round(time.Second))
	}
	cfg.Duration = time.Duration(float64(cfg.Duration) * scale)
	if cfg.VersusMode == load.VersusAlternate { // whole-second blocks: rounded down
		cfg.Duration = cfg.WholeBlocks(max(cfg.Duration.Truncate(time.Second), 2*time.Second))
	}
	cfg.Warmup = time.Duration(float64(cfg.Warmup) * scale)
	cfg.DrainTimeout = time.Duration(float64(drain) * scale)
	return true, nil
}

// EnvReportDir names a directory for reports when -artifacts is not given.
const EnvReportDir = "SLOTEST_REPORT_DIR"

func reportDir(t *testing.T, cfg config) string {
	if cfg.reportDir != "" {
		return cfg.reportDir
	}
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return t.ArtifactDir()
	}
	if d := os.Getenv(EnvReportDir); d != "" {
		return filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	return ""
}

// writeReports writes the report (whole, or partial after a cancel) and
// the CI step summary, and closes the per-request records.
func writeReports(t *testing.T, s *load.Measurement, dir string) {
	t.Helper()
	closeRecords(t, s)
	if dir != "" {
		if path, err := render.WriteDir(s.Report(), dir); err != nil {
			t.Errorf("slotest: %v", err)
		} else {
			t.Logf("slotest: report written to %s", path)
		}
	}
	if err := render.AppendStepSummary(os.Getenv(render.EnvStepSummary), t.Name(), s.Report()); err != nil {
		t.Errorf("slotest: %s: %v", render.EnvStepSummary, err)
	}
}
