package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmslo/llmslo/fixtures"
	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
	"github.com/llmslo/llmslo/load/vllmapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// htmlTestReport is a two-step report with a hazard, a failed SLO, errors,
// a server without metrics and a growing queue's timeline.
func htmlTestReport() *report.Report {
	hit := 0.42
	timeline := func(n int, ttft func(int) float64) []report.Second {
		out := make([]report.Second, n)
		for i := range out {
			out[i] = report.Second{T: i, Sent: 4, Completed: 4, TTFTMeanMs: ttft(i), TTFTMaxMs: 1.5 * ttft(i), OutTokens: 400}
		}
		return out
	}
	return &report.Report{
		Version:   report.Version,
		StartedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Target:    report.TargetInfo{Kind: "url", URL: "http://127.0.0.1:8000", Model: "Qwen/Qwen2.5-0.5B-Instruct"},
		Fixture: &fixtures.Info{
			Name: "azure-conv-2023", Requests: 19366,
			InputTokens:           fixtures.Dist{Count: 19366, Mean: 1154.7, P50: 1020, P95: 4083},
			OutputTokens:          fixtures.Dist{Count: 19366, Mean: 211.1, P50: 129, P95: 451},
			ExpectedPrefixHitRate: 0.125,
		},
		Seed: 7,
		SLO: []report.SLOSpec{
			{Metric: "ttft", Percentile: 95, LimitMs: 500},
			{Metric: "itl", Percentile: 99, LimitMs: 250},
			{Metric: "error_rate", MaxRate: 0.01},
		},
		Verdict: report.VerdictInvalid,
		Steps: []report.StepReport{{
			Name: "rate=4", RateTarget: 4, RateAchieved: 3.87, Arrival: "poisson", DurationS: 60, WarmupS: 10,
			Requests: report.RequestCounts{Scheduled: 240, Sent: 240, Completed: 239, Failed: 1, Good: 235},
			Errors:   map[string]int{"http_5xx": 1},
			TTFT:     stats.Summary{Count: 239, P50: 76.7, P95: 324.4, P99: 482.5},
			ITL:      stats.Summary{Count: 50000, P50: 9.4, P99: 74.8},
			TPOT:     stats.Summary{Count: 239, P50: 11.7}, E2EL: stats.Summary{Count: 239, P50: 2400},
			Goodput: 235.0 / 240,
			Server: vllmapi.ServerStats{MetricsAvailable: true, PrefixCacheHitRate: &hit, MaxWaiting: 3,
				WaitingSlopePerS: 0.01, KVCacheUsageMax: 0.31, Preemptions: 0, Samples: 60},
			Client:   report.ClientStats{CPUUtilization: 0.12, SchedLatencyP99Ms: 0.25, GOMAXPROCS: 2},
			Timeline: timeline(60, func(int) float64 { return 80 }),
			SLO: []report.SLOResult{
				{Metric: "ttft", Percentile: 95, LimitMs: 500, ObservedMs: 324.4, CI95Ms: &[2]float64{290.1, 371.9}, Samples: 239, Conclusive: true, Pass: true},
				{Metric: "error_rate", MaxRate: 0.01, Observed: 1.0 / 240, Samples: 240, Conclusive: true, Pass: true},
			},
			Verdict: report.VerdictPass,
		}, {
			Name: "rate=8", RateTarget: 8, RateAchieved: 7.2, Arrival: "poisson", DurationS: 60, WarmupS: 10,
			Requests: report.RequestCounts{Scheduled: 480, Sent: 432, Completed: 400, Unfinished: 32, Dropped: 48},
			TTFT:     stats.Summary{Count: 400, P50: 900, P95: 4100, P99: 5200},
			ITL:      stats.Summary{Count: 80000, P50: 22, P99: 310},
			Server:   vllmapi.ServerStats{Error: "scrape http://127.0.0.1:8000/metrics: connection refused"},
			Timeline: timeline(60, func(s int) float64 { return 100 + 80*float64(s) }),
			SLO: []report.SLOResult{
				{Metric: "itl", Percentile: 99, LimitMs: 250, ObservedMs: 310, CI95Ms: &[2]float64{290, 330}, Samples: 80000, Conclusive: true, Pass: false},
			},
			Hazards: []report.Hazard{{Kind: "queue_growing", Message: "the waiting queue rose by 40 requests in the second half",
				Fix: "lower the rate below 7 req/s or lengthen the warm-up"}},
			Verdict: report.VerdictInvalid,
		}},
	}
}

func renderHTML(t *testing.T, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	return b.String()
}

// contains and notContains report the missing text without dumping the
// whole page.
func contains(t *testing.T, page, want string) {
	t.Helper()
	if !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
}

func notContains(t *testing.T, page, unwanted string) {
	t.Helper()
	if at := strings.Index(page, unwanted); at >= 0 {
		t.Errorf("page contains %q at %d: …%s…", unwanted, at, page[max(0, at-80):min(len(page), at+80)])
	}
}

func matches(t *testing.T, page, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(page) {
		t.Errorf("page lacks a match for %s", pattern)
	}
}

func TestWriteHTMLShowsVerdictStepsHazardsAndLimits(t *testing.T) {
	r := htmlTestReport()
	page := renderHTML(t, r)

	contains(t, page, `<span class="badge invalid">INVALID</span>`)
	for _, s := range r.Steps {
		contains(t, page, "Step "+s.Name)
		for _, h := range s.Hazards {
			contains(t, page, h.Message)
			contains(t, page, "Fix: "+h.Fix)
		}
	}
	contains(t, page, "ttft.p95 ≤ 500 ms")
	contains(t, page, "itl.p99 ≤ 250 ms")
	contains(t, page, "error_rate ≤ 1.00%")
	// The failed SLO, its interval and the inconclusive-free pass.
	matches(t, page, `<td>itl.p99</td><td>310 ms</td><td>\[290 ms, 330 ms\]</td><td>250 ms</td><td>80000</td><td class="result fail">FAIL</td>`)
	matches(t, page, `<td>ttft.p95</td><td>324 ms</td><td>\[290 ms, 372 ms\]</td><td>500 ms</td><td>239</td><td class="result pass">pass</td>`)
	// Fixture keys, server and client figures, errors by class.
	for _, want := range []string{"azure-conv-2023", "19366", "mean 1155, p50 1020, p95 4083", "mean 211, p50 129, p95 451",
		"12.50%", "42.00%", "31.00%", "http_5xx", "connection refused", "97.92%", "Qwen/Qwen2.5-0.5B-Instruct"} {
		contains(t, page, want)
	}
	// A step without samples for a metric shows a dash, never a zero.
	contains(t, page, "<td>–</td>")
	// One knee chart and one timeline per step, each drawing the limit lines.
	assert.Equal(t, 1+len(r.Steps), strings.Count(page, "<svg"))
	contains(t, page, "limit ttft.p95 ≤ 500 ms")
	contains(t, page, "limit itl.p99 ≤ 250 ms")
	notContains(t, page, "<?xml")
	notContains(t, page, "chart unavailable")
	notContains(t, page, "Hazards not judged")

	// A hazard turned off is named where the step's verdict is read.
	r.Steps[0].HazardsOff = []string{"not_steady", "warm_cache"}
	contains(t, renderHTML(t, r), "Hazards not judged, turned off by the run: not_steady, warm_cache.")
}

func TestWriteHTMLEscapesReportStrings(t *testing.T) {
	r := htmlTestReport()
	r.Target.Model = `<script>alert("model")</script>`
	r.Steps[0].Name = `<img src=x onerror=alert(1)>`
	r.Steps[1].Hazards[0].Fix = `</div><script>alert("fix")</script>`
	r.Steps[0].Errors = map[string]int{"<b>class</b>": 2}
	page := renderHTML(t, r)

	notContains(t, page, "<script>")
	notContains(t, page, "<img")
	notContains(t, page, "<b>class</b>")
	contains(t, page, "&lt;script&gt;alert(&#34;model&#34;)&lt;/script&gt;")
	// The step name reaches the chart's title too; the SVG writer escapes it.
	contains(t, page, "step &lt;img src=x onerror=alert(1)&gt;")
}

func TestWriteHTMLEmptyReport(t *testing.T) {
	page := renderHTML(t, &report.Report{})
	contains(t, page, "NO VERDICT")
	contains(t, page, "No steps were measured.")
	notContains(t, page, "<svg")
	assert.True(t, strings.HasSuffix(page, "</html>\n"))

	var b bytes.Buffer
	assert.Error(t, WriteHTML(&b, nil))
}

func TestWriteHTMLStepsWithoutSamples(t *testing.T) {
	r := htmlTestReport()
	for i := range r.Steps {
		s := &r.Steps[i]
		s.TTFT, s.ITL, s.TPOT, s.E2EL = stats.Summary{}, stats.Summary{}, stats.Summary{}, stats.Summary{}
		s.Timeline, s.SLO = nil, nil
	}
	// A step whose requests all failed: seconds with sends but no completions.
	r.Steps[1].Timeline = []report.Second{{T: 0, Sent: 8, Failed: 8}, {T: 1, Sent: 8, Failed: 8}}
	page := renderHTML(t, r)

	contains(t, page, "No step has latency samples to chart.")
	contains(t, page, "No per-second timeline was recorded for this step.")
	assert.Equal(t, 1, strings.Count(page, "<svg"), "only the all-failed step's timeline is drawn")
	notContains(t, page, "chart unavailable")
}

func TestWriteHTMLMarksPartialRuns(t *testing.T) {
	r := htmlTestReport()
	r.Partial, r.Reason = true, "interrupted by signal"
	r.Steps[1].Partial = true
	page := renderHTML(t, r)

	contains(t, page, `<span class="badge partial">PARTIAL</span>`)
	contains(t, page, "Partial run: interrupted by signal.")
	contains(t, page, "INVALID (partial)</td>")
	contains(t, page, "INVALID (partial) — Qwen")

	whole := renderHTML(t, htmlTestReport())
	notContains(t, whole, "PARTIAL")
	notContains(t, whole, "Partial run")
}

func TestWriteHTMLFixtureWithoutLengths(t *testing.T) {
	r := htmlTestReport()
	r.Fixture = &fixtures.Info{Name: "short", Requests: 3}
	page := renderHTML(t, r)
	contains(t, page, "<dt>fixture</dt><dd>short</dd>")
	notContains(t, page, "input tokens")
	notContains(t, page, "expected prefix hit rate")
}

// TestWriteHTMLSampleReport renders a report a run wrote and checks that the
// page is well-formed enough for an XML parser to walk every SVG.
func TestWriteHTMLSampleReport(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "report_sample.json"))
	require.NoError(t, err)
	var r report.Report
	require.NoError(t, json.Unmarshal(raw, &r))
	require.NotEmpty(t, r.Steps)
	page := renderHTML(t, &r)

	text := html.UnescapeString(page)
	contains(t, page, `<span class="badge `+verdictClass(r.Verdict)+`">`+verdictText(r.Verdict)+`</span>`)
	for _, s := range r.Steps {
		contains(t, text, "Step "+s.Name)
		for _, h := range s.Hazards {
			contains(t, text, h.Message)
			contains(t, text, "Fix: "+h.Fix)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1)
	assert.Len(t, svgs, 1+len(r.Steps))
	for _, svg := range svgs {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err != nil {
				assert.Equal(t, "EOF", err.Error(), "SVG is not well-formed XML")
				break
			}
		}
	}
	if out := os.Getenv("LLMSLO_HTML_OUT"); out != "" {
		require.NoError(t, os.WriteFile(out, []byte(page), 0o644))
	}
}

func BenchmarkWriteHTML(b *testing.B) {
	r := htmlTestReport()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteHTML(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func ExampleWriteHTML() {
	r := &report.Report{
		Target:  report.TargetInfo{Kind: "url", URL: "http://127.0.0.1:8000", Model: "my-model"},
		SLO:     []report.SLOSpec{{Metric: "ttft", Percentile: 95, LimitMs: 500}},
		Verdict: report.VerdictPass,
		Steps: []report.StepReport{{
			Name: "rate=2", RateTarget: 2, RateAchieved: 2.01,
			TTFT:     stats.Summary{Count: 1200, P50: 80, P95: 210, P99: 320},
			ITL:      stats.Summary{Count: 90000, P50: 12, P99: 40},
			Timeline: []report.Second{{T: 0, Sent: 2, Completed: 2, TTFTMeanMs: 90, TTFTMaxMs: 120}},
			Verdict:  report.VerdictPass,
		}},
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		fmt.Println(err)
		return
	}
	title := regexp.MustCompile(`<title>(.*)</title>`).FindStringSubmatch(page.String())[1]
	fmt.Println(title)
	fmt.Println("charts:", strings.Count(page.String(), "<svg"))
	// Output:
	// llmslo: PASS — my-model
	// charts: 2
}

// TestWriteHTMLDegenerateRanges draws charts whose data span no range at
// all: one step, every latency zero, one idle second, no SLOs.
func TestWriteHTMLDegenerateRanges(t *testing.T) {
	r := &report.Report{Verdict: report.VerdictPass, Steps: []report.StepReport{{
		Name: "rate=1", TTFT: stats.Summary{Count: 1}, ITL: stats.Summary{Count: 1},
		Timeline: []report.Second{{T: 0}}, Verdict: report.VerdictPass,
	}}}
	page := renderHTML(t, r)
	assert.Equal(t, 2, strings.Count(page, "<svg"))
	notContains(t, page, "chart unavailable")
	notContains(t, page, "NaN")
}

func TestWriteHTMLShowsBaselineChecks(t *testing.T) {
	r := &report.Report{Verdict: report.VerdictFail, Steps: []report.StepReport{{Name: "rate=4", Verdict: report.VerdictFail,
		Baseline: []report.BaselineCheck{{Metric: "ttft", Percentile: 95, BaselineMs: 100, ObservedMs: 140,
			CI95Ms: &[2]float64{120, 160}, Tolerance: 0.1, Regressed: true}}}}}
	var b strings.Builder
	require.NoError(t, WriteHTML(&b, r))
	page := b.String()
	assert.Contains(t, page, "Against the baseline")
	assert.Contains(t, page, "ttft.p95")
	assert.Contains(t, page, "[120.0, 160.0] ms")
	assert.Contains(t, page, "&#43;10%")
	assert.Contains(t, page, "REGRESSED")
}

// A variant sweep draws one TTFT p95 and one ITL p99 curve per variant and
// names each variant's knee and binding.
func TestWriteHTMLVariants(t *testing.T) {
	r := htmlTestReport()
	curve := func(scale float64) []report.CurvePoint {
		return []report.CurvePoint{{Rate: 2, TTFTP95Ms: 100 * scale, ITLP99Ms: 20 * scale, Verdict: report.VerdictPass},
			{Rate: 4, TTFTP95Ms: 900 * scale, ITLP99Ms: 60 * scale, Verdict: report.VerdictFail}}
	}
	r.Variants = []report.Capacity{
		{Variant: "--max-num-seqs 2", PassRate: 2, FailRate: 4, Curve: curve(1), Binding: &report.Binding{Kind: "max_num_seqs", Flag: "--max-num-seqs"}},
		{Variant: "--max-num-seqs 4", PassRate: 4, Curve: curve(0.5)},
	}
	page := renderHTML(t, r)
	for _, want := range []string{"TTFT p95 --max-num-seqs 2", "ITL p99 --max-num-seqs 4", "variant <code>--max-num-seqs 2</code>", "<b>max_num_seqs</b>"} {
		contains(t, page, want)
	}
}
