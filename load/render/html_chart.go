package render

import (
	"bytes"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmslo/llmslo/load/report"
)

// Chart sizes: wide enough to read on a laptop, small enough to print two
// to a page.
const (
	chartWidth      = 22 * vg.Centimeter
	legendWidth     = 6 * vg.Centimeter
	kneeHeight      = 9 * vg.Centimeter
	timelineHeight  = 11 * vg.Centimeter
	limitDashLength = 4 * vg.Millimeter
)

// kneeChart draws TTFT p50/p95/p99 and ITL p99 against achieved rate, one
// point per step with samples, and each latency SLO limit as a dashed line.
func kneeChart(r *report.Report) (template.HTML, string) {
	type curve struct {
		name string
		pick func(*report.StepReport) (float64, int64)
	}
	curves := []curve{
		{"TTFT p50", func(s *report.StepReport) (float64, int64) { return s.TTFT.P50, s.TTFT.Count }},
		{"TTFT p95", func(s *report.StepReport) (float64, int64) { return s.TTFT.P95, s.TTFT.Count }},
		{"TTFT p99", func(s *report.StepReport) (float64, int64) { return s.TTFT.P99, s.TTFT.Count }},
		{"ITL p99", func(s *report.StepReport) (float64, int64) { return s.ITL.P99, s.ITL.Count }},
	}
	p := newPlot()
	p.X.Label.Text = "achieved rate (req/s)"
	if hasSessions(r) {
		p.X.Label.Text = "achieved rate (sessions/s)" // a session replay's rates count sessions
	}
	p.Y.Label.Text = "latency (ms)"
	p.X.Min, p.Y.Min = 0, 0
	p.Add(plotter.NewGrid())
	maxX, drawn := 0.0, 0
	series := make([]namedXYs, 0, len(curves))
	for _, c := range curves {
		var pts plotter.XYs
		for j := range r.Steps {
			s := &r.Steps[j]
			v, n := c.pick(s)
			if n > 0 && finite(v) && finite(s.RateAchieved) {
				pts = append(pts, plotter.XY{X: s.RateAchieved, Y: v})
			}
		}
		series = append(series, namedXYs{c.name, pts})
	}
	if len(r.Variants) > 0 {
		// A variant sweep: one TTFT p95 and one ITL p99 curve per server
		// variant, against the asked rate, so the knees sit side by side.
		series = variantSeries(r.Variants)
	}
	for i, c := range series {
		pts := c.pts
		if len(pts) == 0 {
			continue
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(c.name, line, points)
		maxX, drawn = math.Max(maxX, pts[len(pts)-1].X), drawn+1
	}
	if drawn == 0 {
		return "", "No step has latency samples to chart."
	}
	maxX = math.Max(maxX*1.05, 0.1)
	for i, s := range r.SLO {
		if s.Metric == string(report.MetricErrorRate) || !finite(s.LimitMs) {
			continue
		}
		limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: s.LimitMs}, {X: maxX, Y: s.LimitMs}})
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		limit.Color = plotutil.Color(len(series) + i)
		limit.Dashes = []vg.Length{limitDashLength, limitDashLength / 2}
		p.Add(limit)
		p.Legend.Add("limit "+sloText(s), limit)
	}
	p.X.Max = maxX
	return drawSVG(kneeHeight, p)
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
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 2 * pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: legendWidth}
	canvases := plot.Align(rows, tiles, draw.New(c))
	for i, p := range plots {
		tile := canvases[i][0]
		p.Draw(tile)
		legend := tile
		legend.Min.X, legend.Max.X = tile.Max.X+2*pad, chartWidth-pad
		legends[i].Top, legends[i].Left = true, true
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

// newPlot returns a plot in the page's sans-serif face with plain tick
// labels ("2500", not "2500.00").
func newPlot() *plot.Plot {
	p := plot.New()
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Typeface, st.Font.Variant = sans.Typeface, sans.Variant
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	return p
}

// plainTicks are gonum's default ticks labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
		}
	}
	return ticks
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
