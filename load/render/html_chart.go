package render

import (
	"bytes"
	"html/template"
	"math"
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
	kneePanelHeight = 7 * vg.Centimeter // one metric's panel
	kneeAxisHeight  = 1 * vg.Centimeter // the shared rate axis' label
	timelineHeight  = 11 * vg.Centimeter
	limitDashLength = 4 * vg.Millimeter
)

// timelineChart draws a step's seconds: TTFT mean and max of the requests
// that completed in each second above, sends and completions below; with
// base, the base server's step run side by side, its mean TTFT on the same
// seconds.
func timelineChart(s, base *report.StepReport) (template.HTML, string) {
	if len(s.Timeline) == 0 {
		return "", "No per-second timeline was recorded for this step."
	}
	ttft := newPlot()
	ttft.Title.Text = "step " + s.Name
	ttft.Y.Label.Text = "TTFT (ms)"
	ttft.Y.Min = 0
	ttft.Add(plotter.NewGrid())
	mean, peak := ttftSeconds(s)
	lines := []struct {
		name string
		pts  plotter.XYs
	}{{"mean TTFT", mean}, {"max TTFT", peak}}
	if base != nil {
		baseMean, _ := ttftSeconds(base)
		lines = append(lines, struct {
			name string
			pts  plotter.XYs
		}{"the base server's mean TTFT", baseMean})
	}
	for i, series := range lines {
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
	step := niceStep((hi - lo) / 7)
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

// ttftSeconds are a step's mean and max TTFT in each second a request
// completed.
func ttftSeconds(s *report.StepReport) (mean, peak plotter.XYs) {
	for _, sec := range s.Timeline {
		if sec.Completed == 0 || !finite(sec.TTFTMeanMs) || !finite(sec.TTFTMaxMs) {
			continue // no request completed that second: no TTFT to show
		}
		x := float64(sec.T) + 0.5
		mean = append(mean, plotter.XY{X: x, Y: sec.TTFTMeanMs})
		peak = append(peak, plotter.XY{X: x, Y: sec.TTFTMaxMs})
	}
	return mean, peak
}
