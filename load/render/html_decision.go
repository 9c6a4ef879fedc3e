package render

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmslo/llmslo/load/report"
)

// decisionPanelHeight is one gated SLO's panel of the decision chart.
const decisionPanelHeight = 6 * vg.Centimeter

// The decision chart's colours: the interval in blue over a pale band,
// the limit and the floor in greys that cannot be taken for an outcome.
var (
	boundColor = color.RGBA{R: 47, G: 109, B: 179, A: 255}
	bandColor  = color.NRGBA{R: 47, G: 109, B: 179, A: 48} // not premultiplied: a pale blue
	limitColor = color.RGBA{R: 60, G: 60, B: 60, A: 255}
	floorColor = color.RGBA{R: 130, G: 130, B: 130, A: 255}
	passColor  = color.RGBA{R: 30, G: 125, B: 58, A: 255}
	failColor  = color.RGBA{R: 179, G: 38, B: 30, A: 255}
)

// decisionChart draws how a step run until decided came to its verdict:
// for each gated SLO, its anytime interval at every look narrowing
// against the limit, the floor before which no look may stop the step
// and the look that stopped it. A step run to its end has no such chart.
func decisionChart(s *report.StepReport) (template.HTML, string) {
	d := s.UntilDecided
	if d == nil {
		return "", ""
	}
	if len(d.Looks) == 0 || len(d.SLOs) == 0 {
		return "", "No look was made before the step ended."
	}
	plots := make([]*plot.Plot, 0, len(d.SLOs))
	for k, name := range d.SLOs {
		p, err := decisionPanel(d, k, gatedSLOOf(s.SLO, name))
		if err != nil {
			return "", "chart unavailable: " + err.Error()
		}
		plots = append(plots, p)
	}
	plots[0].Title.Text = "step " + s.Name + ": until decided"
	plots[len(plots)-1].X.Label.Text = "seconds into the measured window"
	return drawSVG(kneeAxisHeight+decisionPanelHeight*vg.Length(len(plots)), plots...)
}

// gatedSLO is what one panel needs of an SLO the looks bound.
type gatedSLO struct {
	yLabel    string
	scale     float64 // latency stays in ms; error_rate's fractions are drawn as %
	limit     float64 // in the panel's unit; NaN when the step's results lack it
	limitText string
}

// gatedSLOOf reads the limit of the SLO named as the looks name it
// ("ttft.p90", "error_rate") off the step's SLO results.
func gatedSLOOf(results []report.SLOResult, name string) gatedSLO {
	g := gatedSLO{yLabel: name + " (ms)", scale: 1, limit: math.NaN()}
	if name == string(report.MetricErrorRate) {
		g.yLabel, g.scale = "error rate (%)", 100
	}
	for _, r := range results {
		switch {
		case r.Metric == string(report.MetricErrorRate) && name == r.Metric:
			g.limit, g.limitText = r.MaxRate*g.scale, pctText(r.MaxRate)
		case r.Metric+".p"+strconv.FormatFloat(r.Percentile, 'f', -1, 64) == name:
			g.limit, g.limitText, g.yLabel = r.LimitMs, msText(r.LimitMs), seriesName(r.Metric, r.Percentile)+" (ms)"
		}
	}
	return g
}

// decisionPanel draws the k-th gated SLO's panel over [0, CapS].
func decisionPanel(d *report.UntilDecided, k int, g gatedSLO) (*plot.Plot, error) {
	p := newPlot()
	p.Y.Label.Text = g.yLabel
	p.Add(plotter.NewGrid())
	lo, hi, bands := intervalRuns(d.Looks, k, g.scale)
	for _, band := range bands {
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, err
		}
		poly.Color, poly.LineStyle.Width = bandColor, 0
		p.Add(poly)
	}
	for i, runs := range [][]plotter.XYs{hi, lo} {
		var legend *plotter.Line
		for _, run := range runs {
			line, err := plotter.NewLine(run)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = boundColor, vg.Points(1.5)
			if i == 1 {
				line.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)} // dotted: apart from the upper bound in the same blue
			}
			p.Add(line)
			legend = line
		}
		if legend != nil {
			p.Legend.Add([]string{"upper bound", "lower bound"}[i], legend)
		}
	}
	top := panelTop(lo, hi, g.limit)
	if finite(g.limit) {
		limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: g.limit}, {X: d.CapS, Y: g.limit}})
		if err != nil {
			return nil, err
		}
		limit.Color, limit.Dashes = limitColor, []vg.Length{limitDashLength, limitDashLength / 2}
		p.Add(limit)
		p.Legend.Add("limit "+g.limitText, limit)
	}
	if d.MinS > 0 {
		floor, err := vertical(d.MinS, top, floorColor, vg.Points(1))
		if err != nil {
			return nil, err
		}
		floor.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(floor)
		p.Legend.Add("floor "+fmtS(d.MinS), floor)
	}
	if d.Decided {
		c := outcomeColor(d.Outcome)
		marker, err := vertical(d.AtS, top, c, vg.Points(2))
		if err != nil {
			return nil, err
		}
		label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: d.AtS, Y: top}}, Labels: []string{d.Outcome}})
		if err != nil {
			return nil, err
		}
		st := &label.TextStyle[0]
		st.Font = p.Legend.TextStyle.Font // the page's sans-serif, not gonum's serif default
		st.Color, st.YAlign, st.XAlign = c, draw.YTop, draw.XLeft
		label.Offset = vg.Point{X: vg.Millimeter, Y: -vg.Millimeter}
		if d.AtS > 0.8*d.CapS {
			st.XAlign, label.Offset.X = draw.XRight, -vg.Millimeter // keep the word inside the panel
		}
		p.Add(marker, label)
		p.Legend.Add(fmt.Sprintf("%s at %s", d.Outcome, fmtS(d.AtS)), marker)
	}
	// Set last: Add widens the axes to every item's data.
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, math.Max(d.CapS, 1), 0, top
	return p, nil
}

// intervalRuns are the k-th SLO's lower and upper bounds over the looks
// and the band between them, each in runs of consecutive looks: a side
// left open at a look breaks its line there rather than be drawn as 0 or
// joined across the gap. A side closed at one look alone draws no line.
func intervalRuns(looks []report.Look, k int, scale float64) (lo, hi, bands []plotter.XYs) {
	var runLo, runHi, bandLo, bandHi plotter.XYs
	keep := func(runs []plotter.XYs, run plotter.XYs) []plotter.XYs {
		if len(run) > 1 {
			runs = append(runs, run)
		}
		return runs
	}
	for _, l := range append(looks[:len(looks):len(looks)], report.Look{}) { // a last, open look ends every run
		a, b := math.NaN(), math.NaN()
		if k < len(l.Bounds) && l.Bounds[k].Lo != nil {
			a = *l.Bounds[k].Lo * scale
		}
		if k < len(l.Bounds) && l.Bounds[k].Hi != nil {
			b = *l.Bounds[k].Hi * scale
		}
		if finite(a) {
			runLo = append(runLo, plotter.XY{X: l.AtS, Y: a})
		} else {
			lo, runLo = keep(lo, runLo), nil
		}
		if finite(b) {
			runHi = append(runHi, plotter.XY{X: l.AtS, Y: b})
		} else {
			hi, runHi = keep(hi, runHi), nil
		}
		if finite(a) && finite(b) {
			bandLo, bandHi = append(bandLo, plotter.XY{X: l.AtS, Y: a}), append(bandHi, plotter.XY{X: l.AtS, Y: b})
			continue
		}
		if len(bandLo) > 1 {
			slices.Reverse(bandHi) // the polygon goes out along the lower bound and back along the upper
			bands = append(bands, append(bandLo, bandHi...))
		}
		bandLo, bandHi = nil, nil
	}
	return lo, hi, bands
}

// panelTop is the y axis' top: room for the limit and every lower bound,
// but an early upper bound many times the limit runs off the top rather
// than flatten the rest of the panel.
func panelTop(lo, hi []plotter.XYs, limit float64) float64 {
	maxOf := func(runs []plotter.XYs) (m float64) {
		for _, r := range runs {
			_, _, _, ymax := plotter.XYRange(r)
			m = math.Max(m, ymax)
		}
		return m
	}
	maxLo := maxOf(lo)
	top := math.Max(maxLo, maxOf(hi))
	if finite(limit) && limit > 0 {
		top = math.Max(math.Min(top, 3*limit), math.Max(limit, maxLo))
	}
	if top <= 0 {
		return 1
	}
	return top * 1.1
}

func vertical(x, top float64, c color.Color, width vg.Length) (*plotter.Line, error) {
	line, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = c, width
	return line, nil
}

func outcomeColor(outcome string) color.Color {
	switch outcome {
	case string(report.VerdictPass):
		return passColor
	case string(report.VerdictFail):
		return failColor
	}
	return floorColor
}

func fmtS(s float64) string { return strconv.FormatFloat(math.Round(s*10)/10, 'g', -1, 64) + " s" }
