package render

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/llmslo/llmslo/load/report"
)

// svgText is one <text> element of a chart: where it starts, its size and
// its words.
type svgText struct {
	x, y, sizePx float64
	text         string
}

var (
	svgTextRE    = regexp.MustCompile(`(?s)<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)
	svgViewBoxRE = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
)

// kneeSVG is the page's latency-against-rate chart, its width in points
// and its texts.
func kneeSVG(t *testing.T, r *report.Report) (svg string, width float64, texts []svgText) {
	t.Helper()
	page, note := kneeChart(r)
	require.Empty(t, note)
	svg = string(page)
	m := svgViewBoxRE.FindStringSubmatch(svg)
	require.NotNil(t, m, "the chart has a viewBox")
	width, _ = strconv.ParseFloat(m[1], 64)
	for _, m := range svgTextRE.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		size, _ := strconv.ParseFloat(m[3], 64)
		texts = append(texts, svgText{x, y, size, html.UnescapeString(m[4])})
	}
	return svg, width, texts
}

// tuneVariantsReport is a tuning session's report: each iteration's steps
// named after its variant, as the tuning loop names them.
func tuneVariantsReport() *report.Report {
	r := tuneSearchReport()
	var steps []report.StepReport
	for _, v := range []string{"#1 as given", "#2 --max-num-seqs 32"} {
		c := report.Capacity{Variant: v, PassRate: 10, FailRate: 12}
		for _, st := range sweepReport().Steps {
			c.Curve = append(c.Curve, report.CurvePoint{Rate: st.RateTarget, TTFTP95Ms: st.TTFT.P95, ITLP99Ms: st.ITL.P99, Verdict: st.Verdict})
			st.Name = v + " " + st.Name
			steps = append(steps, st)
		}
		r.Variants = append(r.Variants, c)
	}
	r.Steps = steps
	return r
}

// The chart draws each gated percentile and a limit line for each SLO,
// not TTFT p95 and ITL p99 against limits on other percentiles.
func TestKneeChartDrawsTheGatedMetrics(t *testing.T) {
	for name, tc := range map[string]struct {
		r    *report.Report
		want []string
	}{
		"sweep": {sweepReport(), []string{"TTFT p90", "TPOT p50"}},
		"tune": {tuneVariantsReport(), []string{"TTFT p90 #1 as given", "TTFT p90 #2 --max-num-seqs 32",
			"TPOT p50 #1 as given", "TPOT p50 #2 --max-num-seqs 32"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, texts := kneeSVG(t, tc.r)
			var words []string
			for _, tx := range texts {
				words = append(words, tx.text)
			}
			for _, w := range append(tc.want, "limit ttft.p90 ≤ 2000 ms", "limit tpot.p50 ≤ 19.0 ms") {
				assert.Contains(t, words, w)
			}
			for _, w := range words {
				assert.NotContains(t, w, "p95", "a percentile no SLO gates")
				assert.NotContains(t, w, "ITL", "a metric no SLO gates")
			}
		})
	}
}

// The gated percentile is read as the SLO judged it: TPOT p50 20.9 ms at
// the failing rate sits above its 19 ms limit.
func TestKneeChartPlotsTheJudgedValue(t *testing.T) {
	r := sweepReport()
	pts := stepPoints(r.Steps, report.MetricTPOT, 50)
	require.Len(t, pts, len(r.Steps))
	assert.Equal(t, 20.9, pts[4].Y)
	ttft := stepPoints(r.Steps, report.MetricTTFT, 90)
	assert.Equal(t, 330.0, ttft[4].Y)
}

// The rate axis has at least four labelled ticks at round values.
func TestKneeChartRateAxisHasRoundTicks(t *testing.T) {
	r := sweepReport()
	r.Steps = append(r.Steps, searchStep(25.5, 2400, 31, false)) // 25 req/s achieved: an axis to 26.25
	_, _, texts := kneeSVG(t, r)
	rows := map[float64][]string{} // tick labels by their line
	for _, tx := range texts {
		if _, err := strconv.ParseFloat(tx.text, 64); err == nil {
			rows[tx.y] = append(rows[tx.y], tx.text)
		}
	}
	best := 0
	for _, labels := range rows {
		best = max(best, len(labels))
	}
	assert.GreaterOrEqual(t, best, 4, "tick rows: %v", rows)
	for _, lo := range []float64{0} {
		for _, hi := range []float64{0.42, 1.05, 16.8, 26.25, 33.6, 2100, 98765} {
			ticks := niceTicks{}.Ticks(lo, hi)
			assert.GreaterOrEqual(t, len(ticks), 4, "[%g, %g]", lo, hi)
			assert.LessOrEqual(t, len(ticks), 8, "[%g, %g]", lo, hi)
			for _, tk := range ticks {
				assert.NotEmpty(t, tk.Label)
				assert.NotContains(t, tk.Label, "-0")
				assert.LessOrEqual(t, len(tk.Label), 6, "a round label: %q", tk.Label)
			}
		}
	}
}

// Every legend label is drawn whole and ends inside the chart.
func TestKneeChartLegendsAreNotCut(t *testing.T) {
	for name, r := range map[string]*report.Report{"sweep": sweepReport(), "tune": tuneVariantsReport()} {
		t.Run(name, func(t *testing.T) {
			_, width, texts := kneeSVG(t, r)
			style := newPlot().Legend.TextStyle
			seen := 0
			for _, tx := range texts {
				if !strings.HasPrefix(tx.text, "limit ") && !strings.Contains(tx.text, " p") {
					continue // an axis' words or ticks
				}
				seen++
				style.Font.Size = vg.Length(tx.sizePx)
				end := tx.x + float64(style.Width(tx.text))
				assert.LessOrEqual(t, end, width, "%q ends at %.1f pt in a chart %.1f pt wide", tx.text, end, width)
			}
			assert.Positive(t, seen)
		})
	}
}

// The tables fit a laptop's window: the tuning table wraps its cells, every
// wide table scrolls inside its own box, and headers may wrap.
func TestTablesWrapOrScrollInTheirBox(t *testing.T) {
	page := renderHTML(t, tuneSearchReport())
	contains(t, page, `.wide{max-width:100%;overflow-x:auto}`)
	contains(t, page, `table.wrap td{white-space:normal`)
	contains(t, page, `<div class="wide"><table class="wrap">`)
	matches(t, page, `th\{[^}]*white-space:normal`)
	contains(t, page, `td.name{white-space:normal`)
	contains(t, page, `<td class="name"><a href="#step-1">`)
	notContains(t, page, "<th>rate target</th>")
	notContains(t, page, "<th>iteration</th>")
	assert.Equal(t, strings.Count(page, "<table"), strings.Count(page, `<div class="wide"><table`)+strings.Count(page, "<h3>Errors</h3><table"),
		"every table but the small errors one scrolls in its own box")
}
