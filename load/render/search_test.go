package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// searchStep is one step of a sweep on TTFT p90 and TPOT p50.
func searchStep(rate, ttftP90, tpotP50 float64, pass bool) report.StepReport {
	v := report.VerdictPass
	if !pass {
		v = report.VerdictFail
	}
	n := int64(40 * rate)
	return report.StepReport{
		Name: fmt.Sprintf("rate=%g", rate), RateTarget: rate, RateAchieved: rate * 0.98, Arrival: "poisson", DurationS: 40, WarmupS: 5,
		Requests: report.RequestCounts{Scheduled: int(n), Sent: int(n), Completed: int(n), Good: int(n)},
		TTFT:     stats.Summary{Count: n, P50: ttftP90 / 2, P90: ttftP90, P95: ttftP90 * 1.2, P99: ttftP90 * 1.5},
		ITL:      stats.Summary{Count: 31 * n, P50: tpotP50, P99: tpotP50 * 4},
		TPOT:     stats.Summary{Count: n, P50: tpotP50, P90: tpotP50 * 1.1},
		Goodput:  1,
		SLO: []report.SLOResult{
			{Metric: "ttft", Percentile: 90, LimitMs: 2000, ObservedMs: ttftP90, CI95Ms: &[2]float64{ttftP90 * 0.9, ttftP90 * 1.1}, Samples: n, Conclusive: true, Pass: true},
			{Metric: "tpot", Percentile: 50, LimitMs: 19, ObservedMs: tpotP50, CI95Ms: &[2]float64{tpotP50 - 0.2, tpotP50 + 0.2}, Samples: n, Conclusive: true, Pass: pass},
			{Metric: "error_rate", MaxRate: 0.01, Samples: n, CI95: &[2]float64{0, 0.01}, Conclusive: true, Pass: true},
		},
		Verdict: v,
	}
}

// sweepReport is a sweep that found its knee between 10 and 12 req/s on
// TPOT p50, with TTFT p90 and TPOT p50 gated.
func sweepReport() *report.Report {
	return &report.Report{
		Version: report.Version,
		Target:  report.TargetInfo{Kind: "sim", URL: "sim://h100-llama3-8b", Model: "llama3-8b"},
		SLO: []report.SLOSpec{
			{Metric: "ttft", Percentile: 90, LimitMs: 2000},
			{Metric: "tpot", Percentile: 50, LimitMs: 19},
			{Metric: "error_rate", MaxRate: 0.01},
		},
		Steps: []report.StepReport{
			searchStep(4, 120, 12.1, true), searchStep(8, 180, 15.3, true), searchStep(16, 900, 26.4, false),
			searchStep(10, 240, 17.8, true), searchStep(12, 330, 20.9, false),
		},
		Verdict:  report.VerdictFail,
		Capacity: &report.Capacity{PassRate: 10, FailRate: 12, Precision: 1.0 / 6},
	}
}

// tuneSearchReport is sweepReport as a tuning session's final sweep, with
// long flags and reasons in its iterations.
func tuneSearchReport() *report.Report {
	r := sweepReport()
	long := []string{"--max-num-seqs", "16", "--max-num-batched-tokens", "8192", "--enable-chunked-prefill", "--gpu-memory-utilization", "0.92"}
	r.Tune = &report.Tune{Iterations: []report.TuneIteration{
		{Args: long, PassRate: 8, FailRate: 10, Binding: "max_num_seqs", Kept: true, Why: "the server's flags as given"},
		{Args: append(long, "--max-num-seqs", "32"), Change: "--max-num-seqs 32", PassRate: 10, FailRate: 12, Binding: "compute", Kept: true,
			Why: "moved the knee from [8, 10] to [10, 12] req/s, more than the bracket's width: the change is kept and the next binding constraint is read at the new knee"},
		{Args: append(long, "--max-num-seqs", "64"), Change: "--max-num-seqs 64", PassRate: 10, FailRate: 12, Binding: "compute", Kept: false,
			Why: "the knee did not move: TPOT p50 20.9 ms over its 19 ms limit at 12 req/s binds on compute, which more sequences cannot help"},
	}, Stop: "compute binds", Command: "vllm serve llama3-8b " + fmt.Sprint(long)}
	return r
}

// writeSample writes a page where LLMSLO_RENDER_DIR names a directory, to
// look at in a browser; it does nothing otherwise.
// writeSample writes r as a page a person can open: under
// LLMSLO_RENDER_DIR when set (to look at it in a browser), else in the
// test's temporary directory; either way the page must be written whole.
func writeSample(t *testing.T, name string, r *report.Report) {
	t.Helper()
	dir := os.Getenv("LLMSLO_RENDER_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	require.NoError(t, WriteHTMLFile(path, r))
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(page), "</html>", "%s is not a whole page", name)
}

// The sample pages (a sweep, a tuning session, variants, a sweep below its
// lowest rate) render without error; LLMSLO_RENDER_DIR keeps them to look
// at as a user would.
func TestSweepSamplesWrite(t *testing.T) {
	writeSample(t, "sweep.html", sweepReport())
	writeSample(t, "tune.html", tuneSearchReport())
	writeSample(t, "tunevariants.html", tuneVariantsReport())
	r := sweepReport()
	r.Capacity = &report.Capacity{FailRate: 4}
	writeSample(t, "below.html", r)
}

// A sweep that found its knee says so in every face, not "fail".
func TestSweepSaysWhatItFound(t *testing.T) {
	r := sweepReport()
	var term bytes.Buffer
	WriteSummary(&term, r)
	assert.Contains(t, term.String(), "verdict: knee found: 10 req/s meets every SLO; 12 req/s does not\n")
	assert.NotContains(t, term.String(), "verdict: fail")
	assert.Contains(t, Markdown("sweep", r), "### sweep: knee found: 10 req/s meets every SLO")
	page := renderHTML(t, r)
	contains(t, page, `<h1>llmslo report <span class="badge pass">KNEE FOUND</span>`)
	contains(t, page, "knee found: 10 req/s meets every SLO; 12 req/s does not")
	contains(t, page, "<title>llmslo: KNEE FOUND")
	assert.Equal(t, report.OutcomeKneeFound, r.SearchOutcome())
}

// A sweep whose lowest rate failed says that every rate failed, and names
// the lowest; never "passes at 0.00 req/s".
func TestSweepBelowTheLowestRate(t *testing.T) {
	r := sweepReport()
	r.Capacity = &report.Capacity{FailRate: 4}
	var term bytes.Buffer
	WriteSummary(&term, r)
	assert.Contains(t, term.String(), "verdict: below the lowest rate: fails at every rate tried, the lowest was 4 req/s\n")
	assert.Equal(t, "fails at every rate tried, the lowest was 4 req/s", CapacityText(r.Capacity, r.Steps))
	page := renderHTML(t, r)
	contains(t, page, `<h1>llmslo report <span class="badge fail">BELOW THE LOWEST RATE</span>`)
	contains(t, page, "<dd>fails at every rate tried, the lowest was 4 req/s</dd>")
	notContains(t, page, "passes at 0")
}

// Where the verdict says it all (every rate passed, a tuning session whose
// overload gate failed, a run cut short) there is no outcome, and the
// verdict stands.
func TestSearchOutcomeOnlyWhereTheVerdictMisleads(t *testing.T) {
	r := sweepReport()
	r.Tune = &report.Tune{OverloadGate: &report.OverloadGate{Pass: false}}
	assert.Empty(t, r.SearchOutcome())
	r = sweepReport()
	r.Partial = true
	assert.Empty(t, r.SearchOutcome())
	r = sweepReport()
	r.Verdict = report.VerdictInvalid
	var term bytes.Buffer
	WriteSummary(&term, r)
	assert.Contains(t, term.String(), "verdict: invalid\n")
}
