package render

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// kneeChart draws, against each step's achieved rate, the percentiles the
// SLOs gate, one panel per metric (TTFT in seconds and TPOT in
// milliseconds cannot share an axis), each with its SLO limits as dashed
// lines in its curve's colour. A run without latency SLOs shows TTFT
// p50/p95/p99 and ITL p99; a variant sweep each variant's TTFT p95 and
// ITL p99.
func kneeChart(r *report.Report) (template.HTML, string) {
	xLabel := "achieved rate (req/s)"
	if hasSessions(r) {
		xLabel = "achieved rate (sessions/s)" // a session replay's rates count sessions
	}
	panels := gatedPanels(r)
	maxX, points := 0.0, 0
	for _, pn := range panels {
		for _, c := range pn.series {
			for _, pt := range c.pts {
				maxX, points = math.Max(maxX, pt.X), points+1
			}
		}
	}
	if points == 0 {
		return "", "No step has latency samples to chart."
	}
	maxX = math.Max(maxX*1.05, 0.1)
	plots := make([]*plot.Plot, 0, len(panels))
	for _, pn := range panels {
		p, err := pn.plot(maxX)
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		if p != nil {
			plots = append(plots, p)
		}
	}
	plots[len(plots)-1].X.Label.Text = xLabel
	return drawSVG(kneeAxisHeight+kneePanelHeight*vg.Length(len(plots)), plots...)
}

// kneePanel is one panel of the latency-against-rate chart: its curves
// and the SLO limits drawn over them.
type kneePanel struct {
	yLabel string
	series []namedXYs
	limits []report.SLOSpec
}

// plot draws the panel over [0, maxX]; nil when it has no point to draw.
// A limit takes the colour of the curve it bounds, dashed.
func (pn kneePanel) plot(maxX float64) (*plot.Plot, error) {
	p := newPlot()
	p.Y.Label.Text = "latency (ms)"
	if pn.yLabel != "" {
		p.Y.Label.Text = pn.yLabel
	}
	p.X.Min, p.X.Max, p.Y.Min = 0, maxX, 0
	p.Add(plotter.NewGrid())
	drawn := 0
	for i, c := range pn.series {
		if len(c.pts) == 0 {
			continue
		}
		pts := c.pts
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(c.name, line, points)
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	for i, s := range pn.limits {
		limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: s.LimitMs}, {X: maxX, Y: s.LimitMs}})
		if err != nil {
			return nil, err
		}
		limit.Color = plotutil.Color(i)
		if len(pn.limits) != len(pn.series) {
			limit.Color = plotutil.Color(len(pn.series) + i) // limits not one to a curve
		}
		limit.Dashes = []vg.Length{limitDashLength, limitDashLength / 2}
		p.Add(limit)
		p.Legend.Add("limit "+sloText(s), limit)
	}
	return p, nil
}

// gatedPanels are the panels of a run's gated percentiles: one per metric
// an SLO bounds, in the SLOs' order, each with one curve per gated
// percentile (and per server variant, in a variant sweep or a tuning
// session) and its limit. Without latency SLOs, the usual TTFT and ITL
// percentiles, with no limit.
func gatedPanels(r *report.Report) []kneePanel {
	groups := stepGroups(r)
	var panels []kneePanel
	index := map[string]int{}
	for _, s := range latencySLOs(r.SLO) {
		i, ok := index[s.Metric]
		if !ok {
			i = len(panels)
			index[s.Metric] = i
			panels = append(panels, kneePanel{yLabel: strings.ToUpper(s.Metric) + " (ms)"})
		}
		pn := &panels[i]
		for _, g := range groups {
			pts := stepPoints(g.steps, report.Metric(s.Metric), s.Percentile)
			if len(g.steps) == 0 {
				pts = curvePoints(g.curve, report.Metric(s.Metric), s.Percentile)
			}
			pn.series = append(pn.series, namedXYs{strings.TrimSpace(seriesName(s.Metric, s.Percentile) + " " + g.name), pts})
		}
		pn.limits = append(pn.limits, s)
	}
	if len(panels) > 0 {
		return panels
	}
	if len(r.Variants) > 0 {
		return []kneePanel{{series: variantSeries(r.Variants)}}
	}
	pn := kneePanel{}
	for _, c := range []struct {
		metric report.Metric
		p      float64
	}{{report.MetricTTFT, 50}, {report.MetricTTFT, 95}, {report.MetricTTFT, 99}, {report.MetricITL, 99}} {
		pn.series = append(pn.series, namedXYs{seriesName(string(c.metric), c.p), stepPoints(r.Steps, c.metric, c.p)})
	}
	return []kneePanel{pn}
}

// stepGroup is the steps of one curve: a server variant's, or all of a
// run's (name "").
type stepGroup struct {
	name  string
	steps []report.StepReport
	curve []report.CurvePoint // a variant's, for a report whose steps do not name it
}

// stepGroups splits a variant sweep's or tuning session's steps by their
// variant, which prefixes each step's name; any other run is one group.
func stepGroups(r *report.Report) []stepGroup {
	if len(r.Variants) == 0 {
		return []stepGroup{{steps: r.Steps}}
	}
	groups := make([]stepGroup, 0, len(r.Variants))
	for _, v := range r.Variants {
		g := stepGroup{name: v.Variant, curve: v.Curve}
		for i := range r.Steps {
			if strings.HasPrefix(r.Steps[i].Name, v.Variant+" ") {
				g.steps = append(g.steps, r.Steps[i])
			}
		}
		groups = append(groups, g)
	}
	return groups
}

// latencySLOs are the SLOs with a latency limit to draw.
func latencySLOs(slos []report.SLOSpec) []report.SLOSpec {
	var out []report.SLOSpec
	for _, s := range slos {
		if s.Metric != string(report.MetricErrorRate) && finite(s.LimitMs) && s.LimitMs > 0 {
			out = append(out, s)
		}
	}
	return out
}

func seriesName(metric string, p float64) string {
	return fmt.Sprintf("%s p%g", strings.ToUpper(metric), p)
}

// stepPoints is one point per step that has the percentile: its achieved
// rate and the percentile in ms.
func stepPoints(steps []report.StepReport, m report.Metric, p float64) plotter.XYs {
	var pts plotter.XYs
	for i := range steps {
		s := &steps[i]
		if v, ok := stepPercentile(s, m, p); ok && finite(v) && finite(s.RateAchieved) {
			pts = append(pts, plotter.XY{X: s.RateAchieved, Y: v})
		}
	}
	return pts
}

// curvePoints reads a percentile off a sweep's curve, which keeps TTFT p95
// and ITL p99 alone (against the asked rate).
func curvePoints(curve []report.CurvePoint, m report.Metric, p float64) plotter.XYs {
	var pts plotter.XYs
	for _, c := range curve {
		v := math.NaN()
		switch {
		case m == report.MetricTTFT && p == 95:
			v = c.TTFTP95Ms
		case m == report.MetricITL && p == 99:
			v = c.ITLP99Ms
		}
		if finite(v) && v > 0 && finite(c.Rate) {
			pts = append(pts, plotter.XY{X: c.Rate, Y: v})
		}
	}
	return pts
}

// stepPercentile is a step's percentile of a metric in ms: as its SLO
// judged it, else from its histogram, else from its summary.
func stepPercentile(s *report.StepReport, m report.Metric, p float64) (float64, bool) {
	for _, r := range s.SLO {
		if r.Metric == string(m) && r.Percentile == p && r.Samples > 0 {
			return r.ObservedMs, true
		}
	}
	if h := s.Histograms[m]; h != nil && h.Count() > 0 {
		return float64(h.Quantile(p)) / float64(time.Millisecond), true
	}
	sum, ok := summaryOf(s, m)
	if !ok || sum.Count == 0 {
		return 0, false
	}
	switch p {
	case 50:
		return sum.P50, true
	case 90:
		return sum.P90, true
	case 95:
		return sum.P95, true
	case 99:
		return sum.P99, true
	case 99.9:
		return sum.P999, true
	}
	return 0, false
}

func summaryOf(s *report.StepReport, m report.Metric) (stats.Summary, bool) {
	switch m {
	case report.MetricTTFT:
		return s.TTFT, true
	case report.MetricTTFTSend:
		return s.TTFTSend, true
	case report.MetricITL:
		return s.ITL, true
	case report.MetricTPOT:
		return s.TPOT, true
	case report.MetricE2EL:
		return s.E2EL, true
	}
	return stats.Summary{}, false
}

// namedXYs is one curve of the latency-against-rate chart.
type namedXYs struct {
	name string
	pts  plotter.XYs
}

func variantSeries(vs []report.Capacity) []namedXYs {
	var out []namedXYs
	for _, v := range vs {
		var ttft, itl plotter.XYs
		for _, p := range v.Curve {
			if finite(p.TTFTP95Ms) && p.TTFTP95Ms > 0 {
				ttft = append(ttft, plotter.XY{X: p.Rate, Y: p.TTFTP95Ms})
			}
			if finite(p.ITLP99Ms) && p.ITLP99Ms > 0 {
				itl = append(itl, plotter.XY{X: p.Rate, Y: p.ITLP99Ms})
			}
		}
		out = append(out, namedXYs{"TTFT p95 " + v.Variant, ttft}, namedXYs{"ITL p99 " + v.Variant, itl})
	}
	return out
}
