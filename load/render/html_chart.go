package render

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmslo/llmslo/load/report"
	"github.com/llmslo/llmslo/load/stats"
)

// Chart sizes: wide enough to read on a laptop, small enough to print two
// to a page.
const (
	chartWidth      = 22 * vg.Centimeter
	kneePanelHeight = 7 * vg.Centimeter // one metric's panel
	kneeAxisHeight  = 1 * vg.Centimeter // the shared rate axis' label
	timelineHeight  = 11 * vg.Centimeter
	limitDashLength = 4 * vg.Millimeter
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
	maxX := 0.0
	for _, pn := range panels {
		for _, c := range pn.series {
			for _, pt := range c.pts {
				maxX = math.Max(maxX, pt.X)
			}
		}
	}
	if maxX == 0 {
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
			pn.series = append(pn.series, namedXYs{strings.TrimSpace(seriesName(s.Metric, s.Percentile) + " " + g.name),
				stepPoints(g.steps, report.Metric(s.Metric), s.Percentile)})
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
}

// stepGroups splits a variant sweep's or tuning session's steps by their
// variant, which prefixes each step's name; any other run is one group.
func stepGroups(r *report.Report) []stepGroup {
	if len(r.Variants) == 0 {
		return []stepGroup{{steps: r.Steps}}
	}
	groups := make([]stepGroup, 0, len(r.Variants))
	for _, v := range r.Variants {
		g := stepGroup{name: v.Variant}
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

// timelineChart draws a step's seconds: TTFT mean and max of the requests
// that completed in each second above, sends and completions below.
func timelineChart(s *report.StepReport) (template.HTML, string) {
	if len(s.Timeline) == 0 {
		return "", "No per-second timeline was recorded for this step."
	}
	ttft := newPlot()
	ttft.Title.Text = "step " + s.Name
	ttft.Y.Label.Text = "TTFT (ms)"
	ttft.Y.Min = 0
	ttft.Add(plotter.NewGrid())
	var mean, peak plotter.XYs
	for _, sec := range s.Timeline {
		if sec.Completed == 0 || !finite(sec.TTFTMeanMs) || !finite(sec.TTFTMaxMs) {
			continue // no request completed that second: no TTFT to show
		}
		x := float64(sec.T) + 0.5
		mean = append(mean, plotter.XY{X: x, Y: sec.TTFTMeanMs})
		peak = append(peak, plotter.XY{X: x, Y: sec.TTFTMaxMs})
	}
	for i, series := range []struct {
		name string
		pts  plotter.XYs
	}{{"mean TTFT", mean}, {"max TTFT", peak}} {
		if len(series.pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(series.pts)
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		line.Color, points.Color, points.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		ttft.Add(line, points)
		ttft.Legend.Add(series.name, line, points)
	}
	counts := newPlot()
	counts.X.Label.Text = "second of the measured window"
	counts.Y.Label.Text = "requests per second"
	counts.Y.Min = 0
	counts.Add(plotter.NewGrid())
	sent, done, failed := make(plotter.XYs, 0, len(s.Timeline)+1), make(plotter.XYs, 0, len(s.Timeline)+1), plotter.XYs(nil)
	anyFailed := false
	for _, sec := range s.Timeline {
		x := float64(sec.T)
		sent = append(sent, plotter.XY{X: x, Y: float64(sec.Sent)})
		done = append(done, plotter.XY{X: x, Y: float64(sec.Completed)})
		failed = append(failed, plotter.XY{X: x, Y: float64(sec.Failed)})
		anyFailed = anyFailed || sec.Failed > 0
	}
	// Repeat the last second so the step line covers it to its end.
	end := float64(s.Timeline[len(s.Timeline)-1].T + 1)
	for _, xs := range []*plotter.XYs{&sent, &done, &failed} {
		*xs = append(*xs, plotter.XY{X: end, Y: (*xs)[len(*xs)-1].Y})
	}
	series := []struct {
		name string
		pts  plotter.XYs
	}{{"sent", sent}, {"completed", done}}
	if anyFailed {
		series = append(series, struct {
			name string
			pts  plotter.XYs
		}{"failed", failed})
	}
	for i, sr := range series {
		line, err := plotter.NewLine(sr.pts)
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		line.StepStyle = plotter.PostStep
		line.Color = plotutil.Color(i + 2)
		line.Width = vg.Points(1.5)
		counts.Add(line)
		counts.Legend.Add(sr.name, line)
	}
	// Both panels share the x range so a second lines up across them.
	ttft.X.Min, ttft.X.Max, counts.X.Min, counts.X.Max = 0, end, 0, end
	return drawSVG(timelineHeight, ttft, counts)
}

// drawSVG draws plots stacked in one column, each with its legend to its
// right where it cannot hide a curve, and returns the SVG element without
// its XML prolog, ready to inline in HTML.
func drawSVG(height vg.Length, plots ...*plot.Plot) (template.HTML, string) {
	c := vgsvg.New(chartWidth, height)
	rows := make([][]*plot.Plot, len(plots))
	legends := make([]plot.Legend, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
		legends[i], p.Legend = p.Legend, plot.NewLegend()
	}
	pad := 2 * vg.Millimeter
	// The legends' column is as wide as their longest label, so none is
	// cut at the chart's edge.
	legendWidth := vg.Length(0)
	for i := range legends {
		r := legends[i].Rectangle(draw.Canvas{})
		legendWidth = max(legendWidth, r.Max.X-r.Min.X)
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 2 * pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: legendWidth + 4*pad}
	canvases := plot.Align(rows, tiles, draw.New(c))
	for i, p := range plots {
		tile := canvases[i][0]
		p.Draw(tile)
		legend := tile
		legend.Min.X, legend.Max.X = tile.Max.X+2*pad, chartWidth-pad
		legends[i].Top, legends[i].Left = true, true
		legends[i].Padding = vg.Millimeter
		legends[i].Draw(legend)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", "chart unavailable: " + err.Error()
	}
	// The plots measure text with Liberation Sans and name it in the SVG;
	// the fallbacks keep the look where that font is not installed.
	svg := strings.ReplaceAll(b.String(), "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	at := strings.Index(svg, "<svg")
	if at < 0 {
		return "", "chart unavailable: the SVG writer produced no <svg> element"
	}
	// The SVG's text was escaped by its writer, so it is safe to inline.
	return template.HTML(svg[at:]), ""
}

// newPlot returns a plot in the page's sans-serif face with round, plain
// tick labels ("2500", not "2500.00").
func newPlot() *plot.Plot {
	p := plot.New()
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = sans.Typeface, sans.Variant
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	return p
}

// niceTicks label every tick at a round step (1, 2, 2.5 or 5 times a
// power of ten) chosen for four to eight ticks, where gonum's default
// labels as few as two.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !finite(lo) || !finite(hi) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / 6)
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	return ticks
}

// niceStep is the least round step at or above raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

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
